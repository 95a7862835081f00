import Foundation

/// The user's browser, for the pages gpick serves (the picker, the avatar editor).
package enum Browser {
    /// Opens `url` with xdg-open, detached; its output is not ours.
    package static func open(_ url: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/xdg-open")
        p.arguments = [url]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try? p.run()
    }

    /// Whether there is a display to open a browser on.
    package static var hasDisplay: Bool {
        let e = ProcessInfo.processInfo.environment
        return !(e["DISPLAY"] ?? "").isEmpty || !(e["WAYLAND_DISPLAY"] ?? "").isEmpty
    }
}
