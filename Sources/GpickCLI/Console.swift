import FoundationEssentials
import Glibc
import Synchronization
import CLibraryText
import GpickBase

/// stderr/stdout helpers: one line per error, progress only on a TTY.
package enum Console {
    /// Decided on the user's stderr, not on the /dev/null that fd 2 may have become.
    package static let stderrIsTTY = isatty(gpick_library_text_stderr()) != 0

    /// --verbose: GStreamer's warnings and the debug text of errors go to stderr too.
    package static var verbose: Bool { verboseFlag.load(ordering: .relaxed) }
    private static let verboseFlag = Atomic<Bool>(false)

    /// --verbose, as parsed: gpick's detail lines, and libraries' own text (GLib's and GStreamer's
    /// warnings) from now on; children gpick starts get GPICK_VERBOSE=1 (`childEnvironment`).
    package static func beVerbose() {
        verboseFlag.store(true, ordering: .relaxed)
        gpick_library_text_show()
    }

    /// Verbosity handed over by the environment (GPICK_VERBOSE=1, as gpick passes it on).
    package static func verboseFromEnvironment() {
        if let v = getenv("GPICK_VERBOSE"), !["", "0"].contains(String(cString: v)) { beVerbose() }
    }

    /// This process's environment for a child, with the verbosity passed on.
    package static func childEnvironment(_ environment: [String: String]) -> [String: String] {
        verbose ? environment.merging(["GPICK_VERBOSE": "1"]) { $1 } : environment
    }

    package static func error(_ message: String) {
        writeError(level(3) + "gpick: error: \(message)\n")
    }

    /// The one error line, and with --verbose what GStreamer said about it.
    package static func error(_ e: GpickError) {
        error(e.line)
        if verbose, let detail = e.detail { writeError(level(7) + "gpick: detail: \(detail)\n") }
    }

    package static func notice(_ message: String) {
        writeError(level(5) + "gpick: \(message)\n")
    }

    /// Whether stderr is the journal's stream (systemd names it in $JOURNAL_STREAM as
    /// DEVICE:INODE): each line then begins with its syslog level, `<3>` an error, `<5>` a
    /// notice, `<7>` detail, which journald keeps as the entry's priority (sd-daemon(3)).
    package static let toJournal: Bool = {
        guard let v = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: v).split(separator: ":")
        var st = stat()
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]), fstat(errorDescriptor, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }()

    private static func level(_ n: Int) -> String { toJournal ? "<\(n)>" : "" }

    /// All of `text` to stderr, unbuffered, as a diagnostic should be (a closed stderr is ignored).
    package static func writeError(_ text: String) {
        Array(text.utf8).withUnsafeBytes { try? writeAll(errorDescriptor, $0, path: "stderr") }
    }

    /// The user's stderr, where gpick's own lines go: fd 2, or a copy of it while fd 2 keeps
    /// libraries' text away (a child that speaks to the user gets this one as its stderr).
    package static var errorDescriptor: Int32 { gpick_library_text_stderr() }

    /// Keeps what libraries print on their own (GLib's and GStreamer's warnings, libpng's
    /// "libpng error: …", libjpeg's, libheif's, libtiff's, a child such as gst-plugin-scanner)
    /// off stderr, unless GPICK_VERBOSE, G_MESSAGES_DEBUG or GST_DEBUG asks for it: GLib's log
    /// writer drops them, fd 2 becomes /dev/null, and gpick's own lines go to a copy of the real
    /// stderr. gpick does it as it loads (CGpickStartup); the helpers call it first thing.
    package static func keepLibraryTextOffStderr() {
        gpick_library_text_begin(0)
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

package func formatBytes(_ n: Int64) -> String { ByteSize.format(n) }

/// Size of a written file, for file-written events.
package func fileBytes(_ p: String) -> Int64 {
    fileStatus(p).map { Int64($0.st_size) } ?? 0
}
