/// Runs `body` with a time limit, throwing `CancellationError` when it runs out. At the deadline
/// (or when the caller is cancelled) the body is cancelled and this returns at once: a body that
/// does not answer cancellation (a continuation nobody resumes, a `Task.value`, a state change
/// that GStreamer holds) ends on its own later, and cannot hold its caller past the limit. (A
/// task group would wait for it.)
public func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = FirstResult<T>()
    let work = Task {
        do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
    }
    let timer = Task {
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
        guard !Task.isCancelled else { return }
        work.cancel()
        race.finish(.failure(CancellationError()))
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await race.value()
    } onCancel: {
        work.cancel()
        race.finish(.failure(CancellationError()))
    }
}

/// The first of several outcomes, for one waiter: later ones are dropped.
private final class FirstResult<T: Sendable>: Sendable {
    private struct State: ~Copyable {
        var result: Result<T, Error>?
        var waiter: CheckedContinuation<T, Error>?
    }
    private let state = Locked(State())

    func finish(_ result: Result<T, Error>) {
        let waiter = state.withLock { s -> CheckedContinuation<T, Error>? in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, Error>) in
            let ready = state.withLock { s -> Result<T, Error>? in
                if let r = s.result { return r }
                s.waiter = c
                return nil
            }
            if let ready { c.resume(with: ready) }
        }
    }
}
