import GpickBase
import FoundationEssentials

/// At most `limit` decodes at a time, first come first served; the others wait without holding
/// a thread. A picker asking for a thousand thumbnails at once gets them a core's worth at a time,
/// and a request whose task is cancelled (scrolled out of sight) leaves the queue.
final class DecodeGate: Sendable {
    private struct State: ~Copyable {
        var free: Int
        var next: UInt64 = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    }
    private let state: Locked<State>

    init(limit: Int) { state = Locked(State(free: max(1, limit))) }

    /// One gate for the process: decodes compete for the same cores whoever asks for them.
    static let shared = DecodeGate(limit: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Runs `work` once a place is free.
    func run<T: Sendable>(_ work: () async throws(GpickError) -> T) async throws(GpickError) -> T {
        try await acquire()
        defer { release() }
        return try await work()
    }

    private func acquire() async throws(GpickError) {
        let id = state.withLock { s -> UInt64 in defer { s.next += 1 }; return s.next }
        let admitted = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { s -> Bool? in
                    if Task.isCancelled { return false }
                    if s.free > 0, s.waiters.isEmpty { s.free -= 1; return true }
                    s.waiters.append((id, c))
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
                guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: i).continuation
            }
            waiter?.resume(returning: false)
        }
        guard admitted else { throw GpickError(.interrupted, "cancelled") }
    }

    private func release() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard !s.waiters.isEmpty else { s.free += 1; return nil }
            return s.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
