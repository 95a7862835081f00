
/// A one-time event that any thread fires and async code waits for: a continuation resumed by
/// the event (or a timer), never a loop that sleeps and checks.
public final class Signal: Sendable {
    private struct State: ~Copyable {
        var fired = false
        var next: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    }
    private let state = Locked(State())

    public init() {}

    public var isFired: Bool { state.withLock { $0.fired } }

    /// Fires it: every waiter, now and later, goes on. Only the first call counts.
    public func fire() {
        let waiters = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
            guard !s.fired else { return [] }
            s.fired = true
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume(returning: true) }
    }

    /// Waits until fired (true), or until `timeout` seconds pass or the task is cancelled (false).
    @discardableResult
    public func wait(timeout: Double? = nil) async -> Bool {
        let id = state.withLock { s -> UInt64 in defer { s.next += 1 }; return s.next }
        let timer = timeout.map { t in
            Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(max(0, t) * 1e9))
                self?.give(up: id)
            }
        }
        defer { timer?.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { s -> Bool? in
                    if s.fired { return true }
                    if Task.isCancelled { return false }
                    s.waiters[id] = c
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            give(up: id)
        }
    }

    /// Waits until any of `signals` fires (true), or `timeout` seconds pass (false).
    public static func any(_ signals: [Signal], timeout: Double? = nil) async -> Bool {
        if signals.contains(where: \.isFired) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            for s in signals { group.addTask { await s.wait() } }
            if let timeout {
                group.addTask {
                    try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1e9))
                    return false
                }
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func give(up id: UInt64) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
    }
}
