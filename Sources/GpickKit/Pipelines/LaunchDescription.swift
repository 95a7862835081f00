/// Reads the element factories out of a gst-launch description as text, without GStreamer: it
/// works when the elements are not installed, which is when `doctor` and the package checks need
/// it most.
public enum LaunchDescription {
    /// The factories in `text`, in order of appearance, each once. Skipped: links (`!`), properties
    /// (`name=value`), references to named elements (`tee.`, `demux.video_0`), caps
    /// (`video/x-raw,…`), bin parentheses and URIs.
    public static func factories(in text: String) -> [String] {
        var seen = Set<String>(), out: [String] = []
        for token in tokens(text) where isFactoryName(token) && seen.insert(token).inserted {
            out.append(token)
        }
        return out
    }

    /// Each element the description declares, with the properties it sets there, in order.
    public static func elements(in text: String) -> [(factory: String, properties: [String])] {
        var out: [(factory: String, properties: [String])] = []
        var current: (factory: String, properties: [String])?
        for token in tokens(text, keepLinks: true) {
            if token == "!" || token.hasSuffix(".") || token.contains("/") {
                if let c = current { out.append(c) }
                current = nil
            } else if isFactoryName(token) {
                if let c = current { out.append(c) }
                current = (token, [])
            } else if let eq = token.firstIndex(of: "="), current != nil {
                current?.properties.append(String(token[..<eq]))
            }
        }
        if let c = current { out.append(c) }
        return out
    }

    /// Whitespace- and `!`-separated words; a double-quoted part (with `\` escapes) stays in its
    /// word. With `keepLinks`, each `!` is a word of its own.
    static func tokens(_ text: String, keepLinks: Bool = false) -> [String] {
        var out: [String] = [], cur = "", quoted = false, escaped = false
        func flush() { if !cur.isEmpty { out.append(cur); cur = "" } }
        for c in text {
            if quoted {
                cur.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { quoted = false }
            } else if c == "\"" {
                quoted = true
                cur.append(c)
            } else if c.isWhitespace || c == "!" || c == "(" || c == ")" {
                flush()
                if c == "!", keepLinks { out.append("!") }
            } else {
                cur.append(c)
            }
        }
        flush()
        return out
    }

    /// Factory names are letters, digits, `_` and `-`, starting with a letter; anything with `=`,
    /// `.`, `/`, `:` or `,` is a property, reference, caps or URI.
    static func isFactoryName(_ t: String) -> Bool {
        guard let first = t.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII else { return false }
        return t.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }
}

extension PipelineFile {
    /// Every element factory the file names: its pipeline, audio, input, media and send stages with their audio, and its
    /// window sink candidates.
    public var elementFactories: [String] {
        var seen = Set<String>()
        let texts = [pipeline.value, audio?.value ?? "", input?.value ?? "", media?.value ?? "", mediaAudio?.value ?? "", send?.value ?? "", sendAudio?.value ?? ""]
        let named = texts.flatMap(LaunchDescription.factories(in:)) + (windowSinks?.all ?? [])
        return named.filter { seen.insert($0).inserted }
    }
}
