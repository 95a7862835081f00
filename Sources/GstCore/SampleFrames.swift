import CGStreamer
import GpickBase

/// A video sample's picture, for code that turns frames into images of its own.
extension Sample {
    /// The frame converted to `caps` (format, size: GStreamer's video converter), within
    /// `timeout` nanoseconds.
    public func converted(to caps: Caps, timeout: UInt64 = 2_000_000_000) throws(GStreamerError) -> Sample {
        var gerror: UnsafeMutablePointer<GError>? = nil
        guard let out = gst_video_convert_sample(pointer, caps.pointer, GstClockTime(timeout), &gerror) else {
            let reason = gerror.map { String(cString: $0.pointee.message) } ?? "no frame came out"
            g_clear_error(&gerror)
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_NEGOTIATION.rawValue), message: reason, source: "convert")
        }
        return Sample(adopting: out)
    }

    /// Maps a packed frame (RGB, RGBA…) read-only and hands its one plane to `body`: the bytes
    /// from its first row (stride × height of them), with the frame's width, height and stride.
    /// Nil when the sample holds no video frame.
    public func withPackedPixels<R>(_ body: (UnsafeRawBufferPointer, _ width: Int, _ height: Int, _ stride: Int) throws -> R) rethrows -> R? {
        try withVideoFrame { frame -> R? in
            guard let plane = frame.planes.first else { return nil }
            return try body(UnsafeRawBufferPointer(start: plane.data, count: plane.stride * plane.height), frame.width, frame.height, plane.stride)
        } ?? nil
    }
}
