import CGStreamer
import GpickBase

/// A buffer we own one reference to (transfer full), e.g. a retimed copy to push into an appsrc,
/// or a frame we draw ourselves.
///
/// `@unchecked Sendable` invariant: owned exclusively until `take()` hands it to GStreamer; never
/// shared while owned (copies made with `copy(pts:duration:)` are separate objects).
public final class OwnedBuffer: @unchecked Sendable {
    private var pointer: UnsafeMutablePointer<GstBuffer>?
    init(adopting p: UnsafeMutablePointer<GstBuffer>) { pointer = p }
    deinit { if let pointer { cgst_buffer_unref(pointer) } }

    /// A new buffer of `size` bytes from the default allocator (writable: we hold the only ref).
    public static func allocate(size: Int) -> OwnedBuffer? {
        // The default allocator exists once GStreamer is initialised (before, this crashed).
        guard (try? Gst.initialize()) != nil else { return nil }
        return gst_buffer_new_allocate(nil, gsize(size), nil).map { OwnedBuffer(adopting: $0) }
    }

    /// A new buffer holding a copy of `bytes` (a frame made outside GStreamer: a file's).
    public static func copying(_ bytes: UnsafeRawBufferPointer) -> OwnedBuffer? {
        guard (try? Gst.initialize()) != nil, let b = gst_buffer_new_allocate(nil, gsize(bytes.count), nil) else { return nil }
        guard gst_buffer_fill(b, 0, bytes.baseAddress, gsize(bytes.count)) == gsize(bytes.count) else {
            cgst_buffer_unref(b)
            return nil
        }
        return OwnedBuffer(adopting: b)
    }

    /// Borrows the buffer (valid while this object owns it).
    public var view: BufferView {
        guard let p = pointer else { preconditionFailure("buffer already pushed") }
        return BufferView(pointer: p)
    }

    /// A shallow copy (memory shared, metadata copied) with new timestamps: the same pixels can be
    /// pushed many times without copying them.
    public func copy(pts: UInt64, duration: UInt64?) -> OwnedBuffer? {
        guard let p = pointer, let c = gst_buffer_copy(p) else { return nil }
        cgst_buffer_set_pts(c, GstClockTime(pts))
        cgst_buffer_set_dts(c, GstClockTime(pts))
        if let duration { cgst_buffer_set_duration(c, GstClockTime(duration)) }
        return OwnedBuffer(adopting: c)
    }

    func take() -> UnsafeMutablePointer<GstBuffer> {
        guard let p = pointer else { preconditionFailure("buffer pushed twice") }
        pointer = nil
        return p
    }
}

extension VideoInfo {
    /// Bytes of one frame in this format.
    public var size: Int { withUnsafePointer(to: info) { Int(cgst_video_info_size($0)) } }
}
