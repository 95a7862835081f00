
/// The one way gpick leaves Swift's cooperative pool for work that blocks: state changes that
/// wait for streaming threads, parsing pipelines (GStreamer's parser holds a global lock),
/// fsync, device probing. Each job runs at once on a thread of its own: it never waits for a
/// free worker (GCD keeps as many as cores, and at start-up they can all be waiting for
/// GStreamer's initialisation), and it never holds one of the pool's few threads.
public enum OffPool {
    /// Runs `work` off the pool and resumes with its result.
    public static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        try await start(work).value()
    }

    /// Runs `work` off the pool and waits for it at most `seconds`: whether it finished in time.
    /// Work that outlives the limit goes on alone. For teardowns whose results nobody needs,
    /// where a plugin that never returns (waylandsink joining a display thread that spins after
    /// the compositor ended its connection, GStreamer 1.22) must not hold the caller for good.
    public static func run(within seconds: Double, _ work: @escaping @Sendable () -> Void) async -> Bool {
        let job = start(work)
        return (try? await withTimeout(seconds) { await job.value() }) != nil
    }

    /// Starts `work` now; `value()` waits for it later (work that overlaps other work).
    public static func start<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) -> OffPoolJob<T, E> {
        OffPoolJob(work)
    }

    /// Runs `work` off the pool with nobody waiting: what a streaming thread hands over (a
    /// teardown after EOS), since it must not change states itself.
    public static func detach(_ work: @escaping @Sendable () -> Void) {
        if !detachThread(named: "gpick.offpool", work) { work() }
    }

    /// From a thread that is not the pool's (a web server's connection thread), runs async work
    /// and blocks until its result. Never call it from the cooperative pool.
    public static func awaiting<T: Sendable>(_ work: @escaping @Sendable () async throws(GpickError) -> T) -> Result<T, GpickError> {
        let box = Monitor<Result<T, GpickError>?>(nil)
        Task {
            let result: Result<T, GpickError>
            do throws(GpickError) { result = .success(try await work()) } catch { result = .failure(error) }
            box.withLock { $0 = result }
        }
        return box.wait(until: { $0 != nil }) { $0! }
    }

    /// Runs `work` off the pool after `seconds` (grace periods, give-ups). The wait is a timer on
    /// the pool, not a blocked thread.
    public static func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void) {
        Task {
            try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
            detach(work)
        }
    }
}

/// Blocking work started by `OffPool.start`, awaited later without blocking the pool.
public final class OffPoolJob<T: Sendable, E: Error>: Sendable {
    private enum Stage {
        case running
        case waiting(CheckedContinuation<Result<T, E>, Never>)
        case done(Result<T, E>)
    }
    private let stage = Locked<Stage>(.running)
    private let pending: Locked<(@Sendable () throws(E) -> T)?>

    init(_ work: @escaping @Sendable () throws(E) -> T) {
        pending = Locked(work)
        let run: @Sendable () -> Void = { [self] in
            let r = perform()
            let waiter = stage.withLock { s -> CheckedContinuation<Result<T, E>, Never>? in
                defer { s = .done(r) }
                if case .waiting(let c) = s { return c }
                return nil
            }
            waiter?.resume(returning: r)
        }
        if !detachThread(named: "gpick.offpool", run) { run() }
    }

    /// Takes the work out and runs it: the work, and all it captured, is released when this
    /// returns, before its waiter resumes. Released after, on this thread, it could be the last
    /// reference to a pipeline, finalised at some later moment the waiter knows nothing of: as
    /// gpick preview quit, that closed a GL sink's X display while exit was tearing libXext down.
    private func perform() -> Result<T, E> {
        let work = pending.withLock { w in defer { w = nil }; return w }!
        return Result<T, E> { () throws(E) in try work() }
    }

    /// Whether the work has finished (its result is waiting, or was taken).
    public var isDone: Bool {
        stage.withLock { s in if case .done = s { return true } else { return false } }
    }

    /// The work's result, once it is done.
    public func value() async throws(E) -> T {
        let r = await withCheckedContinuation { (c: CheckedContinuation<Result<T, E>, Never>) in
            let done = stage.withLock { s -> Result<T, E>? in
                if case .done(let r) = s { return r }
                s = .waiting(c)
                return nil
            }
            if let done { c.resume(returning: done) }
        }
        return try r.get()
    }
}
