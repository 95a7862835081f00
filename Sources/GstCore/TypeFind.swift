import CGStreamer
import GpickBase

/// What kind of data a file holds, from its first bytes, by GStreamer's own typefinders: caps
/// such as "video/quicktime", "audio/mpeg" or "text/plain", or nil when none recognises it.
public enum TypeFind {
    public struct Result: Sendable {
        /// The media type, e.g. "text/plain".
        public var mediaType: String
        /// GStreamer's human description of it ("Quicktime", "PDF document"), when it has one.
        public var description: String?
    }

    public static func identify(_ data: [UInt8]) -> Result? {
        guard let caps = caps(of: data) else { return nil }
        defer { gst_caps_unref(caps) }
        guard gst_caps_get_size(caps) > 0, let s = gst_caps_get_structure(caps, 0) else { return nil }
        return Result(mediaType: String(cString: gst_structure_get_name(s)),
                      description: takeString(gst_pb_utils_get_codec_description(caps)))
    }

    /// The caps GStreamer's typefinders give these bytes (full transfer), or nil.
    static func caps(of data: [UInt8]) -> UnsafeMutablePointer<GstCaps>? {
        guard (try? Gst.initialize()) != nil, !data.isEmpty else { return nil }
        var probability = GST_TYPE_FIND_NONE
        return data.withUnsafeBufferPointer { gst_type_find_helper_for_data(nil, $0.baseAddress, gsize($0.count), &probability) }
    }
}
