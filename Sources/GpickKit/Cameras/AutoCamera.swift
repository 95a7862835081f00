import GpickFormats
import GstCore

/// What `--source auto` chose, and why (for `--json` and `--verbose`).
public struct CameraChoice: Sendable {
    public var source: SourceSpec
    public var kind: Camera.Kind
    public var name: String?
    public var reason: String
    /// The camera as a still's EXIF names it.
    public var identity: CameraIdentity = .testSource
    /// What its provider says it offers (GstDevice caps): the modes gpick chooses from.
    public var formats: [CapsStructure] = []
}

/// `auto`: the camera a desktop user expects. A PipeWire node when a PipeWire daemon is
/// reachable (it shares the camera with other apps), else a libcamera camera, else the first
/// V4L2 device this user can open. No camera means no camera: never a test pattern unasked.
public enum AutoCamera {
    public static func choose() async throws(GpickError) -> CameraChoice {
        let running = PipeWireSocket.isReachable
        return try choose(pipewireRunning: running, cameras: await CameraDirectory.cameras())
    }

    /// How often `waitForOne` looks: each look asks every device provider (a few ms), so a camera
    /// plugged in is found within a second and a half.
    public static let arrivalPoll: Duration = .milliseconds(1500)

    /// The camera `auto` chooses, waiting until one is plugged in: `missing` hears why there is
    /// none after each look, and returns whether to go on waiting (nil is returned when it does
    /// not, or the task is cancelled).
    public static func waitForOne(poll: Duration = arrivalPoll, missing: (GpickError) -> Bool) async -> CameraChoice? {
        while !Task.isCancelled {
            do throws(GpickError) { return try await choose() } catch {
                guard missing(error) else { return nil }
            }
            try? await Task.sleep(for: poll)
        }
        return nil
    }

    /// The rule itself, on what was found; when nothing was, what was looked for.
    public static func choose(pipewireRunning: Bool, cameras: [Camera]) throws(GpickError) -> CameraChoice {
        let of = { (k: Camera.Kind) in cameras.filter { $0.kind == k } }
        let pipewire = of(.pipewire)
        if pipewireRunning, let c = pipewire.first {
            return CameraChoice(source: c.source, kind: .pipewire, name: c.name,
                                reason: "PipeWire is running and shares \"\(c.name)\" (PipeWire lets other apps use it too)",
                                identity: .of(c), formats: c.formats)
        }
        var passed = [pipewireRunning ? "PipeWire is running but shares no camera" : "PipeWire is not running"]
        if let c = of(.libcamera).first {
            return CameraChoice(source: c.source, kind: .libcamera, name: c.name,
                                reason: passed.joined(separator: "; ") + "; libcamera has \"\(c.name)\"", identity: .of(c), formats: c.formats)
        }
        passed.append("libcamera found no camera")
        var refused: [String] = []
        for c in of(.v4l2) {
            do {
                try c.source.checkAccessible()
                return CameraChoice(source: c.source, kind: .v4l2, name: c.name,
                                    reason: passed.joined(separator: "; ") + "; \(c.source.target ?? c.name) (\"\(c.name)\") can be opened",
                                    identity: .of(c))
            } catch {
                refused.append(error.message)
            }
        }
        passed.append(refused.isEmpty ? "no V4L2 camera" : refused.joined(separator: "; "))
        throw GpickError(.device, "no camera found: " + passed.joined(separator: "; "), remedy: .useTestSource)
    }
}
