import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A V4L2 camera's stable names. The kernel gives a camera the first free `/dev/videoN` each
/// time it appears, so a webcam plugged in again can come back as /dev/video2 (its metadata node
/// takes a number too, and another camera may have taken its old one). udev's links in
/// `/dev/v4l/by-id` name the camera itself (vendor, product, serial, interface) and follow it to
/// its new node; `/dev/v4l/by-path` names the USB port it is in.
public struct V4L2Names: Sendable {
    /// Where udev makes the links, most stable first.
    public let directories: [String]

    public static let system = V4L2Names(directories: ["/dev/v4l/by-id", "/dev/v4l/by-path"])

    public init(directories: [String]) {
        self.directories = directories
    }

    /// The link (its whole path) that names the camera at `device`, by-id before by-path; nil
    /// when none resolves to it (a CSI camera, a machine without udev).
    public func stableLink(for device: String) -> String? {
        guard let target = Self.resolved(device) else { return nil }
        for dir in directories {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { continue }
            for name in names.sorted() where Self.resolved("\(dir)/\(name)") == target {
                return "\(dir)/\(name)"
            }
        }
        return nil
    }

    /// The source to open a lost V4L2 camera by once it is back, nil while it is not. One that
    /// had a stable `link` is found where the link points now: the same source when that is the
    /// node it was opened by, else the new node (same options). One without is back when its
    /// device file is there again.
    public static func returned(_ spec: SourceSpec, link: String?) -> SourceSpec? {
        guard case .v4l2(let device, let options) = spec else { return spec }
        guard let link else { return access(device, F_OK) == 0 ? spec : nil }
        guard let now = resolved(link) else { return nil }
        return resolved(device) == now ? spec : .v4l2(device: now, mode: options)
    }

    /// The file a path names once every link is followed; nil when there is none.
    static func resolved(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
