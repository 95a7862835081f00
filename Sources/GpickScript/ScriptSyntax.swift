import FoundationEssentials
import GpickKit
import Glibc

/// One word of a script line, with the column it starts at (1-based).
public struct ScriptToken: Sendable, Equatable {
    public var text: String
    public var column: Int
}

/// A syntax error, reported as `line:column` before anything runs.
public struct ScriptSyntaxError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "\(line):\(column): \(message)" }
}

/// Splits a line into words: whitespace separates, '…' and "…" quote (a quote inside "…" is \"),
/// `#` outside quotes starts a comment. Nothing is expanded: names stay literal.
enum ScriptLexer {
    static func tokens(_ line: String, lineNumber: Int) throws(ScriptSyntaxError) -> [ScriptToken] {
        var out: [ScriptToken] = []
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == " " || c == "\t" || c == "\r" { i += 1; continue }
            if c == "#" { break }
            let start = i + 1
            var word = ""
            while i < chars.count, chars[i] != " ", chars[i] != "\t", chars[i] != "\r" {
                let q = chars[i]
                if q == "'" || q == "\"" {
                    let openedAt = i + 1
                    i += 1
                    var closed = false
                    while i < chars.count {
                        if q == "\"" && chars[i] == "\\" && i + 1 < chars.count && (chars[i + 1] == "\"" || chars[i + 1] == "\\") {
                            word.append(chars[i + 1]); i += 2; continue
                        }
                        if chars[i] == q { closed = true; i += 1; break }
                        word.append(chars[i]); i += 1
                    }
                    if !closed { throw ScriptSyntaxError(line: lineNumber, column: openedAt, message: "unterminated \(q == "'" ? "single" : "double") quote") }
                } else if q == "#" && word.isEmpty {
                    break
                } else {
                    word.append(q); i += 1
                }
            }
            out.append(ScriptToken(text: word, column: start))
        }
        return out
    }
}
