// C's `stdout` is a mutable global to Swift 6; it is touched once, at start, before any other
// thread prints, so the preconcurrency import's relaxed checking is sound here.
@preconcurrency import Glibc

extension Console {
    /// Events and printed paths are read line by line by scripts and pipes: never hold one back.
    package static func lineBufferStandardOutput() {
        setvbuf(stdout, nil, _IOLBF, 0)
    }
}
