// C's `stdout` is a mutable global to Swift 6; it is touched once, at start, before any other
// thread prints, so the preconcurrency import's relaxed checking is sound here.
@preconcurrency import Glibc
import GpickTerminal

extension Console {
    /// Events and printed paths are read line by line by scripts and pipes: never hold one back.
    package static func lineBufferStandardOutput() {
        setvbuf(stdout, nil, _IOLBF, 0)
    }
}

extension Console {
    /// Ends the process with `code` once stdio is flushed, without exit's destructors. Native
    /// work may still run on other threads when the answer is ready, and exit's destructors
    /// running under it have crashed, aborted and hung gpick:
    /// - in gpick-library: a video thumbnail's GStreamer decode or plugins still loading, and
    ///   libvips' workers (a double free, GObject's type set-up asserting);
    /// - in gpick: a pipeline's last reference released on another thread as the preview
    ///   quit, whose GL sink closed its X display after exit had torn libXext down (SIGSEGV).
    /// Nothing here needs a destructor: files are written atomically, SQLite's WAL is consistent
    /// at every commit, and a terminal still held is put back here. Only the two streams gpick
    /// writes are flushed: `fflush(NULL)` takes every stream's lock, and waits forever for one
    /// that a blocked reader holds.
    package static func leave(_ code: Int32) -> Never {
        TerminalScreen.restoreBeforeExit()
        fflush(stdout)
        fflush(stderr)
        _exit(code)
    }
}
