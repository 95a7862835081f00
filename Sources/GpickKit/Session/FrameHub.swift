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
/// `@unchecked Sendable` invariant: all mutable state is guarded by `lock`; the appsink callback
/// only stores and yields, and waits (on `lock`) only while a subscriber is `pendingLimit` behind.
final class FrameHub: @unchecked Sendable {
    private let lock = Condition()
    private var latest: Sample?
    private var delivered = 0
    private var failure: GpickError?
    /// Set while no camera delivers: requests fail with it (suspended, camera lost).
    private var heldReason: GpickError?
    /// Frames at or before this output time belong to a camera that was switched away from.
    private var staleUntil: UInt64?
    private let isSynthetic: @Sendable (UInt64) -> Bool
    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0
    private var firstFrameWaiters: [Int: CheckedContinuation<Void, Error>] = [:]

    private let pendingLimit: Int

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
    }

    var latestFrame: Sample? { lock.withLock { latest } }
    var frameCount: Int { lock.withLock { delivered } }
    var hasSubscribers: Bool { lock.withLock { !subscribers.isEmpty } }

    func deliver(_ sample: Sample) {
        if let pts = sample.buffer?.pts, isSynthetic(pts) { return }
        lock.lock()
        if let stale = staleUntil, let pts = sample.buffer?.pts, pts <= stale { lock.unlock(); return }
        if heldReason != nil { lock.unlock(); return }
        while failure == nil, subscribers.values.contains(where: { $0.pending >= pendingLimit }) { lock.wait() }
        if failure != nil { lock.unlock(); return }
        latest = sample
        delivered += 1
        let waiters = firstFrameWaiters
        firstFrameWaiters.removeAll()
        var done: [Int] = []
        for (id, var s) in subscribers {
            if s.seen % s.every == 0 {
                s.continuation.yield(sample)
                s.remaining -= 1
                s.pending += 1
            }
            s.seen += 1
            if s.remaining == 0 { done.append(id) } else { subscribers[id] = s }
        }
        let finished = done.compactMap { subscribers.removeValue(forKey: $0) }
        lock.unlock()
        for s in finished { s.continuation.finish() }
        for w in waiters.values { w.resume() }
    }

    /// `count` frames (every `every`-th), in order, starting with the current (retained) frame
    /// when `fromCurrent` — zero shutter lag — or with the next one.
    func frames(count: Int, every: Int = 1, fromCurrent: Bool = true) -> FrameStream {
        let (stream, cont) = AsyncThrowingStream<Sample, Error>.makeStream()
        lock.lock()
        if let failure = failure ?? heldReason {
            lock.unlock()
            cont.finish(throwing: failure)
            return FrameStream(stream: stream, taken: {})
        }
        let id = nextID
        nextID += 1
        var sub = Subscriber(every: max(1, every), remaining: count, continuation: cont)
        if fromCurrent, let current = latest {
            cont.yield(current)
            sub.remaining -= 1
            sub.seen = 1
        }
        if sub.remaining > 0 { subscribers[id] = sub }
        lock.unlock()
        if sub.remaining == 0 { cont.finish() }
        cont.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.subscribers.removeValue(forKey: id) }
            self.lock.broadcast()
        }
        return FrameStream(stream: stream, taken: { [weak self] in
            guard let self else { return }
            self.lock.withLock { self.subscribers[id]?.pending -= 1 }
            self.lock.broadcast()
        })
    }

    /// Waits until a first frame exists (or the session fails).
    func waitForFirstFrame() async throws {
        let id = lock.withLock { defer { nextID += 1 }; return nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                lock.lock()
                // A frame that arrived counts even if the source failed since: the session did start.
                if latest == nil, let failure { lock.unlock(); c.resume(throwing: failure); return }
                if latest != nil || Task.isCancelled {
                    lock.unlock()
                    if Task.isCancelled { c.resume(throwing: CancellationError()) } else { c.resume() }
                    return
                }
                firstFrameWaiters[id] = c
                lock.unlock()
            }
        } onCancel: {
            let c = lock.withLock { firstFrameWaiters.removeValue(forKey: id) }
            c?.resume(throwing: CancellationError())
        }
    }

    /// The camera is switching (`reason` nil: requests wait for the new one) or gone (`reason`:
    /// requests fail with it). Frames up to `after` (output time) are the old camera's.
    func hold(reason: GpickError?, after: UInt64?) {
        lock.lock()
        latest = nil
        staleUntil = after
        heldReason = reason
        let subs = reason == nil ? [] : Array(subscribers.values)
        if reason != nil { subscribers.removeAll() }
        lock.unlock()
        lock.broadcast()
        if let reason { for s in subs { s.continuation.finish(throwing: reason) } }
    }

    /// A camera delivers again.
    func release() {
        lock.withLock { heldReason = nil }
    }

    /// Fails every waiter and subscriber; later requests fail at once.
    func fail(_ error: GpickError) {
        lock.lock()
        if failure == nil { failure = error }
        latest = nil  // a failed or stopped session retains no frame
        let subs = subscribers.values
        subscribers.removeAll()
        let waiters = firstFrameWaiters
        firstFrameWaiters.removeAll()
        lock.unlock()
        lock.broadcast()
        for s in subs { s.continuation.finish(throwing: error) }
        for w in waiters.values { w.resume(throwing: error) }
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
