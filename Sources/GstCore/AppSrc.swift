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
