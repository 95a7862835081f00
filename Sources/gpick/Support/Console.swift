import Foundation

/// stderr/stdout helpers: one line per error, progress only on a TTY.
enum Console {
    static let stderrIsTTY = isatty(2) != 0

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("gpick: error: \(message)\n".utf8))
    }

    static func notice(_ message: String) {
        FileHandle.standardError.write(Data("gpick: \(message)\n".utf8))
    }

    /// Rewrites the progress line in place (TTY only).
    static func progress(_ line: String) {
        guard stderrIsTTY else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    static func endProgress() {
        guard stderrIsTTY else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    static func out(_ line: String) {
        print(line)
    }
}

func formatBytes(_ n: Int64) -> String {
    if n < 1024 { return "\(n) B" }
    if n < 1024 * 1024 { return String(format: "%.1f KiB", Double(n) / 1024) }
    return String(format: "%.1f MiB", Double(n) / 1048576)
}

/// Size of a written file, for file-written events.
func fileBytes(_ p: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: p))?[.size] as? NSNumber)?.int64Value ?? 0
}
