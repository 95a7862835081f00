import CGStreamer
import GpickBase

/// An appsrc into which we push samples or bytes.
public final class AppSrc: Element, @unchecked Sendable {
    public init(_ element: Element) throws(GStreamerError) {
        guard cgst_is_app_src(element.pointer) != 0 else {
            throw GStreamerError(domain: .core, code: 0, message: "element \"\(element.name)\" is not an appsrc", source: element.name)
        }
        super.init(element.pointer, transfer: .none)
    }

    /// Pushes a sample (its caps become the source's caps). The sample stays ours: appsrc refs it.
    public func push(_ sample: Sample) throws(GStreamerError) {
        let r = gst_app_src_push_sample(cgst_app_src(pointer), sample.pointer)
        guard r == GST_FLOW_OK else {
            throw GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_FAILED.rawValue),
                                 message: "push into \(name) failed (\(r.rawValue))", source: name)
        }
    }

    /// Pushes a sample from another pipeline, stamped `pts` (and DTS) in this pipeline's running
    /// time: the other pipeline's running time means nothing here. The bytes are shared, not
    /// copied; its caps become this source's.
    public func push(_ sample: Sample, at pts: UInt64) throws(GStreamerError) {
        guard let buffer = gst_sample_get_buffer(sample.pointer) else { return }
        if let caps = gst_sample_get_caps(sample.pointer) { gst_app_src_set_caps(cgst_app_src(pointer), caps) }
        guard let copy = gst_buffer_copy(buffer) else {
            throw GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_FAILED.rawValue),
                                 message: "cannot copy a buffer for \(name)", source: name)
        }
        copy.pointee.pts = GstClockTime(pts)
        copy.pointee.dts = GstClockTime(pts)
        let r = gst_app_src_push_buffer(cgst_app_src(pointer), copy)
        guard r == GST_FLOW_OK else {
            throw GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_FAILED.rawValue),
                                 message: "push into \(name) failed (\(r.rawValue))", source: name)
        }
    }

    /// Pushes a buffer we own (ownership passes to the appsrc).
    public func push(_ buffer: OwnedBuffer) throws(GStreamerError) {
        let r = gst_app_src_push_buffer(cgst_app_src(pointer), buffer.take())
        guard r == GST_FLOW_OK else {
            throw GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_FAILED.rawValue),
                                 message: "push into \(name) failed (\(r.rawValue))", source: name)
        }
    }

    public func setCaps(_ caps: Caps) {
        gst_app_src_set_caps(cgst_app_src(pointer), caps.pointer)
    }

    public func endOfStream() {
        _ = gst_app_src_end_of_stream(cgst_app_src(pointer))
    }
}
