import CGStreamer
import GpickBase

/// A property value in Swift terms. Setting converts it to a GValue of the property's own type
/// (never varargs `g_object_set`), and checks it against the property's range.
public enum PropertyValue: Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String?)
    case fraction(Int32, Int32)
    /// Any type GStreamer can deserialise from text (enums by nick, flags, caps…).
    case serialized(String)

    public var description: String {
        switch self {
        case .bool(let b): String(b)
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .string(let s): s ?? "(null)"
        case .fraction(let n, let d): "\(n)/\(d)"
        case .serialized(let s): s
        }
    }
}

/// What a property is, from its GParamSpec.
public struct PropertyInfo: Sendable {
    public let name: String
    public let typeName: String
    public let writable: Bool
    public let readable: Bool
    /// Enum nicks, when the property is an enum.
    public let choices: [String]
}

extension Element {
    private func spec(_ property: String) throws(GStreamerError) -> UnsafeMutablePointer<GParamSpec> {
        guard let spec = cgst_find_property(UnsafeMutableRawPointer(pointer), property) else {
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_FAILED.rawValue),
                                 message: "element \"\(name)\" (\(factoryName ?? "?")) has no property \"\(property)\"",
                                 source: name)
        }
        return spec
    }

    public func hasProperty(_ property: String) -> Bool {
        cgst_find_property(UnsafeMutableRawPointer(pointer), property) != nil
    }

    public func propertyInfo(_ property: String) throws(GStreamerError) -> PropertyInfo {
        let spec = try spec(property)
        return PropertyInfo(spec)
    }

    /// Sets a property from a typed Swift value, converting to the property's GType and
    /// rejecting values outside the property's range.
    public func set(_ property: String, _ value: PropertyValue) throws(GStreamerError) {
        let spec = try spec(property)
        guard cgst_param_writable(spec) != 0 else {
            throw propertyError(property, value, "is read-only")
        }
        let type = cgst_param_value_type(spec)
        var gvalue = GValue()
        g_value_init(&gvalue, type)
        defer { g_value_unset(&gvalue) }
        guard fill(&gvalue, type: type, from: value) else {
            throw propertyError(property, value, "is not a valid \(String(cString: g_type_name(type)))")
        }
        // g_param_value_validate returns TRUE when it had to change the value to fit the spec.
        var check = GValue()
        g_value_init(&check, type)
        g_value_copy(&gvalue, &check)
        let modified = g_param_value_validate(spec, &check) != 0
        g_value_unset(&check)
        if modified { throw propertyError(property, value, "is out of range") }
        g_object_set_property(object, property, &gvalue)
    }

    public func set(_ property: String, _ value: Int) throws(GStreamerError) { try set(property, .int(Int64(value))) }
    public func set(_ property: String, _ value: Bool) throws(GStreamerError) { try set(property, .bool(value)) }
    public func set(_ property: String, _ value: String) throws(GStreamerError) { try set(property, .string(value)) }
    public func set(_ property: String, _ value: Double) throws(GStreamerError) { try set(property, .double(value)) }

    /// Sets caps on a capsfilter-like property from their string form.
    public func set(_ property: String, caps: Caps) throws(GStreamerError) {
        _ = try spec(property)
        let obj = object
        caps.withGValue { g_object_set_property(obj, property, $0) }
    }

    public func get(_ property: String) throws(GStreamerError) -> PropertyValue {
        let spec = try spec(property)
        let type = cgst_param_value_type(spec)
        var gvalue = GValue()
        g_value_init(&gvalue, type)
        defer { g_value_unset(&gvalue) }
        g_object_get_property(object, property, &gvalue)
        return Self.swiftValue(&gvalue)
    }

    /// An unsigned counter of a statistics property (a GstStructure, as srtsink's and rtmp2sink's
    /// `stats`), or nil when the element has no such property or the structure no such field.
    public func counter(_ field: String, inStructure property: String) -> UInt64? {
        guard let spec = try? spec(property), cgst_param_value_type(spec) == cgst_type_structure() else { return nil }
        var gvalue = GValue()
        g_value_init(&gvalue, cgst_type_structure())
        defer { g_value_unset(&gvalue) }
        g_object_get_property(object, property, &gvalue)
        guard let structure = gst_value_get_structure(&gvalue) else { return nil }
        var value: guint64 = 0
        return gst_structure_get_uint64(structure, field, &value) != 0 ? UInt64(value) : nil
    }

    private func propertyError(_ property: String, _ value: PropertyValue, _ what: String) -> GStreamerError {
        GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_FAILED.rawValue),
                       message: "value \"\(value)\" for \(name).\(property) \(what)", source: name)
    }

    private func fill(_ v: inout GValue, type: GType, from value: PropertyValue) -> Bool {
        let fundamental = cgst_type_fundamental(type)
        switch (value, fundamental) {
        case (.bool(let b), cgst_type_boolean()): g_value_set_boolean(&v, b ? 1 : 0)
        case (.int(let i), cgst_type_int()):
            guard let x = Int32(exactly: i) else { return false }
            g_value_set_int(&v, x)
        case (.int(let i), cgst_type_uint()):
            guard let x = UInt32(exactly: i) else { return false }
            g_value_set_uint(&v, x)
        case (.int(let i), cgst_type_int64()): g_value_set_int64(&v, gint64(i))
        case (.int(let i), cgst_type_uint64()):
            guard let x = UInt64(exactly: i) else { return false }
            g_value_set_uint64(&v, guint64(x))
        case (.int(let i), cgst_type_long()): g_value_set_long(&v, Int(i))
        case (.int(let i), cgst_type_ulong()):
            guard let x = UInt(exactly: i) else { return false }
            g_value_set_ulong(&v, x)
        case (.int(let i), cgst_type_double()): g_value_set_double(&v, Double(i))
        case (.int(let i), cgst_type_float()): g_value_set_float(&v, Float(i))
        case (.double(let d), cgst_type_double()): g_value_set_double(&v, d)
        case (.double(let d), cgst_type_float()): g_value_set_float(&v, Float(d))
        case (.string(let s), cgst_type_string()): g_value_set_string(&v, s)
        case (.fraction(let n, let d), _) where type == cgst_type_fraction():
            gst_value_set_fraction(&v, n, d)
        case (.serialized(let s), _):
            return gst_value_deserialize(&v, s) != 0
        case (.string(let s?), _):
            // Fall back to GStreamer's own parser for enums (by nick), flags and other types.
            return gst_value_deserialize(&v, s) != 0
        case (.bool(let b), _):
            return gst_value_deserialize(&v, b ? "true" : "false") != 0
        case (.int(let i), _):
            return gst_value_deserialize(&v, String(i)) != 0
        case (.double(let d), _):
            return gst_value_deserialize(&v, String(d)) != 0
        default:
            return false
        }
        return true
    }

    static func swiftValue(_ v: UnsafeMutablePointer<GValue>) -> PropertyValue {
        let type = cgst_value_type(v)
        switch cgst_type_fundamental(type) {
        case cgst_type_boolean(): return .bool(g_value_get_boolean(v) != 0)
        case cgst_type_int(): return .int(Int64(g_value_get_int(v)))
        case cgst_type_uint(): return .int(Int64(g_value_get_uint(v)))
        case cgst_type_int64(): return .int(Int64(g_value_get_int64(v)))
        case cgst_type_uint64(): return .int(Int64(truncatingIfNeeded: g_value_get_uint64(v)))
        case cgst_type_long(): return .int(Int64(g_value_get_long(v)))
        case cgst_type_ulong(): return .int(Int64(truncatingIfNeeded: g_value_get_ulong(v)))
        case cgst_type_double(): return .double(g_value_get_double(v))
        case cgst_type_float(): return .double(Double(g_value_get_float(v)))
        case cgst_type_string(): return .string(g_value_get_string(v).map { String(cString: $0) })
        default:
            if type == cgst_type_fraction() {
                return .fraction(gst_value_get_fraction_numerator(v), gst_value_get_fraction_denominator(v))
            }
            return .serialized(takeString(gst_value_serialize(v)) ?? "")
        }
    }
}

extension PropertyInfo {
    init(_ spec: UnsafeMutablePointer<GParamSpec>) {
        let type = cgst_param_value_type(spec)
        var choices: [String] = []
        if cgst_type_fundamental(type) == cgst_type_enum(), let cls = g_type_class_ref(type) {
            let enumClass = cls.assumingMemoryBound(to: GEnumClass.self)
            for i in 0..<Int(enumClass.pointee.n_values) {
                if let nick = enumClass.pointee.values[i].value_nick { choices.append(String(cString: nick)) }
            }
            g_type_class_unref(cls)
        }
        self.init(name: String(cString: spec.pointee.name), typeName: String(cString: g_type_name(type)),
                  writable: cgst_param_writable(spec) != 0, readable: cgst_param_readable(spec) != 0,
                  choices: choices)
    }
}

extension Element {
    /// Names of this element's properties.
    public func propertyNames() throws(GStreamerError) -> [String] {
        var n: guint = 0
        guard let specs = cgst_list_properties(UnsafeMutableRawPointer(pointer), &n) else { return [] }
        defer { g_free(specs) }
        return (0..<Int(n)).compactMap { specs[$0].map { String(cString: $0.pointee.name) } }
    }
}
