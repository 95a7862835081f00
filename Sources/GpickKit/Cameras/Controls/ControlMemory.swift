import FoundationEssentials
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// Controls remembered per camera (`--save-controls`), set each time that camera opens, before
/// any given then. One small text file, a section per camera, as guvcview and cameractrls keep
/// their profiles:
///
///     # gpick: controls remembered for each camera, set each time it opens
///     [usb-046d_C922_Pro_Stream_Webcam_ABC123-video-index0]
///     exposure-mode=manual
///     exposure-time=200
///
/// A camera is named by its `/dev/v4l/by-id` link (the same camera on any port, whatever
/// number the kernel gave it), else its `/dev/v4l/by-path` link, else its device path.
public struct ControlMemory: Sendable {
    public let path: String
    /// Where the kernel's stable names for V4L2 devices live.
    let links: [String]

    public init(path: String, links: [String] = ["/dev/v4l/by-id", "/dev/v4l/by-path"]) {
        self.path = path
        self.links = links
    }

    /// The user's file: `$XDG_CONFIG_HOME/gpick/controls.conf`, else `~/.config/gpick/controls.conf`.
    public static func user(environment: [String: String] = ProcessInfo.processInfo.environment) -> ControlMemory? {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["HOME"].map { $0 + "/.config" }
        return base.map { ControlMemory(path: "\($0)/gpick/controls.conf") }
    }

    /// The camera's stable name: a by-id (else by-path) link that resolves to `device`.
    public func key(for device: String) -> String {
        V4L2Names(directories: links).stableLink(for: device).map { String($0.split(separator: "/").last ?? "") } ?? device
    }

    /// The settings saved for the camera named `key`, in the order they were given.
    public func settings(for key: String) throws(GpickError) -> [ControlSetting] {
        try read()[key] ?? []
    }

    /// Saves `settings` for `key`: each replaces the one of the same name, the rest stay. The
    /// file is replaced whole (written beside it, then renamed): never half-written.
    public func save(_ settings: [ControlSetting], for key: String) throws(GpickError) {
        var all = try read()
        all[key] = Self.merged(all[key] ?? [], settings)
        var text = "# gpick: controls remembered for each camera, set each time it opens (a section per camera)\n"
        for camera in all.keys.sorted() {
            text += "[\(camera)]\n" + (all[camera] ?? []).map { "\($0)\n" }.joined()
        }
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        do {
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            let temporary = path + ".tmp-\(getpid())"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                unlink(temporary)
                throw GpickError(.output, "cannot save the camera's controls in \(path): \(String(cString: strerror(errno)))")
            }
        } catch let error as GpickError {
            throw error
        } catch {
            throw GpickError(.output, "cannot save the camera's controls in \(path): \(error)")
        }
    }

    /// `later` over `earlier`: a control given again takes the later value, in its first place.
    public static func merged(_ earlier: [ControlSetting], _ later: [ControlSetting]) -> [ControlSetting] {
        var out = earlier
        for s in later {
            if let i = out.firstIndex(where: { $0.name == s.name }) { out[i] = s } else { out.append(s) }
        }
        return out
    }

    /// Every camera's settings; a missing file is none. A line that is not `[camera]`,
    /// `NAME=VALUE`, blank or a comment is an error naming the file and line.
    func read() throws(GpickError) -> [String: [ControlSetting]] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw GpickError(.input, "cannot read \(path)")
        }
        var all: [String: [ControlSetting]] = [:]
        var camera: String?
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).trimmed()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                camera = String(line.dropFirst().dropLast())
                continue
            }
            guard let camera, let setting = try? ControlSetting(parsing: line) else {
                throw GpickError(.input, "\(path):\(n + 1): expected [camera] or NAME=VALUE, found \"\(line)\"")
            }
            all[camera] = Self.merged(all[camera] ?? [], [setting])
        }
        return all
    }
}
