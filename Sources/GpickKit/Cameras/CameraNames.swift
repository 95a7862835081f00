import FoundationEssentials
import GpickBase
import GpickFormats
import Glibc

/// The name a still's EXIF gives its camera (Make and Model): the camera's name as `gpick devices`
/// shows it, and its maker when the device says (USB descriptors, PipeWire's device properties),
/// else how it was reached ("V4L2", "PipeWire", "libcamera"). The test source and a file source
/// are named as what they are, so no photo claims a camera that did not take it.
extension CameraIdentity {
    public static let testSource = CameraIdentity(make: "gpick", model: "test source")

    static func of(_ camera: Camera) -> CameraIdentity {
        if camera.kind == .v4l2, let device = camera.source.target {
            let fromSysfs = v4l2(device)
            return CameraIdentity(make: fromSysfs.make, model: camera.name)
        }
        let vendor = camera.properties["device.vendor.name"].flatMap(nonEmpty)
        return CameraIdentity(make: vendor ?? camera.kind.title, model: camera.name)
    }

    static func of(_ spec: SourceSpec, name: String? = nil) -> CameraIdentity {
        switch spec {
        case .test, .auto: return .testSource
        case .file(let path): return CameraIdentity(make: "gpick", model: "file source \(path.split(separator: "/").last.map(String.init) ?? path)")
        case .v4l2(let device, _): return v4l2(device)
        case .pipewire, .libcamera:
            return CameraIdentity(make: spec.cameraKind?.title ?? "gpick", model: name ?? spec.target ?? spec.description)
        }
    }

    /// A V4L2 device's card name and USB maker, from sysfs (no need to open the device).
    static func v4l2(_ device: String) -> CameraIdentity {
        var node = device
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        if let resolved = realpath(device, &buffer) { node = String(cString: resolved) }
        let base = "/sys/class/video4linux/\(node.split(separator: "/").last.map(String.init) ?? node)"
        let card = readLine(base + "/name")
        // The video device's parent is a USB interface; the USB device above it names its maker.
        let maker = readLine(base + "/device/../manufacturer")
        return CameraIdentity(make: maker ?? "V4L2", model: card ?? device)
    }

    private static func readLine(_ path: String) -> String? {
        guard let f = fopen(path, "re") else { return nil }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), f) != nil else { return nil }
        return nonEmpty(String(cChars: line).trimmed())
    }

    private static func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }
}
