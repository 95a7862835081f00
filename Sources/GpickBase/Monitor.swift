import FoundationEssentials

/// `Locked<State>` with a condition variable, for state a thread must wait on (a streaming thread
/// holding a buffer until another thread decides, a frame delivery waiting for a lagging
/// reader). As with Mutex, the state is reached only inside `withLock`, so the compiler checks
/// every access.
///
/// `@unchecked Sendable` invariant: `state` is read and written only inside `withLock` and
/// `wait`, with the condition's mutex held.
public final class Monitor<State>: @unchecked Sendable {
    private let cond = Condition()
    private var state: State

    public init(_ state: State) { self.state = state }

    public func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        cond.lock()
        defer { cond.unlock() }
        return try body(&state)
    }

    /// Waits until `ready` holds, woken by `broadcast` (and every `poll` seconds at most, so a
    /// missed wake-up costs that long, never forever), then runs `body`, all under the lock.
    public func wait<R>(until ready: (inout State) -> Bool, poll: Double = 0.1, then body: (inout State) -> R) -> R {
        cond.lock()
        defer { cond.unlock() }
        while !ready(&state) { cond.wait(until: Date(timeIntervalSinceNow: poll)) }
        return body(&state)
    }

    /// Wakes every waiter (call after changing what they wait for).
    public func broadcast() { cond.broadcast() }
}
