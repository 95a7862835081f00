/// The text of a Swift file's string literals, line by line, for checks that scan what the code
/// names (elements, programs). Comments are skipped; interpolations become a space.
///
/// It reads UTF-8 bytes: every delimiter is ASCII, and the tests that use it read every Swift
/// file of the package, in a debug build.
public enum SwiftLiterals {
    public struct Piece: Sendable {
        public let text: String
        public let line: Int
    }

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), newline = UInt8(ascii: "\n")
    private static let open = UInt8(ascii: "("), close = UInt8(ascii: ")"), slash = UInt8(ascii: "/")
    private static let star = UInt8(ascii: "*"), hash = UInt8(ascii: "#")

    public static func pieces(in source: String) -> [Piece] {
        var source = source
        return source.withUTF8 { pieces(in: $0) }
    }

    static func pieces(in c: UnsafeBufferPointer<UInt8>) -> [Piece] {
        var out: [Piece] = []
        var i = 0, line = 1
        var current: [UInt8] = [], currentLine = 1
        func at(_ k: Int, _ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard k + n <= c.count else { return false }
            let p = s.utf8Start
            for j in 0..<n where c[k + j] != p[j] { return false }
            return true
        }
        func flush() {
            if !current.isEmpty { out.append(Piece(text: String(decoding: current, as: UTF8.self), line: currentLine)) }
            current.removeAll(keepingCapacity: true)
        }
        /// Skips an interpolation from its `(` to the matching `)`, strings inside included.
        func skipInterpolation() {
            var depth = 0
            while i < c.count {
                let ch = c[i]
                if ch == newline { line += 1 }
                if ch == quote {
                    i += 1
                    while i < c.count, c[i] != quote { if c[i] == backslash { i += 1 }; i += 1 }
                } else if ch == open { depth += 1 } else if ch == close {
                    depth -= 1
                    if depth == 0 { i += 1; return }
                }
                i += 1
            }
        }
        /// Reads a literal body up to `end`, `i` just after the opening quote(s).
        func literal(end: StaticString, multiline: Bool, raw: Bool) {
            flush()
            currentLine = line
            while i < c.count {
                if at(i, end) { i += end.utf8CodeUnitCount; flush(); return }
                let ch = c[i]
                if !raw, ch == backslash {
                    if i + 1 < c.count, c[i + 1] == open {
                        i += 1
                        skipInterpolation()
                        current.append(UInt8(ascii: " "))
                        continue
                    }
                    if i + 1 < c.count { current.append(c[i + 1]) }
                    i += 2
                    continue
                }
                if ch == newline {
                    if !multiline { flush(); return }
                    i += 1
                    line += 1
                    flush()
                    currentLine = line
                    continue
                }
                current.append(ch)
                i += 1
            }
            flush()
        }
        while i < c.count {
            let ch = c[i]
            if ch == newline { line += 1; i += 1; continue }
            if ch == slash, at(i, "//") {
                while i < c.count, c[i] != newline { i += 1 }
                continue
            }
            if ch == slash, at(i, "/*") {
                var depth = 0
                while i < c.count {
                    if at(i, "/*") { depth += 1; i += 2; continue }
                    if at(i, "*/") { depth -= 1; i += 2; if depth == 0 { break }; continue }
                    if c[i] == newline { line += 1 }
                    i += 1
                }
                continue
            }
            if ch == hash, at(i, "#\"\"\"") { i += 4; literal(end: "\"\"\"#", multiline: true, raw: true); continue }
            if ch == hash, at(i, "#\"") { i += 2; literal(end: "\"#", multiline: false, raw: true); continue }
            if ch == quote, at(i, "\"\"\"") { i += 3; literal(end: "\"\"\"", multiline: true, raw: false); continue }
            if ch == quote { i += 1; literal(end: "\"", multiline: false, raw: false); continue }
            i += 1
        }
        return out
    }

    /// The words of a piece: runs of letters, digits, `_` and `-` (element and program names).
    public static func words(_ text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }.map(String.init)
    }
}
