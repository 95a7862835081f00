import CGStreamer
import GpickBase

/// A rational value as caps hold it (a frame rate, a pixel aspect ratio).
public struct Fraction: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int
    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }
    public var value: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
    public static func < (a: Fraction, b: Fraction) -> Bool { a.value < b.value }
    public var description: String { "\(numerator)/\(denominator)" }
}

/// One field's value in a caps structure: a fixed value, a range or a list of choices, as a
/// device reports what it can do (`width=[ 1, 8192 ]`, `framerate={ 30/1, 15/1 }`).
public indirect enum CapsValue: Sendable, Hashable {
    case int(Int)
    case intRange(ClosedRange<Int>)
    case fraction(Fraction)
    case fractionRange(ClosedRange<Fraction>)
    case string(String)
    case list([CapsValue])
    /// Any other type, as GStreamer serialises it.
    case other(String)

    /// The smallest and largest integer this value allows.
    public var intBounds: ClosedRange<Int>? {
        switch self {
        case .int(let v): v...v
        case .intRange(let r): r
        case .list(let l): Self.hull(l.compactMap(\.intBounds))
        default: nil
        }
    }

    /// The smallest and largest fraction this value allows.
    public var fractionBounds: ClosedRange<Fraction>? {
        switch self {
        case .fraction(let f): f...f
        case .fractionRange(let r): r
        case .list(let l): Self.hull(l.compactMap(\.fractionBounds))
        default: nil
        }
    }

    /// The range spanning all of `ranges`.
    static func hull<T: Comparable>(_ ranges: [ClosedRange<T>]) -> ClosedRange<T>? {
        guard let lo = ranges.map(\.lowerBound).min(), let hi = ranges.map(\.upperBound).max() else { return nil }
        return lo...hi
    }

    /// Every string this value allows (a fixed string or a list of them).
    public var strings: [String] {
        switch self {
        case .string(let s): return [s]
        case .list(let l): return l.flatMap(\.strings)
        default: return []
        }
    }

    /// Reads a GValue (borrowed) of the types caps use.
    init(_ v: UnsafePointer<GValue>) {
        let type = cgst_value_type(v)
        if type == cgst_type_int() {
            self = .int(Int(g_value_get_int(v)))
        } else if type == cgst_type_int_range() {
            let lo = Int(gst_value_get_int_range_min(v)), hi = Int(gst_value_get_int_range_max(v))
            self = lo <= hi ? .intRange(lo...hi) : .other(Self.serialised(v))
        } else if type == cgst_type_fraction() {
            self = .fraction(Fraction(Int(gst_value_get_fraction_numerator(v)), Int(gst_value_get_fraction_denominator(v))))
        } else if type == cgst_type_fraction_range(), let lo = gst_value_get_fraction_range_min(v),
                  let hi = gst_value_get_fraction_range_max(v) {
            let a = Fraction(Int(gst_value_get_fraction_numerator(lo)), Int(gst_value_get_fraction_denominator(lo)))
            let b = Fraction(Int(gst_value_get_fraction_numerator(hi)), Int(gst_value_get_fraction_denominator(hi)))
            self = a <= b ? .fractionRange(a...b) : .other(Self.serialised(v))
        } else if type == cgst_type_string() {
            self = .string(g_value_get_string(v).map { String(cString: $0) } ?? "")
        } else if type == cgst_type_list() || type == cgst_type_array() {
            let isList = type == cgst_type_list()
            let n = isList ? gst_value_list_get_size(v) : gst_value_array_get_size(v)
            self = .list((0..<n).compactMap { i in
                (isList ? gst_value_list_get_value(v, i) : gst_value_array_get_value(v, i)).map { CapsValue($0) }
            })
        } else {
            self = .other(Self.serialised(v))
        }
    }

    private static func serialised(_ v: UnsafePointer<GValue>) -> String {
        takeString(gst_value_serialize(v)) ?? "?"
    }
}

/// One structure of caps: its media type and fields.
public struct CapsStructure: Sendable, Hashable {
    public var mediaType: String
    public var fields: [String: CapsValue]
    public subscript(_ field: String) -> CapsValue? { fields[field] }
}

extension Caps {
    /// Every structure, with its fields read as values (ranges and lists kept as such).
    public var structures: [CapsStructure] { Self.structures(of: pointer) }

    static func structures(of caps: UnsafePointer<GstCaps>) -> [CapsStructure] {
        (0..<gst_caps_get_size(caps)).compactMap { i -> CapsStructure? in
            guard let s = gst_caps_get_structure(caps, i), let name = gst_structure_get_name(s) else { return nil }
            var fields: [String: CapsValue] = [:]
            for f in 0..<gst_structure_n_fields(s) {
                guard let key = gst_structure_nth_field_name(s, UInt32(f)),
                      let value = gst_structure_get_value(s, key) else { continue }
                fields[String(cString: key)] = CapsValue(value)
            }
            return CapsStructure(mediaType: String(cString: name), fields: fields)
        }
    }
}
