import GpickBase
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices a camera that stops delivering without a word. A PipeWire node that is destroyed
/// (the camera unplugged, its daemon's policy) leaves pipewiresrc waiting with no error and no
/// end of stream, so a camera that was live and sends nothing for `timeout` has stopped (the
/// session reopens it if it is still there, see CameraReconnect); one that has sent nothing
/// yet is lost when it is no longer there, and silent when it is still there after `silentAfter`
/// (a PipeWire stream that connected as the session manager suspended its node waits for good).
final class FrameWatchdog: Sendable {
    private let newest = Atomic<UInt64>(0)  // monotonic ns of the newest frame; 0: none yet
    private let timeout: UInt64
    private let silentAfter: UInt64
    private let watcher = Mutex<Task<Void, Never>?>(nil)

    init(timeout seconds: Double, silentAfter silent: Double) {
        timeout = UInt64(max(seconds, 0.05) * 1e9)
        silentAfter = UInt64(max(silent, seconds, 0.05) * 1e9)
    }

    /// Why a camera counts as lost: its frames stopped, it went away before its first frame,
    /// or it is there but sent no first frame within `silentAfter`.
    enum Loss: Sendable { case stopped, gone, silent }

    /// Starts watching; `lost` is called once, from a task, when a live camera's frames stop,
    /// or when a camera that has not delivered yet is no longer there (`present` says) or stays
    /// silent.
    func start(present: @escaping @Sendable () async -> Bool, lost: @escaping @Sendable (Loss) -> Void) {
        let started = Self.now()
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let last = newest.load(ordering: .relaxed), now = Self.now()
                if last != 0, now &- last >= timeout {
                    lost(.stopped)
                    return
                }
                // Until the first frame a whole interval, then a look at whether the camera is
                // still there; after it, until the newest frame is `timeout` old.
                let wait = last == 0 ? timeout : timeout - (now &- last)
                try? await Task.sleep(nanoseconds: wait)
                guard !Task.isCancelled, newest.load(ordering: .relaxed) == 0 else { continue }
                let there = await present()
                guard !Task.isCancelled, newest.load(ordering: .relaxed) == 0 else { continue }
                if !there {
                    lost(.gone)
                    return
                }
                if Self.now() &- started >= silentAfter {
                    lost(.silent)
                    return
                }
            }
        }
        watcher.withLock { $0 = task }
    }

    /// A frame arrived (streaming thread): one relaxed store.
    func frameArrived() { newest.store(Self.now(), ordering: .relaxed) }

    func stop() { watcher.withLock { $0?.cancel() } }

    private static func now() -> UInt64 { Monotonic.nanoseconds() }
}
