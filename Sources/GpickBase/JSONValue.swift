import FoundationEssentials

/// A JSON value for event lines (Foundation's JSONSerialization is outside FoundationEssentials):
/// built from the typed values sessions, scripts and commands report (`JSONRepresentable`), or
/// decoded from an encoded report.
public enum JSONValue: Codable, Sendable {
    case null, bool(Bool), int(Int64), number(Double), string(String)
    case array([JSONValue]), object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let v = try? c.decode(Bool.self) { self = .bool(v) }
        else if let v = try? c.decode(Int64.self) { self = .int(v) }
        else if let v = try? c.decode(Double.self) { self = .number(v) }
        else if let v = try? c.decode(String.self) { self = .string(v) }
        else if let v = try? c.decode([JSONValue].self) { self = .array(v) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: Encoder) throws {
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
    public var line: String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// What an event's field can hold: checked when the command is compiled, not at run time (an
/// event's fields are `[String: any JSONRepresentable]`, never `Any`).
public protocol JSONRepresentable: Sendable {
    var json: JSONValue { get }
}

extension JSONValue: JSONRepresentable {
    public var json: JSONValue { self }
}

extension String: JSONRepresentable {
    public var json: JSONValue { .string(self) }
}

extension Bool: JSONRepresentable {
    public var json: JSONValue { .bool(self) }
}

extension Int: JSONRepresentable {
    public var json: JSONValue { .int(Int64(self)) }
}

extension Int64: JSONRepresentable {
    public var json: JSONValue { .int(self) }
}

extension Int32: JSONRepresentable {
    public var json: JSONValue { .int(Int64(self)) }
}

extension UInt32: JSONRepresentable {
    public var json: JSONValue { .int(Int64(self)) }
}

extension UInt64: JSONRepresentable {
    public var json: JSONValue { self <= UInt64(Int64.max) ? .int(Int64(self)) : .number(Double(self)) }
}

extension Double: JSONRepresentable {
    /// JSON has no infinity or NaN: null.
    public var json: JSONValue { isFinite ? .number(self) : .null }
}

extension Float: JSONRepresentable {
    public var json: JSONValue { Double(self).json }
}

extension Optional: JSONRepresentable where Wrapped: JSONRepresentable {
    public var json: JSONValue { self?.json ?? .null }
}

extension Array: JSONRepresentable where Element: JSONRepresentable {
    public var json: JSONValue { .array(map(\.json)) }
}

extension Dictionary: JSONRepresentable where Key == String, Value: JSONRepresentable {
    public var json: JSONValue { .object(mapValues(\.json)) }
}

/// Fields of mixed types, as event fields are: `["path": path, "bytes": 12]`.
public typealias JSONFields = [String: any JSONRepresentable]

extension JSONValue {
    /// A number's value (an integer read as one too), else nil.
    public var number: Double? {
        switch self {
        case .int(let v): Double(v)
        case .number(let v): v
        default: nil
        }
    }

    /// Fields of mixed types as one object.
    public init(fields: JSONFields) { self = .object(fields.mapValues(\.json)) }
}

extension GpickError: JSONRepresentable {
    /// In an event's fields a reason is its message; a reader that knows the type takes the
    /// reason itself, to word its remedy in its own terms.
    public var json: JSONValue { .string(message) }
}
