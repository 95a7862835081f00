import FoundationEssentials
import Glibc
import Synchronization
import GpickBase

/// stderr/stdout helpers: one line per error, progress only on a TTY.
package enum Console {
    package static let stderrIsTTY = isatty(2) != 0

    /// --verbose: GStreamer's warnings and the debug text of errors go to stderr too.
    package static var verbose: Bool { verboseFlag.load(ordering: .relaxed) }
    package static let verboseFlag = Atomic<Bool>(false)

    package static func error(_ message: String) {
        writeError("gpick: error: \(message)\n")
    }

    /// The one error line, and with --verbose what GStreamer said about it.
    package static func error(_ e: GpickError) {
        error(e.line)
        if verbose, let detail = e.detail { writeError("gpick: detail: \(detail)\n") }
    }

    package static func notice(_ message: String) {
        writeError("gpick: \(message)\n")
    }

    /// All of `text` to stderr, unbuffered, as a diagnostic should be (a closed stderr is ignored).
    package static func writeError(_ text: String) {
        Array(text.utf8).withUnsafeBytes { try? writeAll(errorFD.load(ordering: .relaxed), $0, path: "stderr") }
    }

    /// Where gpick's own lines go: stderr, or a copy of it once libraries are kept off it.
    private static let errorFD = Atomic<Int32>(2)

    /// Keeps what libraries print on their own (libpng's "libpng error: …", libjpeg's, libheif's,
    /// libtiff's, GLib's warnings) off stderr: fd 2 becomes /dev/null, and gpick's own lines go to
    /// a copy of the real stderr. With --verbose nothing changes. Call once, after parsing.
    package static func keepLibraryTextOffStderr() {
        guard !verbose, errorFD.load(ordering: .relaxed) == 2 else { return }
        _ = stderrIsTTY  // decided on the real stderr
        let copy = fcntl(2, F_DUPFD_CLOEXEC, 3)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard copy >= 0, null >= 0 else {
            if copy >= 0 { close(copy) }
            if null >= 0 { close(null) }
            return
        }
        fflush(nil)  // nothing buffered for the old stderr is lost
        guard dup2(null, 2) >= 0 else { close(copy); close(null); return }
        close(null)
        errorFD.store(copy, ordering: .relaxed)
    }

    /// Rewrites the progress line in place (TTY only).
    package static func progress(_ line: String) {
        guard stderrIsTTY else { return }
        writeError("\r\u{1B}[K\(line)")
    }

    package static func endProgress() {
        guard stderrIsTTY else { return }
        writeError("\r\u{1B}[K")
    }

    package static func out(_ line: String) {
        print(line)
    }
}

package func formatBytes(_ n: Int64) -> String {
    if n < 1024 { return "\(n) B" }
    if n < 1024 * 1024 { return cFormat("%.1f KiB", Double(n) / 1024) }
    return cFormat("%.1f MiB", Double(n) / 1048576)
}

/// Size of a written file, for file-written events.
package func fileBytes(_ p: String) -> Int64 {
    fileStatus(p).map { Int64($0.st_size) } ?? 0
}
