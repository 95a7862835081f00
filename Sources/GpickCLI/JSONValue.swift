import FoundationEssentials

/// A JSON value for event lines (Foundation's JSONSerialization is outside FoundationEssentials):
/// built from the plain values commands report, or decoded from an encoded report.
package enum JSONValue: Codable, Sendable {
    case null, bool(Bool), int(Int64), number(Double), string(String)
    case array([JSONValue]), object([String: JSONValue])

    /// Strings, integers, floating point, booleans, arrays, dictionaries and optionals; anything
    /// else is reported by its description (never dropped).
    package init(_ any: Any?) {
        switch any {
        case nil: self = .null
        case let v as JSONValue: self = v
        case let v as String: self = .string(v)
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .int(Int64(v))
        case let v as Int64: self = .int(v)
        case let v as Int32: self = .int(Int64(v))
        case let v as UInt32: self = .int(Int64(v))
        case let v as UInt64: self = v <= UInt64(Int64.max) ? .int(Int64(v)) : .number(Double(v))
        case let v as Double: self = v.isFinite ? .number(v) : .null
        case let v as Float: self = v.isFinite ? .number(Double(v)) : .null
        case let v as [Any]: self = .array(v.map { JSONValue($0) })
        case let v as [Any?]: self = .array(v.map { JSONValue($0) })
        case let v as [String: Any]: self = .object(v.mapValues { JSONValue($0) })
        case let v?: self = .string("\(v)")
        }
    }

    package init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let v = try? c.decode(Bool.self) { self = .bool(v) }
        else if let v = try? c.decode(Int64.self) { self = .int(v) }
        else if let v = try? c.decode(Double.self) { self = .number(v) }
        else if let v = try? c.decode(String.self) { self = .string(v) }
        else if let v = try? c.decode([JSONValue].self) { self = .array(v) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let v): try c.encode(v)
        case .int(let v): try c.encode(v)
        case .number(let v): try c.encode(v)
        case .string(let v): try c.encode(v)
        case .array(let v): try c.encode(v)
        case .object(let v): try c.encode(v)
        }
    }

    /// One line of JSON, keys sorted.
    package var line: String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) }
    }
}
