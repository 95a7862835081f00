import GpickBase

/// The results of one image request: an async sequence that starts its work when first asked for
/// a result, and keeps the ImageSource rules whatever its producer does:
/// - `.best` lets through only the final result (a degraded one is dropped) and ends after it;
/// - `.progressive` ends after the first final result; a degraded one after it is dropped;
/// - when the iterating task is cancelled, or the iterator is dropped, the work is cancelled and
///   nothing more comes out. The check is made where the caller runs, after it resumes: a result
///   that was on its way when the task was cancelled is dropped there, not delivered.
/// - a producer that ends without a final result is an error, never a silent empty sequence.
public struct ImageResults: AsyncSequence, Sendable {
    public typealias Element = ImageResult
    public typealias Failure = GpickError

    let delivery: ImageRequest.Delivery
    let produce: @Sendable (ImageOutlet) async throws(GpickError) -> Void

    /// Results made by `produce`, which hands each to the outlet as it has it.
    public init(delivery: ImageRequest.Delivery, produce: @escaping @Sendable (ImageOutlet) async throws(GpickError) -> Void) {
        self.delivery = delivery
        self.produce = produce
    }

    /// A sequence that fails with `error` when first asked.
    public static func failing(_ error: GpickError) -> ImageResults {
        ImageResults(delivery: .best) { _ throws(GpickError) in throw error }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(inbox: Inbox(delivery: delivery, produce: produce)) }

    public struct Iterator: AsyncIteratorProtocol {
        let inbox: Inbox

        public mutating func next() async throws(GpickError) -> ImageResult? {
            try await next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(GpickError) -> ImageResult? {
            let result = try await inbox.take()
            // Here the caller's isolation holds again: a cancel made meanwhile (on the caller's
            // actor, say) is seen, and the result that raced it is dropped.
            if result != nil, Task.isCancelled {
                inbox.cancel()
                return nil
            }
            return result
        }
    }

    /// Everything one iteration shares with its producer. Dropping the iterator drops the
    /// inbox, which cancels the work.
    public final class Inbox: Sendable {
        private struct State: ~Copyable {
            var buffered: [ImageResult] = []
            var waiter: CheckedContinuation<Result<ImageResult?, GpickError>, Never>?
            var producer: Task<Void, Never>?
            var started = false
            var cancelled = false
            var finalDelivered = false
            /// Set when the producer is done: nil, or why it failed.
            var ended: GpickError??
        }
        private let state = Locked(State())
        private let delivery: ImageRequest.Delivery
        private let produce: @Sendable (ImageOutlet) async throws(GpickError) -> Void

        init(delivery: ImageRequest.Delivery, produce: @escaping @Sendable (ImageOutlet) async throws(GpickError) -> Void) {
            self.delivery = delivery
            self.produce = produce
        }

        deinit { cancel() }

        /// The next result, nil at the end or once cancelled.
        func take() async throws(GpickError) -> ImageResult? {
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Result<ImageResult?, GpickError>, Never>) in
                    enum Step { case now(Result<ImageResult?, GpickError>), wait, start }
                    let step = state.withLock { s -> Step in
                        if s.cancelled { return .now(.success(nil)) }
                        if !s.buffered.isEmpty { return .now(.success(s.buffered.removeFirst())) }
                        // After the final result the sequence ends at once; work after it (keeping
                        // a copy) goes on without the caller waiting.
                        if s.finalDelivered { return .now(.success(nil)) }
                        if let ended = s.ended { return .now(ended.map { .failure($0) } ?? .success(nil)) }
                        s.waiter = c
                        if s.started { return .wait }
                        s.started = true
                        return .start
                    }
                    switch step {
                    case .now(let r): c.resume(returning: r)
                    case .wait: break
                    case .start: startProducer()
                    }
                }
            } onCancel: {
                cancel()
            }
            return try outcome.get()
        }

        private func startProducer() {
            let outlet = ImageOutlet(inbox: self)
            let produce = self.produce
            // Unstructured: the work outlives one `take` (a progressive request spans several).
            // It holds the inbox only through the outlet, weakly: dropping the iterator ends it.
            let task = Task {
                var failure: GpickError? = nil
                do throws(GpickError) { try await produce(outlet) } catch { failure = error }
                outlet.inbox?.finish(failure)
            }
            let cancelNow = state.withLock { s -> Bool in
                s.producer = task
                return s.cancelled
            }
            if cancelNow { task.cancel() }
        }

        /// Stops the work; whoever waits gets the end. Idempotent.
        func cancel() {
            let (waiter, producer) = state.withLock { s -> (CheckedContinuation<Result<ImageResult?, GpickError>, Never>?, Task<Void, Never>?) in
                if s.cancelled { return (nil, nil) }
                s.cancelled = true
                s.buffered.removeAll()
                defer { s.waiter = nil }
                return (s.waiter, s.producer)
            }
            producer?.cancel()
            waiter?.resume(returning: .success(nil))
        }

        var isCancelled: Bool { state.withLock { $0.cancelled || $0.finalDelivered } }

        /// Hands a result over; false when nothing more is wanted (cancelled, or the final result
        /// went out already).
        func deliver(_ result: ImageResult) -> Bool {
            let delivery = self.delivery
            let (waiter, wanted) = state.withLock { s -> (CheckedContinuation<Result<ImageResult?, GpickError>, Never>?, Bool) in
                if s.cancelled || s.finalDelivered || s.ended != nil { return (nil, false) }
                if result.degraded, delivery == .best { return (nil, true) }
                if !result.degraded { s.finalDelivered = true }
                guard let w = s.waiter else {
                    s.buffered.append(result)
                    return (nil, !s.finalDelivered)
                }
                s.waiter = nil
                return (w, !s.finalDelivered)
            }
            waiter?.resume(returning: .success(result))
            return wanted
        }

        func finish(_ failure: GpickError?) {
            let waiter = state.withLock { s -> (CheckedContinuation<Result<ImageResult?, GpickError>, Never>, Result<ImageResult?, GpickError>)? in
                guard s.ended == nil else { return nil }
                var end: GpickError? = failure
                if end == nil, !s.finalDelivered, !s.cancelled {
                    end = GpickError(.runtime, "the image source ended without a picture")
                }
                // After the final result, a failure of later work (a cache write) is not the caller's.
                if s.finalDelivered { end = nil }
                s.ended = .some(end)
                guard s.buffered.isEmpty, let w = s.waiter else { return nil }
                s.waiter = nil
                return (w, end.map { .failure($0) } ?? .success(nil))
            }
            waiter.map { $0.0.resume(returning: $0.1) }
        }
    }
}

/// Where a producer puts its results. It holds the consumer's inbox weakly: once the consumer is
/// gone, every delivery says "not wanted", and the producer should stop.
public struct ImageOutlet: Sendable {
    weak var inbox: ImageResults.Inbox?

    /// Hands `result` to the caller; false when nothing more is wanted: stop working then.
    @discardableResult
    public func yield(_ result: ImageResult) -> Bool { inbox?.deliver(result) ?? false }

    /// Whether the caller still wants results (blocking work checks it between steps).
    public var isWanted: Bool { !(inbox?.isCancelled ?? true) }
}
