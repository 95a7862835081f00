import CGpickBase
import Glibc
import FoundationEssentials

/// Runs `body` on a new detached thread of its own, named `name` for debuggers and `top -H`
/// (Foundation's Thread is outside FoundationEssentials). False if the system refused a thread.
@discardableResult
public func detachThread(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: Sendable {
        let name: String?
        let body: @Sendable () -> Void
        init(_ name: String?, _ body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
    }
    DetachedThreads.started()
    let box = Unmanaged.passRetained(Box(name, body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { raw in
        runAndRelease(Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue())
        // Only now, with the body and all it captured released, does the thread count as done.
        DetachedThreads.finished()
        return nil
    }, box)
    guard started == 0 else {
        Unmanaged<Box>.fromOpaque(box).release()
        DetachedThreads.finished()
        return false
    }
    pthread_detach(thread)
    return true

    /// Runs the body; the box (and the closure's captures) go with this frame.
    func runAndRelease(_ box: consuming Box) {
        if let name = box.name { cgpick_name_thread(name) }
        box.body()
    }
}

/// The detached threads and off-pool jobs still running, so a process can wait for them before
/// tearing down what they may still release (GStreamer's leak report shuts GStreamer down at exit).
public enum DetachedThreads {
    static let running = Monitor(0)

    static func started() {
        running.withLock { $0 += 1 }
    }

    static func finished() {
        running.withLock { $0 -= 1 }
    }

    /// Waits (blocking) until every detached thread and job has ended, or `timeout` seconds.
    @discardableResult
    public static func waitForAll(timeout: Double) -> Bool {
        running.wait(until: { $0 == 0 }, deadline: .now + .milliseconds(Int(timeout * 1000))) { $0 == 0 }
    }
}
