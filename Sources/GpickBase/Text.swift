import Glibc

// Text helpers gpick needs beyond the standard library (it links only FoundationEssentials,
// whose String lacks Foundation's NSString-derived methods).

extension StringProtocol {
    /// Without leading and trailing whitespace (spaces and tabs; with `newlines`, line breaks too).
    public func trimmed(newlines: Bool = true) -> String {
        func isSpace(_ c: Character) -> Bool { c == " " || c == "\t" || (newlines && c.isNewline) }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first...last])
    }

    /// Left-aligned in a column of `width` characters (never cut).
    public func padded(to width: Int) -> String {
        count >= width ? String(self) : String(self) + String(repeating: " ", count: width - count)
    }

    /// The extension of the last path component ("" for none, and for a name like ".hidden").
    public var filenameExtension: String {
        let name = split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The last path component without its extension.
    public var deletingFilenameExtension: String {
        let ext = filenameExtension
        return ext.isEmpty ? String(self) : String(dropLast(ext.count + 1))
    }
}

/// printf-style formatting of numbers for messages (`format` is always a literal in gpick's
/// code, never user text).
public func cFormat(_ format: String, _ args: CVarArg...) -> String {
    let length = withVaList(args) { Int(vsnprintf(nil, 0, format, $0)) }
    guard length > 0 else { return "" }
    var buffer = [CChar](repeating: 0, count: length + 1)
    _ = withVaList(args) { va in buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, va) } }
    return String(cChars: buffer)
}

extension String {
    /// The text of a C buffer up to its first NUL (or all of it), as UTF-8.
    public init(cChars buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A length of time as a clock shows it: "0:03", "12:40", "1:02:03" (rounded to the second).
public func clockText(seconds: Double) -> String {
    let s = Int(seconds.rounded())
    return s >= 3600 ? cFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : cFormat("%d:%02d", s / 60, s % 60)
}
