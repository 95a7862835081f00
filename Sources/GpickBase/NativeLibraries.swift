import Synchronization

/// The big native library sets gpick loads, GStreamer's plugins and libvips' modules, start one
/// at a time, under one process-wide lock: both register GLib types and dlopen dozens of modules
/// (libav, libheif, ImageMagick…) whose constructors are not all safe to run side by side. A
/// picker that thumbnailed a video (GStreamer) while libvips started crashed with a double free,
/// about one run in twenty under load. A process that ends during a start ends with `_exit`
/// (Console.leave): exit's destructors would run under the start and abort it.
public enum NativeLibraries {
    private static let lock = Mutex(())

    /// Runs a library's one-time start (blocking: call it off the cooperative pool).
    public static func starting<R: Sendable>(_ body: () -> R) -> R {
        lock.withLock { _ in body() }
    }
}
