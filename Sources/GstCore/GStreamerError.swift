import CGStreamer
import GpickBase

/// One error type for everything that comes out of GStreamer: a GError's domain, code, message and
/// debug text, plus which element or step it came from.
public struct GStreamerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Domain: String, Sendable {
        case core, library, resource, stream, parse, other
    }
    public var domain: Domain
    /// The GError code within `domain` (e.g. `GST_RESOURCE_ERROR_NOT_FOUND`).
    public var code: Int32
    public var message: String
    public var debug: String?
    /// The element (or step, like "parse") the error came from.
    public var source: String?
    /// The element's full path in its pipeline, e.g. "/pipeline0/recording-1/sink" (for people:
    /// `--verbose` shows it; routing asks `origin`).
    public var sourcePath: String?
    /// The object that posted it, for routing by ancestry (`Bin.contains`). Not part of equality.
    public var origin: MessageOrigin?
    /// For a parse error: the element factories the description names that are not installed
    /// (from the parse context, not from the message's text).
    public var missingElements: [String] = []

    public static func == (a: GStreamerError, b: GStreamerError) -> Bool {
        a.domain == b.domain && a.code == b.code && a.message == b.message && a.debug == b.debug
            && a.source == b.source && a.sourcePath == b.sourcePath
    }

    public init(domain: Domain, code: Int32, message: String, debug: String? = nil, source: String? = nil) {
        self.domain = domain
        self.code = code
        self.message = message
        self.debug = debug
        self.source = source
    }

    /// Takes a GError (full transfer): copies its fields and frees it.
    init(adopting error: UnsafeMutablePointer<GError>, debug: String? = nil, source: String? = nil) {
        let quark = error.pointee.domain
        let domain: Domain
        switch quark {
        case cgst_core_error_quark(): domain = .core
        case cgst_library_error_quark(): domain = .library
        case cgst_resource_error_quark(): domain = .resource
        case cgst_stream_error_quark(): domain = .stream
        case cgst_parse_error_quark(): domain = .parse
        default: domain = .other
        }
        self.init(domain: domain, code: error.pointee.code,
                  message: error.pointee.message.map { String(cString: $0) } ?? "unknown error",
                  debug: debug, source: source)
        g_error_free(error)
    }

    /// The element and GStreamer's message: what a user may read. The debug text is not in it.
    public var description: String {
        (source.map { "\($0): " } ?? "") + message
    }

    /// Everything, for `--verbose` and logs: the message, the element's path and the debug text
    /// (source locations and internals).
    public var diagnostic: String {
        var s = "\(sourcePath ?? source ?? "GStreamer"): \(message)"
        if let debug, !debug.isEmpty { s += " (\(debug))" }
        return s
    }

    // Convenience predicates over the GError code, so callers need not import the C enums.
    public var isResourceNotFound: Bool { domain == .resource && code == Int32(GST_RESOURCE_ERROR_NOT_FOUND.rawValue) }
    public var isResourceBusy: Bool { domain == .resource && code == Int32(GST_RESOURCE_ERROR_BUSY.rawValue) }
    public var isResourceOpenReadWrite: Bool {
        domain == .resource && (code == Int32(GST_RESOURCE_ERROR_OPEN_READ_WRITE.rawValue)
                                || code == Int32(GST_RESOURCE_ERROR_OPEN_READ.rawValue))
    }
    public var isResourceOpenWrite: Bool { domain == .resource && code == Int32(GST_RESOURCE_ERROR_OPEN_WRITE.rawValue) }
    public var isNoSpaceLeft: Bool { domain == .resource && code == Int32(GST_RESOURCE_ERROR_NO_SPACE_LEFT.rawValue) }
    public var isResourceRead: Bool { domain == .resource && code == Int32(GST_RESOURCE_ERROR_READ.rawValue) }
    public var isResourceWrite: Bool { domain == .resource && code == Int32(GST_RESOURCE_ERROR_WRITE.rawValue) }
    public var isMissingPlugin: Bool { domain == .core && code == Int32(GST_CORE_ERROR_MISSING_PLUGIN.rawValue) }
    public var isNotNegotiated: Bool {
        (domain == .stream && code == Int32(GST_STREAM_ERROR_FORMAT.rawValue))
            || (debug?.contains("not-negotiated") ?? false)
    }
    /// A file whose type no installed plugin recognises.
    public var isStreamTypeNotFound: Bool { domain == .stream && code == Int32(GST_STREAM_ERROR_TYPE_NOT_FOUND.rawValue) }
    /// A stream that failed in general (decodebin: no stream it can use, or a damaged one).
    public var isStreamFailed: Bool { domain == .stream && code == Int32(GST_STREAM_ERROR_FAILED.rawValue) }
    public var isParseNoSuchElement: Bool { domain == .parse && code == Int32(GST_PARSE_ERROR_NO_SUCH_ELEMENT.rawValue) }
    public var isParseNoSuchProperty: Bool { domain == .parse && code == Int32(GST_PARSE_ERROR_NO_SUCH_PROPERTY.rawValue) }
}

/// The funnel every fallible C call goes through: passes a GError out-slot, turns a set GError
/// (or a failed result) into a typed `GStreamerError`.
@inline(__always)
func withGError<T>(source: String?, failure: @autoclosure () -> String,
                   _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T?) throws(GStreamerError) -> T {
    var error: UnsafeMutablePointer<GError>? = nil
    let result = body(&error)
    if let error {
        throw GStreamerError(adopting: error, source: source)
    }
    guard let result else {
        throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_FAILED.rawValue), message: failure(), source: source)
    }
    return result
}

/// Copies and frees a newly allocated C string (transfer full).
func takeString(_ p: UnsafeMutablePointer<gchar>?) -> String? {
    guard let p else { return nil }
    defer { g_free(p) }
    return String(cString: p)
}

/// The object a bus message came from, with a reference held, so the message can be routed to the
/// bin it belongs to by ancestry (as gstreamer-rs compares the message's source object), not by
/// the text of its path.
///
/// `@unchecked Sendable` invariant: it owns one reference for its whole life and never changes
/// the pointer; GstObject refcounting and parent links are thread-safe.
public final class MessageOrigin: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GstObject>

    init(retaining pointer: UnsafeMutablePointer<GstObject>) {
        self.pointer = pointer
        gst_object_ref(UnsafeMutableRawPointer(pointer))
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// The posting object's name.
    public var name: String { cgst_object_name(pointer).map { String(cString: $0) } ?? "" }
}
