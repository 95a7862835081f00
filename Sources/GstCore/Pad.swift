import CGStreamer
import GpickBase

/// A reference-counted GstPad.
///
/// `@unchecked Sendable` invariant: owns one reference for its life; pad calls used here (probes,
/// offsets, events, link) are thread-safe in GStreamer.
public final class Pad: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstPad>

    public init(_ pointer: UnsafeMutablePointer<GstPad>, transfer: Transfer) {
        self.pointer = pointer
        if transfer != .full { gst_object_ref_sink(UnsafeMutableRawPointer(pointer)) }
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    public var name: String { cgst_object_name(pointer).map { String(cString: $0) } ?? "" }

    public var peer: Pad? { gst_pad_get_peer(pointer).map { Pad($0, transfer: .full) } }

    /// The element the pad belongs to (transfer full), nil once it has none.
    public var parentElement: Element? { gst_pad_get_parent_element(pointer).map { Element($0, transfer: .full) } }

    public func link(to sink: Pad) throws(GStreamerError) {
        let r = gst_pad_link(pointer, sink.pointer)
        if r != GST_PAD_LINK_OK {
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_NEGOTIATION.rawValue),
                                 message: "cannot link pad \(name) to \(sink.name) (\(r.rawValue))", source: name)
        }
    }

    @discardableResult
    public func unlink(_ sink: Pad) -> Bool { gst_pad_unlink(pointer, sink.pointer) != 0 }

    /// Shifts the running time of everything passing this pad (used to start a branch's file at 0).
    public func setOffset(_ offset: Int64) { gst_pad_set_offset(pointer, gint64(offset)) }

    /// Sends an event into this pad (sink pads: downstream into the element).
    @discardableResult
    public func sendEvent(_ event: Event) -> Bool { gst_pad_send_event(pointer, event.take()) != 0 }

    public var currentCaps: Caps? { gst_pad_get_current_caps(pointer).map { Caps(adopting: $0) } }

    /// What the pad can take or give now (a caps query; a device source opened to READY answers
    /// with the modes its device advertises).
    public func queryCaps() -> Caps? { gst_pad_query_caps(pointer, nil).map { Caps(adopting: $0) } }

    /// What the linked element takes of `filter` (a caps query on the peer): how a source learns
    /// which of its formats downstream has fixed.
    public func peerQueryCaps(filter: Caps?) -> Caps? {
        gst_pad_peer_query_caps(pointer, filter?.pointer).map { Caps(adopting: $0) }
    }

    /// Adds a probe. The closure runs on a streaming thread: it must not block or change states.
    @discardableResult
    public func addProbe(_ mask: ProbeMask, _ callback: @escaping @Sendable (ProbeInfo) -> ProbeReturn) -> UInt {
        let box = Unmanaged.passRetained(ProbeBox(callback)).toOpaque()
        HappensBefore.release(box)  // read on a streaming thread, handed over through GStreamer
        return UInt(gst_pad_add_probe(pointer, mask.c, probeTrampoline, box, releaseProbeBox))
    }
}

public struct ProbeMask: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let buffer = ProbeMask(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue)
    public static let eventDownstream = ProbeMask(rawValue: GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
    public static let eventUpstream = ProbeMask(rawValue: GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue)
    public static let block = ProbeMask(rawValue: GST_PAD_PROBE_TYPE_BLOCK.rawValue)
    public static let idle = ProbeMask(rawValue: GST_PAD_PROBE_TYPE_IDLE.rawValue)
    var c: GstPadProbeType { GstPadProbeType(rawValue: rawValue) }
}

public enum ProbeReturn: Sendable {
    case ok, drop, remove, pass
    var c: GstPadProbeReturn {
        switch self {
        case .ok: GST_PAD_PROBE_OK
        case .drop: GST_PAD_PROBE_DROP
        case .remove: GST_PAD_PROBE_REMOVE
        case .pass: GST_PAD_PROBE_PASS
        }
    }
}

/// What a probe sees. Valid only during the callback.
public struct ProbeInfo {
    let info: UnsafeMutablePointer<GstPadProbeInfo>
    public let pad: UnsafeMutablePointer<GstPad>

    /// The caps the pad carries now (a reference of ours).
    public var currentCaps: Caps? { gst_pad_get_current_caps(pad).map { Caps(adopting: $0) } }

    /// The buffer passing, if this is a buffer probe (borrowed for the callback's duration).
    public var buffer: BufferView? {
        guard cgst_probe_type(info).rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0,
              let b = cgst_probe_buffer(info) else { return nil }
        return BufferView(pointer: b)
    }

    /// Makes the buffer writable (copying it if shared) and returns it.
    public func writableBuffer() -> BufferView? {
        guard buffer != nil, let b = cgst_probe_writable_buffer(info) else { return nil }
        return BufferView(pointer: b)
    }

    /// The key of a navigation key-press event travelling upstream from a video sink (a key
    /// pressed in its window), e.g. "q" or "space".
    public var navigationKeyPress: String? {
        guard cgst_probe_type(info).rawValue & GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue != 0,
              let e = cgst_probe_event(info), let key = cgst_navigation_key_press(e) else { return nil }
        return String(cString: key)
    }

    public var eventType: EventType? {
        guard cgst_probe_type(info).rawValue & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue != 0,
              let e = cgst_probe_event(info) else { return nil }
        return EventType(cgst_event_type(e))
    }
}

final class ProbeBox: Sendable {
    let callback: @Sendable (ProbeInfo) -> ProbeReturn
    init(_ callback: @escaping @Sendable (ProbeInfo) -> ProbeReturn) { self.callback = callback }
}

// Nonisolated C trampolines: GStreamer calls them on streaming threads.
private let probeTrampoline: GstPadProbeCallback = { pad, info, data in
    guard let pad, let info, let data else { return GST_PAD_PROBE_OK }
    HappensBefore.acquire(data)
    let box = Unmanaged<ProbeBox>.fromOpaque(data).takeUnretainedValue()
    return box.callback(ProbeInfo(info: info, pad: pad)).c
}

private let releaseProbeBox: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<ProbeBox>.fromOpaque(data).release()
}
