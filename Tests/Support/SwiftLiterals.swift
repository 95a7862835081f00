/// The text of a Swift file's string literals, line by line, for checks that scan what the code
/// names (elements, programs). Comments are skipped; interpolations become a space.
public enum SwiftLiterals {
    public struct Piece: Sendable {
        public let text: String
        public let line: Int
    }

    public static func pieces(in source: String) -> [Piece] {
        let c = Array(source.unicodeScalars)
        var out: [Piece] = []
        var i = 0, line = 1
        var current = "", currentLine = 1
        func at(_ k: Int, _ s: String) -> Bool {
            let u = Array(s.unicodeScalars)
            return k + u.count <= c.count && Array(c[k..<k + u.count]) == u
        }
        func flush() {
            if !current.isEmpty { out.append(Piece(text: current, line: currentLine)) }
            current = ""
        }
        func newline() { line += 1; flush(); currentLine = line }
        /// Skips an interpolation from its `(` to the matching `)`, strings inside included.
        func skipInterpolation() {
            var depth = 0
            while i < c.count {
                let ch = c[i]
                if ch == "\n" { line += 1 }
                if ch == "\"" {
                    i += 1
                    while i < c.count, c[i] != "\"" { if c[i] == "\\" { i += 1 }; i += 1 }
                } else if ch == "(" { depth += 1 } else if ch == ")" {
                    depth -= 1
                    if depth == 0 { i += 1; return }
                }
                i += 1
            }
        }
        /// Reads a literal body up to `end`, `i` just after the opening quote(s).
        func literal(end: String, multiline: Bool, raw: Bool) {
            flush()
            currentLine = line
            while i < c.count {
                if at(i, end) { i += end.unicodeScalars.count; flush(); return }
                let ch = c[i]
                if !raw, ch == "\\" {
                    if i + 1 < c.count, c[i + 1] == "(" {
                        i += 1
                        skipInterpolation()
                        current += " "
                        continue
                    }
                    if i + 1 < c.count { current.unicodeScalars.append(c[i + 1]) }
                    i += 2
                    continue
                }
                if ch == "\n" {
                    if !multiline { flush(); return }
                    i += 1
                    newline()
                    continue
                }
                current.unicodeScalars.append(ch)
                i += 1
            }
            flush()
        }
        while i < c.count {
            let ch = c[i]
            if ch == "\n" { line += 1; i += 1; continue }
            if at(i, "//") {
                while i < c.count, c[i] != "\n" { i += 1 }
                continue
            }
            if at(i, "/*") {
                var depth = 0
                while i < c.count {
                    if at(i, "/*") { depth += 1; i += 2; continue }
                    if at(i, "*/") { depth -= 1; i += 2; if depth == 0 { break }; continue }
                    if c[i] == "\n" { line += 1 }
                    i += 1
                }
                continue
            }
            if at(i, "#\"\"\"") { i += 4; literal(end: "\"\"\"#", multiline: true, raw: true); continue }
            if at(i, "#\"") { i += 2; literal(end: "\"#", multiline: false, raw: true); continue }
            if at(i, "\"\"\"") { i += 3; literal(end: "\"\"\"", multiline: true, raw: false); continue }
            if ch == "\"" { i += 1; literal(end: "\"", multiline: false, raw: false); continue }
            i += 1
        }
        return out
    }

    /// The words of a piece: runs of letters, digits, `_` and `-` (element and program names).
    public static func words(_ text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }.map(String.init)
    }
}
