import CGStreamer
import GpickBase

/// What a pipeline knows of its stream's length, and moving in it.
extension Element {
    /// The stream's duration in nanoseconds, when the element knows it (a prerolled pipeline).
    public func queryDuration() -> UInt64? {
        var length: gint64 = 0
        guard gst_element_query_duration(pointer, GST_FORMAT_TIME, &length) != 0, length > 0 else { return nil }
        return UInt64(length)
    }

    public struct SeekFlags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Drop what is queued: the pipeline prerolls again at the new place.
        public static let flush = SeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue)
        /// Decode from the keyframe before up to the exact time.
        public static let accurate = SeekFlags(rawValue: GST_SEEK_FLAG_ACCURATE.rawValue)
        /// Go to a keyframe (one frame to decode)…
        public static let keyUnit = SeekFlags(rawValue: GST_SEEK_FLAG_KEY_UNIT.rawValue)
        /// …the one nearest the time asked for.
        public static let snapNearest = SeekFlags(rawValue: GST_SEEK_FLAG_SNAP_NEAREST.rawValue)
    }

    /// Seeks to `nanoseconds` in time; false when the stream cannot seek.
    public func seek(to nanoseconds: UInt64, _ flags: SeekFlags) -> Bool {
        gst_element_seek_simple(pointer, GST_FORMAT_TIME, GstSeekFlags(rawValue: flags.rawValue), gint64(nanoseconds)) != 0
    }
}

extension Bin {
    /// Calls `handler` with each element added anywhere inside the bin (decodebin's decoders
    /// among them), on the thread that adds it: before the element starts, so its properties can
    /// still be set. The handler lives as long as the bin.
    public func onDeepElementAdded(_ handler: @escaping @Sendable (Element) -> Void) {
        let box = Unmanaged.passRetained(ElementHandler(handler)).toOpaque()
        _ = cgst_signal_connect(pointer, "deep-element-added", unsafeBitCast(deepElementAdded, to: GCallback.self), box, releaseHandler)
    }
}

private final class ElementHandler: Sendable {
    let call: @Sendable (Element) -> Void
    init(_ call: @escaping @Sendable (Element) -> Void) { self.call = call }
}

private let deepElementAdded: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?,
                                              UnsafeMutableRawPointer?) -> Void = { _, _, element, data in
    guard let element, let data else { return }
    Unmanaged<ElementHandler>.fromOpaque(data).takeUnretainedValue().call(Element(element, transfer: .none))
}

private let releaseHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
    if let data { Unmanaged<ElementHandler>.fromOpaque(data).release() }
}
