import FoundationEssentials
import Glibc
import GstCore

/// The retained-frame buffer and frame subscriptions, fed by the session's appsink on its
/// streaming thread. Holds one frame (the newest camera frame); subscribers get the next N
/// frames as they come. Placeholder and crossfade frames are not camera frames: they are never
/// retained or delivered. While a camera switches, the hub is held: the old camera's frame is
/// gone and requests wait for the new camera; while suspended or failed, requests fail.
///
/// A subscriber that falls behind (a burst whose encoder is slower than the camera) holds up
/// delivery once `pendingLimit` of its frames wait to be taken: memory stays bounded and frames stay
/// consecutive where the camera can wait (a test or file source; a live camera drops frames
/// upstream instead, and the retained-frame tap's leaky queue drops the oldest).
///
final class FrameHub: Sendable {
    private let hub: Monitor<State>
    private let isSynthetic: @Sendable (UInt64) -> Bool
    private let pendingLimit: Int

    /// Read and written only inside `hub`: the appsink callback only stores and yields, and
    /// waits only while a subscriber is `pendingLimit` behind.
    private struct State {
        var latest: Sample?
        var delivered = 0
        var failure: GpickError?
        /// Set while no camera delivers: requests fail with it (suspended, camera lost).
        var heldReason: GpickError?
        /// Frames at or before this output time belong to a camera that was switched away from.
        var staleUntil: UInt64?
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var firstFrameWaiters: [Int: CheckedContinuation<Void, Error>] = [:]
        var lagging: Bool { subscribers.values.contains { $0.pending >= limit } }
        let limit: Int
    }

    private struct Subscriber {
        var every: Int
        var remaining: Int
        var seen = 0
        /// Frames yielded and not yet taken by the consumer.
        var pending = 0
        let continuation: AsyncThrowingStream<Sample, Error>.Continuation
    }

    /// `isSynthetic`: whether a frame (by output timestamp) was made by the session's switch.
    /// `pendingLimit`: frames a lagging subscriber may hold (kept within 2…60).
    init(pendingLimit: Int = 60, isSynthetic: @escaping @Sendable (UInt64) -> Bool = { _ in false }) {
        self.isSynthetic = isSynthetic
        self.pendingLimit = max(2, min(60, pendingLimit))
        hub = Monitor(State(limit: self.pendingLimit))
    }

    var latestFrame: Sample? { hub.withLock { $0.latest } }
    var frameCount: Int { hub.withLock { $0.delivered } }
    var hasSubscribers: Bool { hub.withLock { !$0.subscribers.isEmpty } }

    func deliver(_ sample: Sample) {
        if let pts = sample.buffer?.pts, isSynthetic(pts) { return }
        let pts = sample.buffer?.pts
        typealias Out = (finished: [AsyncThrowingStream<Sample, Error>.Continuation], waiters: [CheckedContinuation<Void, Error>])
        let out = hub.wait(until: { s in
            // Wait while a subscriber lags, unless this frame is not taken anyway.
            if let stale = s.staleUntil, let pts, pts <= stale { return true }
            return s.heldReason != nil || s.failure != nil || !s.lagging
        }) { s -> Out? in
            if let stale = s.staleUntil, let pts, pts <= stale { return nil }
            if s.heldReason != nil || s.failure != nil { return nil }
            s.latest = sample
            s.delivered += 1
            let waiters = Array(s.firstFrameWaiters.values)
            s.firstFrameWaiters.removeAll()
            var done: [Int] = []
            for (id, var sub) in s.subscribers {
                if sub.seen % sub.every == 0 {
                    sub.continuation.yield(sample)
                    sub.remaining -= 1
                    sub.pending += 1
                }
                sub.seen += 1
                if sub.remaining == 0 { done.append(id) } else { s.subscribers[id] = sub }
            }
            return (done.compactMap { s.subscribers.removeValue(forKey: $0)?.continuation }, waiters)
        }
        guard let out else { return }
        for c in out.finished { c.finish() }
        for w in out.waiters { w.resume() }
    }

