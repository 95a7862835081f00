import CGStreamer
import GpickBase

/// A bus message as a Sendable Swift value (copied out of the GstMessage on the posting thread).
public enum BusMessage: Sendable {
    case endOfStream(source: String?)
    case error(GStreamerError)
    case warning(GStreamerError)
    /// A state change of the pipeline itself (children's changes are filtered out).
    case stateChanged(old: ElementState, new: ElementState)
    case asyncDone
    case latency
    case clockLost
    case streamStart(source: String?)
    /// An element message: its structure's name and the structure serialised.
    case element(source: String?, name: String, structure: String)
    /// A plugin is missing: the human description GStreamer gives of it.
    case missingPlugin(source: String?, description: String)

    init?(_ m: UnsafeMutablePointer<GstMessage>) {
        let src = cgst_message_src_name(m).map { String(cString: $0) }
        switch cgst_message_type(m) {
        case GST_MESSAGE_EOS:
            self = .endOfStream(source: src)
        case GST_MESSAGE_ERROR, GST_MESSAGE_WARNING:
            var err: UnsafeMutablePointer<GError>? = nil
            var dbg: UnsafeMutablePointer<gchar>? = nil
            let isError = cgst_message_type(m) == GST_MESSAGE_ERROR
            if isError { gst_message_parse_error(m, &err, &dbg) } else { gst_message_parse_warning(m, &err, &dbg) }
            let debug = takeString(dbg)
            var e = err.map { GStreamerError(adopting: $0, debug: debug, source: src) }
                ?? GStreamerError(domain: .other, code: 0, message: "unknown error", debug: debug, source: src)
            if let obj = cgst_message_src(m) {
                e.sourcePath = takeString(gst_object_get_path_string(obj))
                e.origin = MessageOrigin(retaining: obj)
            }
            self = isError ? .error(e) : .warning(e)
        case GST_MESSAGE_STATE_CHANGED:
            guard let obj = cgst_message_src(m), cgst_is_pipeline(obj) != 0 else { return nil }
            var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(m, &old, &new, &pending)
            self = .stateChanged(old: ElementState(old), new: ElementState(new))
        case GST_MESSAGE_ASYNC_DONE:
            self = .asyncDone
        case GST_MESSAGE_LATENCY:
            self = .latency
        case GST_MESSAGE_CLOCK_LOST:
            self = .clockLost
        case GST_MESSAGE_STREAM_START:
            self = .streamStart(source: src)
        case GST_MESSAGE_ELEMENT:
            if gst_is_missing_plugin_message(m) != 0 {
                self = .missingPlugin(source: src,
                                      description: takeString(gst_missing_plugin_message_get_description(m)) ?? "unknown plugin")
                return
            }
            guard let s = gst_message_get_structure(m) else { return nil }
            self = .element(source: src, name: String(cString: gst_structure_get_name(s)),
                            structure: takeString(gst_structure_to_string(s)) ?? "")
        default:
            return nil
        }
    }
}
