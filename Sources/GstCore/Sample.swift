import CGStreamer
import GpickBase

/// A sample (buffer + caps + segment) we hold a full reference to.
///
/// `@unchecked Sendable` invariant: holds one reference; the sample and its buffer are only read
/// (samples pulled from an appsink are not written by anyone else).
public final class Sample: @unchecked Sendable {
    public let pointer: OpaquePointer

    init(adopting pointer: OpaquePointer) { self.pointer = pointer }
    deinit { cgst_sample_unref(pointer) }

    /// A sample holding its own reference to `buffer` (a probe's, borrowed for the callback),
    /// with `caps`: the frame stays whole for as long as the sample lives.
    public convenience init?(holding buffer: BufferView, caps: Caps) {
        guard let s = gst_sample_new(buffer.pointer, caps.pointer, nil, nil) else { return nil }
        self.init(adopting: s)
    }

    /// The buffer, borrowed for as long as this sample lives.
    public var buffer: BufferView? { gst_sample_get_buffer(pointer).map { BufferView(pointer: $0) } }
    public var caps: Caps? { gst_sample_get_caps(pointer).map { Caps(retaining: $0) } }
    public var videoInfo: VideoInfo? { caps.flatMap(VideoInfo.init) }

    /// Running time of the buffer (PTS through the sample's segment).
    public var runningTime: UInt64? {
        guard let pts = buffer?.pts, let seg = gst_sample_get_segment(pointer) else { return nil }
        let t = UInt64(gst_segment_to_running_time(seg, GST_FORMAT_TIME, guint64(pts)))
        return t == Gst.clockTimeNone ? nil : t
    }

    /// Copies the bytes out (encoded data such as a JPEG).
    public var data: [UInt8] {
        buffer?.withBytes { Array($0.bindMemory(to: UInt8.self)) } ?? []
    }

    /// Maps the frame read-only.
    public func withVideoFrame<R>(_ body: (inout VideoFrame) throws -> R) rethrows -> R? {
        guard let info = videoInfo, let buffer else { return nil }
        return try buffer.withVideoFrame(caps: info, writable: false, body)
    }
}

extension Sample {
    /// A shallow copy of the buffer (memory shared, metadata copied) with new timestamps: ring
    /// buffers are shared, so their timestamps are never changed in place.
    public func retimedBuffer(pts: UInt64, duration: UInt64?) -> OwnedBuffer? {
        guard let b = gst_sample_get_buffer(pointer), let copy = gst_buffer_copy(b) else { return nil }
        cgst_buffer_set_pts(copy, GstClockTime(pts))
        cgst_buffer_set_dts(copy, GstClockTime(pts))
        if let duration { cgst_buffer_set_duration(copy, GstClockTime(duration)) }
        return OwnedBuffer(adopting: copy)
    }

    /// The buffer itself, retimed in place, with a reference of ours: no new GstBuffer, so a
    /// source's buffer pool gets its memory back as soon as downstream is done with it (a copy
    /// would keep the memory and make the pool allocate afresh for every frame).
    /// Only for a sample fresh from an appsink that nobody else has seen: its timestamps change.
    public func retimedInPlace(pts: UInt64, duration: UInt64?) -> OwnedBuffer? {
        guard let b = gst_sample_get_buffer(pointer) else { return nil }
        cgst_buffer_set_pts(b, GstClockTime(pts))
        cgst_buffer_set_dts(b, GstClockTime(pts))
        if let duration { cgst_buffer_set_duration(b, GstClockTime(duration)) }
        return OwnedBuffer(adopting: cgst_buffer_ref(b))
    }
}
