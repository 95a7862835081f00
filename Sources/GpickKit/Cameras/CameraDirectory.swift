import FoundationEssentials
import GpickBase
import GstCore
#if canImport(Glibc)
import Glibc
#endif

/// Every camera the machine offers, from each of GStreamer's device providers, and the one a
/// `--source` names.
public enum CameraDirectory {
    /// The cameras of every provider (or of one kind), access unchecked. When PipeWire shares
    /// the machine's V4L2 cameras, its provider hides the V4L2 one: each camera is listed once,
    /// the way a desktop reaches it.
    public static func cameras(of kind: Camera.Kind? = nil) async -> [Camera] {
        let devices = (try? await DeviceMonitor.devices(classes: "Video/Source", provider: kind?.provider)) ?? []
        return devices.compactMap(Camera.init).filter { kind == nil || $0.kind == kind }
    }

    /// The cameras with their access judged per kind: a V4L2 device file's permissions (with the
    /// fix); whether a PipeWire node can be connected and delivers a frame; a libcamera camera
    /// is usable once its provider lists it.
    public static func checked(_ cameras: [Camera], timeout: Double = 3) async -> [Camera] {
        await withTaskGroup(of: (Int, Camera.Access).self) { group in
            for (i, c) in cameras.enumerated() {
                group.addTask { (i, await access(c, timeout: timeout)) }
            }
            var out = cameras
            for await (i, a) in group { out[i].access = a }
            return out
        }
    }

    static func access(_ camera: Camera, timeout: Double) async -> Camera.Access {
        switch camera.source {
        case .v4l2(let path, _):
            do {
                try camera.source.checkAccessible()
                return .ok
            } catch {
                let fix = Glibc.access(path, F_OK) == 0 ? "sudo usermod -aG video $USER, then log in again" : nil
                return .denied(error.message, fix: fix)
            }
        case .pipewire(let target?):
            return await PipeWireProbe.connect(target: target, timeout: timeout)
        default:
            return .ok
        }
    }

    /// The camera a PipeWire or libcamera source names (the first one when it names none), or
    /// one line saying why there is none.
    public static func find(_ spec: SourceSpec) async throws(GpickError) -> Camera {
        guard let kind = spec.cameraKind, kind != .v4l2 else { throw GpickError(.runtime, "\(spec) is not found through a provider") }
        guard Gst.hasElement(kind.factory) else {
            let package = ElementPackages.package(for: kind.factory) ?? "the package that provides \(kind.factory)"
            throw GpickError(.plugin, "\(spec) needs GStreamer's \(kind.factory) element: install \(package)")
        }
        let found = await cameras(of: kind)
        if let wanted = spec.target {
            if let c = found.first(where: { $0.isNamed(wanted) }) { return c }
        } else if let first = found.first {
            return first
        }
        let what = spec.target.map { "no \(kind.title) camera \"\($0)\"" } ?? "no \(kind.title) camera"
        if kind == .pipewire, !PipeWireSocket.isReachable {
            throw GpickError(.device, "\(what): PipeWire is not running (no daemon at \(PipeWireSocket.path ?? "$XDG_RUNTIME_DIR/pipewire-0"))")
        }
        if found.isEmpty {
            throw GpickError(.device, "\(what): \(kind.title) lists no cameras")
        }
        let names = found.map { "\($0.source)" }.joined(separator: ", ")
        throw GpickError(.device, "\(what) (\(kind.title) has \(names))")
    }
}

extension CameraDirectory {
    /// How long asking a provider whether a camera is there may take. PipeWire's device provider
    /// can wait for good for its daemon's answer while a stream of the same connection is stalled
    /// (seen beside a busy loop, a stream cut from its camera): past this the answer is "still
    /// there", and the camera's own start timeout decides. The question itself is left to finish
    /// or not on its own thread.
    static let presenceBound = 3.0

    /// Whether the camera a source names is still there (its provider lists it, its device file
    /// exists); true for anything that is not a camera, and when the provider does not answer
    /// within `presenceBound`.
    public static func isPresent(_ spec: SourceSpec) async -> Bool {
        switch spec {
        case .v4l2(let dev, _): return fileStatus(dev) != nil
        case .pipewire, .libcamera:
            let answer = Locked<Bool?>(nil), answered = Signal()
            Task {
                let found = (try? await find(spec)) != nil
                answer.withLock { $0 = found }
                answered.fire()
            }
            guard await answered.wait(timeout: presenceBound) else { return true }
            return answer.withLock { $0 } ?? true
        case .auto, .test, .file: return true
        }
    }
}