    /// `count` frames (every `every`-th), in order, starting with the current (retained) frame
    /// when `fromCurrent` — zero shutter lag — or with the next one.
    func frames(count: Int, every: Int = 1, fromCurrent: Bool = true) -> FrameStream {
        let (stream, cont) = AsyncThrowingStream<Sample, Error>.makeStream()
        let subscribed = hub.withLock { s -> Result<Int?, GpickError> in
            if let failure = s.failure ?? s.heldReason { return .failure(failure) }
            let id = s.nextID
            s.nextID += 1
            var sub = Subscriber(every: max(1, every), remaining: count, continuation: cont)
            if fromCurrent, let current = s.latest {
                cont.yield(current)
                sub.remaining -= 1
                sub.seen = 1
                sub.pending = 1  // taken like any other: uncounted, the lag limit was one too loose
            }
            guard sub.remaining > 0 else { return .success(nil) }
            s.subscribers[id] = sub
            return .success(id)
        }
        let id: Int
        switch subscribed {
        case .failure(let f):
            cont.finish(throwing: f)
            return FrameStream(stream: stream, taken: {})
        case .success(nil):
            cont.finish()
            return FrameStream(stream: stream, taken: {})
        case .success(let i?):
            id = i
        }
        cont.onTermination = { [weak self] _ in
            guard let self else { return }
            self.hub.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return FrameStream(stream: stream, taken: { [weak self] in
            guard let self else { return }
            self.hub.withLock { $0.subscribers[id]?.pending -= 1 }
        })
    }

    /// Waits until a first frame exists (or the session fails).
    func waitForFirstFrame() async throws {
        let id = hub.withLock { s -> Int in defer { s.nextID += 1 }; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                let now = hub.withLock { s -> Result<Void, Error>? in
                    // A frame that arrived counts even if the source failed since: the session did start.
                    if s.latest == nil, let failure = s.failure { return .failure(failure) }
                    if s.latest != nil { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.firstFrameWaiters[id] = c
                    return nil
                }
                if let now { c.resume(with: now) }
            }
        } onCancel: {
            hub.withLock { $0.firstFrameWaiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// The camera is switching (`reason` nil: requests wait for the new one) or gone (`reason`:
    /// requests fail with it). Frames up to `after` (output time) are the old camera's.
    func hold(reason: GpickError?, after: UInt64?) {
        let subs = hub.withLock { s -> [Subscriber] in
            s.latest = nil
            s.staleUntil = after
            s.heldReason = reason
            guard reason != nil else { return [] }
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        if let reason { for s in subs { s.continuation.finish(throwing: reason) } }
    }

    /// A camera delivers again.
    func release() {
        hub.withLock { $0.heldReason = nil }
    }

    /// Fails every waiter and subscriber; later requests fail at once.
    func fail(_ error: GpickError) {
        let (subs, waiters) = hub.withLock { s -> ([Subscriber], [CheckedContinuation<Void, Error>]) in
            if s.failure == nil { s.failure = error }
            s.latest = nil  // a failed or stopped session retains no frame
            defer { s.subscribers.removeAll(); s.firstFrameWaiters.removeAll() }
            return (Array(s.subscribers.values), Array(s.firstFrameWaiters.values))
        }
        for s in subs { s.continuation.finish(throwing: error) }
        for w in waiters { w.resume(throwing: error) }
    }
}

/// Frames from the session, in order; taking each one makes room for the next (see `FrameHub`).
public struct FrameStream: AsyncSequence, Sendable {
    public typealias Element = Sample
    let stream: AsyncThrowingStream<Sample, Error>
    let taken: @Sendable () -> Void

    public struct AsyncIterator: AsyncIteratorProtocol {
        var inner: AsyncThrowingStream<Sample, Error>.AsyncIterator
        let taken: @Sendable () -> Void
        public mutating func next() async throws -> Sample? {
            let frame = try await inner.next()
            if frame != nil { taken() }
            return frame
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inner: stream.makeAsyncIterator(), taken: taken) }
}
