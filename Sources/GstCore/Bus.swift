import CGStreamer
import GpickBase
import FoundationEssentials
import Glibc

/// A pipeline's bus as an AsyncStream, fed by a sync handler on the posting thread, so nobody ever
/// blocks (on `gst_bus_timed_pop` or otherwise) inside Swift's cooperative pool.
///
/// `@unchecked Sendable` invariant: the bus pointer is owned (one full ref) and immutable; the
/// stream's state is in `state`, behind a lock.
public final class Bus: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GstBus>
    private let state = Locked(StreamState())

    private struct StreamState: ~Copyable {
        var continuation: AsyncStream<BusMessage>.Continuation?
        var pending: [BusMessage] = []
        var stopped = false
        var observer: (@Sendable (BusMessage) -> Void)?
    }

    init(_ pointer: UnsafeMutablePointer<GstBus>, transfer: Transfer) {
        self.pointer = pointer
        if transfer != .full { gst_object_ref(UnsafeMutableRawPointer(pointer)) }
        // The handler box holds the bus weakly: the bus outliving or not its pipeline stays safe.
        let box = Unmanaged.passRetained(BusHandlerBox(self)).toOpaque()
        HappensBefore.release(box)  // read on posting threads, handed over through GStreamer
        gst_bus_set_sync_handler(pointer, busSyncTrampoline, box, releaseBusHandlerBox)
    }

    deinit {
        gst_bus_set_sync_handler(pointer, nil, nil, nil)
        gst_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// The one stream of messages of this bus. Messages posted before anybody listens are kept
    /// and delivered first. One reader per bus: a second call finishes the first stream.
    public func messages() -> AsyncStream<BusMessage> {
        let (stream, cont) = AsyncStream<BusMessage>.makeStream(bufferingPolicy: .unbounded)
        let (previous, backlog, isStopped) = state.withLock { s in
            defer { s.continuation = cont; s.pending.removeAll() }
            return (s.continuation, s.pending, s.stopped)
        }
        previous?.finish()
        for m in backlog { cont.yield(m) }
        if isStopped { cont.finish() }
        return stream
    }

    /// Ends the stream (called when the pipeline goes away).
    func stop() {
        state.withLock { s -> AsyncStream<BusMessage>.Continuation? in
            s.stopped = true
            defer { s.continuation = nil }
            return s.continuation
        }?.finish()
    }

    /// Sees every message synchronously on the posting thread, before the stream does. It must
    /// only record facts (under a lock) and return: no blocking, no state changes.
    public func observeSync(_ handler: @escaping @Sendable (BusMessage) -> Void) {
        state.withLock { $0.observer = handler }
    }

    fileprivate func deliver(_ message: BusMessage) {
        state.withLock { $0.observer }?(message)
        let c = state.withLock { s -> AsyncStream<BusMessage>.Continuation? in
            if s.continuation == nil, !s.stopped { s.pending.append(message) }
            return s.continuation
        }
        c?.yield(message)
    }
}

private final class BusHandlerBox: Sendable {
    // Weak so the bus's own handler does not keep the bus alive.
    nonisolated(unsafe) weak var bus: Bus?
    init(_ bus: Bus) { self.bus = bus }
}

private let busSyncTrampoline: GstBusSyncHandler = { _, message, data in
    guard let message else { return GST_BUS_DROP }
    if let data, let m = BusMessage(message) {
        HappensBefore.acquire(data)
        Unmanaged<BusHandlerBox>.fromOpaque(data).takeUnretainedValue().bus?.deliver(m)
    }
    // A sync handler that returns DROP owns the message and must unref it (gst_bus_set_sync_handler
    // docs); a message holds a ref on its source, so forgetting this pins the whole pipeline.
    cgst_message_unref(message)
    return GST_BUS_DROP
}

private let releaseBusHandlerBox: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<BusHandlerBox>.fromOpaque(data).release()
}
