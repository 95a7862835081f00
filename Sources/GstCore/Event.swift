import CGStreamer
import GpickBase

/// An event we own until it is sent (sending transfers it to GStreamer).
///
/// `@unchecked Sendable` invariant: the event is created, then handed to GStreamer exactly once via
/// `take()`; an unsent event is unreffed in deinit. It is never shared while owned.
public final class Event: @unchecked Sendable {
    private var pointer: UnsafeMutablePointer<GstEvent>?

    init(_ pointer: UnsafeMutablePointer<GstEvent>) { self.pointer = pointer }
    deinit { if let pointer { cgst_event_unref(pointer) } }

    public static func endOfStream() -> Event { Event(gst_event_new_eos()) }

    /// Asks the encoder upstream for a keyframe as soon as it can, with its stream headers (SPS
    /// and PPS): what a viewer who joins a stream needs first. Send it to a sink element.
    public static func forceKeyUnit() -> Event {
        Event(gst_video_event_new_upstream_force_key_unit(GstClockTime.max, 1, 0))
    }

    /// Sent to a source's src pad (upstream), makes it stop waiting: a GstBaseSrc unlocks
    /// whatever it blocks in, its start included (pipewiresrc waits up to 30 s there for a stream
    /// that is never linked), without the state lock that a state change holds.
    public static func flushStart() -> Event { Event(gst_event_new_flush_start()) }

    func take() -> UnsafeMutablePointer<GstEvent> {
        guard let p = pointer else { preconditionFailure("event sent twice") }
        pointer = nil
        return p
    }
}

public enum EventType: Sendable, Equatable {
    case endOfStream, segment, caps, streamStart, flushStart, flushStop, other(UInt32)
    init(_ t: GstEventType) {
        switch t {
        case GST_EVENT_EOS: self = .endOfStream
        case GST_EVENT_SEGMENT: self = .segment
        case GST_EVENT_CAPS: self = .caps
        case GST_EVENT_STREAM_START: self = .streamStart
        case GST_EVENT_FLUSH_START: self = .flushStart
        case GST_EVENT_FLUSH_STOP: self = .flushStop
        default: self = .other(t.rawValue)
        }
    }
}
