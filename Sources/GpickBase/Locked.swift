import CGpickBase
import Synchronization

/// Shared state behind Synchronization.Mutex, where the compiler checks that it is only reached
/// with the lock held. The standard library's Mutex waits on futexes, which ThreadSanitizer
/// cannot see, so every lock also tells it the happens-before edge (free when not sanitized):
/// `make tsan` then checks gpick's code, not the lock.
public struct Locked<State: ~Copyable>: ~Copyable, Sendable {
    private let mutex: Mutex<State>
    /// A stable address that names this lock to the sanitizer.
    private let token = HappensBefore()

    public init(_ state: consuming sending State) { mutex = Mutex(state) }

    public borrowing func withLock<R: ~Copyable, E: Error>(_ body: (inout sending State) throws(E) -> sending R) throws(E) -> sending R {
        try mutex.withLock { (s: inout sending State) throws(E) -> sending R in
            token.acquire()
            defer { token.release() }
            return try body(&s)
        }
    }
}

/// A hand-off point ThreadSanitizer cannot see on its own (a lock's futex, a value passed through
/// GStreamer to a streaming thread): `release` before handing over, `acquire` after taking over.
public final class HappensBefore: Sendable {
    public init() {}
    public func acquire() { cgpick_tsan_acquire(Unmanaged.passUnretained(self).toOpaque()) }
    public func release() { cgpick_tsan_release(Unmanaged.passUnretained(self).toOpaque()) }

    /// The same for any address: a callback box handed to C, released before and acquired in
    /// the callback.
    public static func release(_ address: UnsafeRawPointer) { cgpick_tsan_release(address) }
    public static func acquire(_ address: UnsafeRawPointer) { cgpick_tsan_acquire(address) }
}
