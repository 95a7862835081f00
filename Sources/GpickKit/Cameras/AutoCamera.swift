import GpickFormats
import GstCore

/// What `--source auto` chose, and why (for `--json` and the one notice when it is the test source).
public struct CameraChoice: Sendable {
    public var source: SourceSpec
    /// The camera's kind; nil when no camera was found and the test source stands in.
    public var kind: Camera.Kind?
    public var name: String?
    public var reason: String
    /// The camera as a still's EXIF names it.
    public var identity: CameraIdentity = .testSource
}

/// `auto`: the camera a desktop user expects. A PipeWire node when a PipeWire daemon is
/// reachable (it shares the camera with other apps), else a libcamera camera, else the first
/// V4L2 device this user can open, else the test source.
public enum AutoCamera {
    public static func choose() async -> CameraChoice {
        let running = PipeWireSocket.isReachable
        return choose(pipewireRunning: running, cameras: await CameraDirectory.cameras())
    }

    /// The rule itself, on what was found.
    public static func choose(pipewireRunning: Bool, cameras: [Camera]) -> CameraChoice {
        let of = { (k: Camera.Kind) in cameras.filter { $0.kind == k } }
        let pipewire = of(.pipewire)
        if pipewireRunning, let c = pipewire.first {
            return CameraChoice(source: c.source, kind: .pipewire, name: c.name,
                                reason: "PipeWire is running and shares \"\(c.name)\" (PipeWire lets other apps use it too)",
                                identity: .of(c))
        }
        var passed = [pipewireRunning ? "PipeWire is running but shares no camera" : "PipeWire is not running"]
        if let c = of(.libcamera).first {
            return CameraChoice(source: c.source, kind: .libcamera, name: c.name,
                                reason: passed.joined(separator: "; ") + "; libcamera has \"\(c.name)\"", identity: .of(c))
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
        return CameraChoice(source: .test(.init()), kind: nil, name: nil,
                            reason: "no camera found: " + passed.joined(separator: "; "))
    }
}
