import Foundation
import GpickBase

/// An 8-bit sRGB colour with straight (not premultiplied) alpha, as users write colours:
/// `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb(r, g, b)`, `rgba(r, g, b, a)`, a CSS name or
/// `transparent`. In JSON it is `#rrggbb`, or `#rrggbbaa` when not opaque.
public struct AvatarColor: Sendable, Hashable, Codable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let black = AvatarColor(red: 0, green: 0, blue: 0)
    public static let white = AvatarColor(red: 255, green: 255, blue: 255)
    public static let transparent = AvatarColor(red: 0, green: 0, blue: 0, alpha: 0)

    public static let accepted = "#RGB, #RRGGBB, #RRGGBBAA, rgb(R,G,B), rgba(R,G,B,A) or a name such as teal"

    /// Parses what a user typed; nil when it is not a colour.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t.hasPrefix("#") {
            let hex = Array(t.dropFirst())
            guard [3, 4, 6, 8].contains(hex.count), hex.allSatisfy(\.isHexDigit) else { return nil }
            let short = hex.count <= 4
            let digits = short ? hex.flatMap { [$0, $0] } : hex
            var v: [UInt8] = []
            var i = 0
            while i < digits.count {
                guard let byte = UInt8(String(digits[i...i + 1]), radix: 16) else { return nil }
                v.append(byte)
                i += 2
            }
            self.init(red: v[0], green: v[1], blue: v[2], alpha: v.count == 4 ? v[3] : 255)
            return
        }
        if t.hasPrefix("rgb(") || t.hasPrefix("rgba("), t.hasSuffix(")") {
            let inner = t[t.index(after: t.firstIndex(of: "(")!)..<t.index(before: t.endIndex)]
            let parts = inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == (t.hasPrefix("rgba") ? 4 : 3) else { return nil }
            var rgb: [UInt8] = []
            for p in parts.prefix(3) {
                guard let n = Int(p), (0...255).contains(n) else { return nil }
                rgb.append(UInt8(n))
            }
            var a: UInt8 = 255
            if parts.count == 4 {
                guard let f = Double(parts[3]), (0...1).contains(f) else { return nil }
                a = UInt8((f * 255).rounded())
            }
            self.init(red: rgb[0], green: rgb[1], blue: rgb[2], alpha: a)
            return
        }
        guard let named = Self.names[t] else { return nil }
        self = named
    }

    /// The user's text, or a usage error naming the option and what is accepted.
    public static func parse(_ text: String, option: String) throws(GpickError) -> AvatarColor {
        guard let c = AvatarColor(parsing: text) else {
            throw GpickError(.usage, "\(option) \(text.isEmpty ? "\"\"" : text): not a colour; give \(accepted)")
        }
        return c
    }

    public var isOpaque: Bool { alpha == 255 }
    public var isTransparent: Bool { alpha == 0 }

    public var description: String {
        let parts = isOpaque ? [red, green, blue] : [red, green, blue, alpha]
        return "#" + parts.map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let c = AvatarColor(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(text) is not a colour"))
        }
        self = c
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Common CSS colour names.
    static let names: [String: AvatarColor] = [
        "transparent": .transparent, "black": .black, "white": .white,
        "red": .init(red: 255, green: 0, blue: 0), "green": .init(red: 0, green: 128, blue: 0),
        "lime": .init(red: 0, green: 255, blue: 0), "blue": .init(red: 0, green: 0, blue: 255),
        "yellow": .init(red: 255, green: 255, blue: 0), "cyan": .init(red: 0, green: 255, blue: 255),
        "aqua": .init(red: 0, green: 255, blue: 255), "magenta": .init(red: 255, green: 0, blue: 255),
        "fuchsia": .init(red: 255, green: 0, blue: 255), "grey": .init(red: 128, green: 128, blue: 128),
        "gray": .init(red: 128, green: 128, blue: 128), "silver": .init(red: 192, green: 192, blue: 192),
        "maroon": .init(red: 128, green: 0, blue: 0), "olive": .init(red: 128, green: 128, blue: 0),
        "navy": .init(red: 0, green: 0, blue: 128), "purple": .init(red: 128, green: 0, blue: 128),
        "teal": .init(red: 0, green: 128, blue: 128), "orange": .init(red: 255, green: 165, blue: 0),
        "pink": .init(red: 255, green: 192, blue: 203), "brown": .init(red: 165, green: 42, blue: 42),
        "gold": .init(red: 255, green: 215, blue: 0), "indigo": .init(red: 75, green: 0, blue: 130),
        "violet": .init(red: 238, green: 130, blue: 238), "coral": .init(red: 255, green: 127, blue: 80),
        "salmon": .init(red: 250, green: 128, blue: 114), "tomato": .init(red: 255, green: 99, blue: 71),
        "crimson": .init(red: 220, green: 20, blue: 60), "turquoise": .init(red: 64, green: 224, blue: 208),
        "skyblue": .init(red: 135, green: 206, blue: 235), "steelblue": .init(red: 70, green: 130, blue: 180),
        "slategray": .init(red: 112, green: 128, blue: 144), "beige": .init(red: 245, green: 245, blue: 220),
        "ivory": .init(red: 255, green: 255, blue: 240), "lavender": .init(red: 230, green: 230, blue: 250),
        "khaki": .init(red: 240, green: 230, blue: 140), "chocolate": .init(red: 210, green: 105, blue: 30),
        "tan": .init(red: 210, green: 180, blue: 140), "orchid": .init(red: 218, green: 112, blue: 214),
        "plum": .init(red: 221, green: 160, blue: 221), "mint": .init(red: 189, green: 252, blue: 201),
    ]
}

/// WCAG 2 relative luminance and contrast ratio.
public enum Contrast {
    /// sRGB byte → linear light, once for all 256 values.
    static let linear: [Double] = (0...255).map { i in
        let c = Double(i) / 255
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055).pow(2.4)
    }

    public static func luminance(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Double {
        0.2126 * linear[Int(r)] + 0.7152 * linear[Int(g)] + 0.0722 * linear[Int(b)]
    }

    public static func luminance(_ c: AvatarColor) -> Double { luminance(c.red, c.green, c.blue) }

    /// (L1 + 0.05) / (L2 + 0.05) with L1 the lighter: 1 to 21.
    public static func ratio(_ a: Double, _ b: Double) -> Double { (max(a, b) + 0.05) / (min(a, b) + 0.05) }

    public static func ratio(_ a: AvatarColor, _ b: AvatarColor) -> Double { ratio(luminance(a), luminance(b)) }

    /// What WCAG 2 AA asks of normal text.
    public static let minimum = 4.5
}

extension Double {
    func pow(_ e: Double) -> Double { Glibc.pow(self, e) }
}
