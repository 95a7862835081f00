import Foundation

/// What an avatar shows of its text.
public enum TextMode: String, Sendable, Codable, CaseIterable {
    /// Initials for a name (text with spaces), the text as given otherwise.
    case automatic = "auto"
    /// Always initials: the first character, and the first after the last space.
    case initials
    /// The text as given (a short word, an emoji).
    case literal
}

public enum Initials {
    /// The text an avatar draws for `text` in `mode`: NFC-normalised, and for initials, the first
    /// grapheme cluster plus the first after the last run of spaces, uppercased where the script
    /// has case ("Ágnes Ó" → "ÁÓ", "李小龙" → "李").
    public static func shown(_ text: String, mode: TextMode) -> String {
        let t = text.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        switch mode {
        case .literal: return t
        case .automatic: return t.contains(where: \.isWhitespace) ? initials(t) : t
        case .initials: return initials(t)
        }
    }

    static func initials(_ name: String) -> String {
        guard let first = name.first else { return "" }
        var out = upper(first)
        if let lastSpace = name.lastIndex(where: \.isWhitespace) {
            let rest = name[name.index(after: lastSpace)...]
            if let second = rest.first { out += upper(second) }
        }
        return out
    }

    /// Uppercase where the script has case, keeping one character: "ß" stays "ß" rather than
    /// becoming two letters, and a letter without case is unchanged.
    static func upper(_ c: Character) -> String {
        let u = String(c).uppercased()
        return u.count == 1 ? u : String(c)
    }
}

/// The background given to an avatar without one: a gradient from a fixed palette, picked by
/// GLib's string hash of the text as GNOME's AdwAvatar picks it, so a name keeps its colours
/// everywhere. Top and bottom are a light and a deeper shade of one hue.
public enum AvatarPalette {
    public static let gradients: [(top: AvatarColor, bottom: AvatarColor)] = [
        ("#83b6ec", "#337fdc"), ("#7ad9f1", "#0f9ac8"), ("#8de6b1", "#29ae74"), ("#b5e98a", "#6ab85b"),
        ("#f8e359", "#d29d09"), ("#ffcb62", "#d68400"), ("#ffa95a", "#ed5b00"), ("#f78773", "#e62d42"),
        ("#e973ab", "#e33b6a"), ("#cb78d4", "#9945b5"), ("#9e91e8", "#7a59ca"), ("#e3cf9c", "#b08952"),
        ("#be916d", "#785336"), ("#c0bfbc", "#6e6d71"),
    ].map { (AvatarColor(parsing: $0.0)!, AvatarColor(parsing: $0.1)!) }

    /// `g_str_hash`: djb2 over the UTF-8 bytes read as signed chars, as GLib reads them.
    public static func hash(_ text: String) -> UInt32 {
        var h: UInt32 = 5381
        for byte in text.utf8 {
            h = (h << 5) &+ h &+ UInt32(bitPattern: Int32(Int8(bitPattern: byte)))
        }
        return h
    }

    public static func gradient(for text: String) -> (top: AvatarColor, bottom: AvatarColor) {
        gradients[Int(hash(text) % UInt32(gradients.count))]
    }
}
