import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices a camera that stops delivering without a word. A PipeWire node that is destroyed
/// (the camera unplugged, its daemon's policy) leaves pipewiresrc waiting with no error and no
/// end of stream, so a camera that was live and sends nothing for `timeout` is lost.
final class FrameWatchdog: Sendable {
    private let newest = Atomic<UInt64>(0)  // monotonic ns of the newest frame; 0: none yet
    private let timeout: UInt64
    private let watcher = Mutex<Task<Void, Never>?>(nil)

    init(timeout seconds: Double) { timeout = UInt64(max(seconds, 0.05) * 1e9) }

    /// Starts watching; `stalled` is called once, from a task, when frames stop.
    func start(stalled: @escaping @Sendable () -> Void) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let last = newest.load(ordering: .relaxed), now = Self.now()
                if last != 0, now &- last >= timeout {
                    stalled()
                    return
                }
                // Until the first frame (waiting for it is the start timeout's job), a whole
                // interval; after it, until the newest frame is `timeout` old.
                let wait = last == 0 ? timeout : timeout - (now &- last)
                try? await Task.sleep(nanoseconds: wait)
            }
        }
        watcher.withLock { $0 = task }
    }

    /// A frame arrived (streaming thread): one relaxed store.
    func frameArrived() { newest.store(Self.now(), ordering: .relaxed) }

    func stop() { watcher.withLock { $0?.cancel() } }

    private static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
