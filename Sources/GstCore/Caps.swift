import CGStreamer
import GpickBase

/// Immutable caps (GstCaps are immutable once shared, so this wrapper is Sendable).
///
/// `@unchecked Sendable` invariant: holds one full reference and never writes to the caps.
public final class Caps: @unchecked Sendable, CustomStringConvertible {
    public let pointer: UnsafeMutablePointer<GstCaps>

    init(adopting pointer: UnsafeMutablePointer<GstCaps>) { self.pointer = pointer }
    init(retaining pointer: UnsafeMutablePointer<GstCaps>) { self.pointer = cgst_caps_ref(pointer) }
    deinit { cgst_caps_unref(pointer) }

    public convenience init(_ string: String) throws(GStreamerError) {
        guard let c = gst_caps_from_string(string) else {
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_CAPS.rawValue),
                                 message: "invalid caps \"\(string)\"", source: "caps")
        }
        self.init(adopting: c)
    }

    public var description: String { takeString(gst_caps_to_string(pointer)) ?? "" }

    /// The first structure with every range and list narrowed to one value, as a source fixes
    /// its format (nil for empty or ANY caps).
    public func fixated() -> Caps? {
        guard gst_caps_is_any(pointer) == 0, gst_caps_is_empty(pointer) == 0 else { return nil }
        return Caps(adopting: gst_caps_fixate(cgst_caps_copy(pointer)))
    }

    /// Media type of the first structure, e.g. "video/x-raw".
    public var mediaType: String? {
        guard gst_caps_get_size(pointer) > 0, let s = gst_caps_get_structure(pointer, 0),
              let n = gst_structure_get_name(s) else { return nil }
        return String(cString: n)
    }

    public func int(_ field: String) -> Int? {
        guard gst_caps_get_size(pointer) > 0, let s = gst_caps_get_structure(pointer, 0) else { return nil }
        var v: gint = 0
        return gst_structure_get_int(s, field, &v) != 0 ? Int(v) : nil
    }

    public func string(_ field: String) -> String? {
        guard gst_caps_get_size(pointer) > 0, let s = gst_caps_get_structure(pointer, 0),
              let v = gst_structure_get_string(s, field) else { return nil }
        return String(cString: v)
    }

    public func fraction(_ field: String) -> (Int, Int)? {
        guard gst_caps_get_size(pointer) > 0, let s = gst_caps_get_structure(pointer, 0) else { return nil }
        var n: gint = 0, d: gint = 0
        return gst_structure_get_fraction(s, field, &n, &d) != 0 ? (Int(n), Int(d)) : nil
    }

    func withGValue<R>(_ body: (UnsafeMutablePointer<GValue>) -> R) -> R {
        var v = GValue()
        g_value_init(&v, cgst_type_caps())
        gst_value_set_caps(&v, pointer)
        defer { g_value_unset(&v) }
        return body(&v)
    }
}
