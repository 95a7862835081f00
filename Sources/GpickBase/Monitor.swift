import Glibc

/// `Locked<State>` for state a thread must wait on (a streaming thread holding a buffer until
/// another thread decides, a frame delivery waiting for a lagging reader). As with Mutex, the
/// state is reached only inside the lock, so the compiler checks every access. Every change made
/// inside `withLock` (or a wait's body) wakes the waiters, who check their condition again: no
/// wake-up can be missed, and none needs spelling out.
///
/// `@unchecked Sendable` invariant: `state` and `waiters` are read and written only with `mutex`
/// held (inside `withLock` and `wait`); the mutex and condition are allocated once and destroyed
/// in deinit, when no thread can hold them.
public final class Monitor<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>
    private var state: State
    private var waiters = 0

    public init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        // Timed on the monotonic clock: a wall-clock step cannot shorten or stretch a wait.
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { unlockWaking() }
        return try body(&state)
    }

    /// Waits until `ready` holds, then runs `body`, all under the lock. With a `deadline`, gives
    /// up waiting then and runs `body` anyway (`ready` tells it which happened).
    @discardableResult
    public func wait<R>(until ready: (inout State) -> Bool, deadline: ContinuousClock.Instant? = nil,
                        then body: (inout State) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { unlockWaking() }
        while !ready(&state) {
            waiters += 1
            defer { waiters -= 1 }
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { break }
                var ts = Self.monotonic(after: left)
                _ = pthread_cond_timedwait(cond, mutex, &ts)
            } else {
                pthread_cond_wait(cond, mutex)
            }
        }
        return body(&state)
    }

    private func unlockWaking() {
        if waiters > 0 { pthread_cond_broadcast(cond) }
        pthread_mutex_unlock(mutex)
    }

    private static func monotonic(after duration: Duration) -> timespec {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let (seconds, attoseconds) = duration.components
        let nanos = Int(ts.tv_nsec) + Int(attoseconds / 1_000_000_000)
        ts.tv_sec += Int(min(seconds, Int64(Int32.max))) + nanos / 1_000_000_000
        ts.tv_nsec = nanos % 1_000_000_000
        return ts
    }
}
