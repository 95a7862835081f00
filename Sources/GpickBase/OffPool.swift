import Dispatch
import FoundationEssentials
import Glibc

/// Runs blocking work on a GCD thread and resumes the caller, keeping the cooperative pool free.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { cont in
        DispatchQueue.global().async { cont.resume(with: Result { try work() }) }
    }
}

/// Blocking work started at once on a thread of its own, awaited later without blocking the pool.
/// Unlike a child task or a GCD block, it never waits for a free worker to begin: GCD keeps as
/// many workers as cores, and at start-up they can all be waiting for GStreamer's initialisation.
///
/// `@unchecked Sendable` invariant: `result` and `waiter` are guarded by `lock`; each is set once.
public final class Background<T: Sendable, E: Error>: @unchecked Sendable {
    private let lock = Lock()
    private var result: Result<T, E>?
    private var waiter: CheckedContinuation<Result<T, E>, Never>?

    public init(_ work: @escaping @Sendable () throws(E) -> T) {
        detachThread { [self] in
            let r = Result<T, E> { () throws(E) in try work() }
            lock.lock()
            result = r
            let w = waiter
            waiter = nil
            lock.unlock()
            w?.resume(returning: r)
        }
    }

    /// The work's result, once it is done.
    public func value() async throws(E) -> T {
        let r = await withCheckedContinuation { (c: CheckedContinuation<Result<T, E>, Never>) in
            lock.lock()
            if let result { lock.unlock(); c.resume(returning: result) } else { waiter = c; lock.unlock() }
        }
        return try r.get()
    }
}
