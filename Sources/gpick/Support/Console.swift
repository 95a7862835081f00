import FoundationEssentials
import Glibc
import GpickKit

/// stderr/stdout helpers: one line per error, progress only on a TTY.
enum Console {
    static let stderrIsTTY = isatty(2) != 0

    static func error(_ message: String) {
        writeError("gpick: error: \(message)\n")
    }

    static func notice(_ message: String) {
        writeError("gpick: \(message)\n")
    }

    /// All of `text` to stderr (unbuffered, as a diagnostic should be), retrying short writes.
    static func writeError(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// Rewrites the progress line in place (TTY only).
    static func progress(_ line: String) {
        guard stderrIsTTY else { return }
        writeError("\r\u{1B}[K\(line)")
    }

    static func endProgress() {
        guard stderrIsTTY else { return }
        writeError("\r\u{1B}[K")
    }

    static func out(_ line: String) {
        print(line)
    }
}

func formatBytes(_ n: Int64) -> String {
    if n < 1024 { return "\(n) B" }
    if n < 1024 * 1024 { return cFormat("%.1f KiB", Double(n) / 1024) }
    return cFormat("%.1f MiB", Double(n) / 1048576)
}

/// Size of a written file, for file-written events.
func fileBytes(_ p: String) -> Int64 {
    var st = stat()
    return stat(p, &st) == 0 ? Int64(st.st_size) : 0
}
