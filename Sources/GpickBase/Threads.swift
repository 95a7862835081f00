import CGpickBase
import Glibc
import FoundationEssentials

/// A mutex (Foundation's NSLock lives outside FoundationEssentials, which is all gpick links).
///
/// `@unchecked Sendable` invariant: the pthread mutex is the synchronisation; it is allocated
/// once, never moved, and destroyed only in deinit when no thread can hold it.
public final class Lock: @unchecked Sendable {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A mutex with a condition variable, timed on the monotonic clock (a wall-clock step cannot
/// shorten or stretch a wait).
///
/// `@unchecked Sendable` invariant: as `Lock`; the condition is only waited on with its mutex held.
public final class Condition: @unchecked Sendable {
    private let mutex = Lock()
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    public func lock() { mutex.lock() }
    public func unlock() { mutex.unlock() }
    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try mutex.withLock(body) }

    /// Waits (lock held) until signalled.
    public func wait() { pthread_cond_wait(cond, mutex.mutex) }

    /// Waits (lock held) until signalled or `deadline`; false when the deadline passed.
    @discardableResult
    public func wait(until deadline: Date) -> Bool {
        let seconds = max(0, deadline.timeIntervalSinceNow)
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let whole = seconds.rounded(.down)
        var nanos = Int(ts.tv_nsec) + Int((seconds - whole) * 1e9)
        ts.tv_sec += Int(min(whole, Double(Int32.max))) + nanos / 1_000_000_000
        nanos %= 1_000_000_000
        ts.tv_nsec = nanos
        return pthread_cond_timedwait(cond, mutex.mutex, &ts) != ETIMEDOUT
    }

    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }
}

/// Runs `body` on a new detached thread of its own, named `name` for debuggers and `top -H`
/// (Foundation's Thread is outside FoundationEssentials). False if the system refused a thread.
@discardableResult
public func detachThread(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: Sendable {
        let name: String?
        let body: @Sendable () -> Void
        init(_ name: String?, _ body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
    }
    DetachedThreads.running.withLock { $0 += 1 }
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

/// The detached threads still running, so a process can wait for them before tearing down what
/// they may still release (GStreamer's leak report shuts GStreamer down at exit).
public enum DetachedThreads {
    fileprivate static let running = Monitor(0)

    fileprivate static func finished() {
        running.withLock { $0 -= 1 }
        running.broadcast()
    }

    /// Waits (blocking) until every detached thread has ended, or `timeout` seconds.
    @discardableResult
    public static func waitForAll(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return running.wait(until: { $0 == 0 || Date() >= deadline }, poll: 0.01) { $0 == 0 }
    }
}
