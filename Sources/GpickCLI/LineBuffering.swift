// C's `stdout` is a mutable global to Swift 6; it is touched once, at start, before any other
// thread prints, so the preconcurrency import's relaxed checking is sound here.
@preconcurrency import Glibc

extension Console {
    /// Events and printed paths are read line by line by scripts and pipes: never hold one back.
    package static func lineBufferStandardOutput() {
        setvbuf(stdout, nil, _IOLBF, 0)
    }
}

extension Console {
    /// Ends the process with `code` once stdio is flushed, without exit's destructors. In
    /// gpick-library, native work may still run on other threads when the answer is ready (a
    /// video thumbnail's GStreamer decode, loading plugins; libvips' workers): exit's destructors
    /// running under it have aborted the process (a double free, GObject's type set-up asserting)
    /// and hung it. Nothing here needs a destructor: files are written atomically, and SQLite's
    /// WAL is consistent at every commit. Only the two streams gpick writes are flushed:
    /// `fflush(NULL)` takes every stream's lock, and waits forever for one that a blocked reader holds.
    package static func leave(_ code: Int32) -> Never {
        fflush(stdout)
        fflush(stderr)
        _exit(code)
    }
}
