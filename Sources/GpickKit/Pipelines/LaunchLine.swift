import FoundationEssentials
import Glibc
import GstCore

/// Renders a pipeline file, with its parameter values, as one `gst-launch-1.0` command line that
/// runs as printed: values are inlined after each element's `name=`, an fd output becomes a shell
/// redirect, taps get stand-ins (a test source for an appsrc, a non-blocking appsink), and parts
/// that need a session (sources, branches) get the session's front end.
public enum LaunchLine {
    public struct Context: Sendable {
        public var format = SessionFormat(width: 640, height: 360, fps: 30)
        public var seconds: Double = 2
        public var pattern = "smpte"
        public init() {}
    }

    @available(*, noasync, message: "it builds the pipeline to check it: run it in OffPool")
    public static func render(_ file: PipelineFile, values: [String: Parameter.Value], outputs: [String: String],
                              context: Context = .init()) throws(GpickError) -> String {
        // A published branch shows its session side: the sender is built per connection.
        let file = file.sendingParts?.branch ?? file
        // Build it first: whatever show prints has passed the same checks as run.
        var placeholders: [String: PropertyValue] = [:]
        for p in file.parameters where p.type == .outputPath { placeholders[p.name] = .int(1) }
        for p in file.parameters where p.type == .inputPath { if let o = outputs[p.name] { placeholders[p.name] = .string(o) } }
        let built = try PipelineBuilder.build(file, audio: file.audio != nil, values: values, outputs: placeholders,
                                              asPipeline: file.kind == .encoder || file.kind == .pipeline)

        var redirects: [String] = []
        var assignments: [String: [String]] = [:]  // element → ["prop=value"]
        for b in file.bindings {
            guard let p = file.parameter(b.parameter) else { continue }
            let rendered: String
            if p.type == .outputPath || p.type == .inputPath {
                guard let path = outputs[p.name] else {
                    if p.required { throw GpickError(.usage, "\(file.name): \(p.name) is required", remedy: .giveParameter(p.name)) }
                    continue
                }
                if b.property == "fd" {
                    redirects.append("3<>\(shellQuote(path))")
                    rendered = "3"
                } else {
                    rendered = gstQuote(path)
                }
            } else if let v = values[p.name] ?? p.defaultValue, let e = built.element(named: b.element) {
                rendered = gstValue(try PipelineBuilder.propertyValue(v, for: e, property: b.property))
            } else {
                continue
            }
            assignments[b.element, default: []].append("\(b.property)=\(rendered)")
        }
        let f = context.format
        let videoCaps = "video/x-raw,format=I420,width=\(f.width),height=\(f.height),framerate=\(f.fps)/1,pixel-aspect-ratio=1/1"
        let audioCaps = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=2"
        let frames = max(1, Int(context.seconds * Double(f.fps)))
        let audioBuffers = max(1, Int(context.seconds * 48000 / 1024))
        let testVideo = "videotestsrc is-live=true num-buffers=\(frames) pattern=\(context.pattern)"
        let testAudio = "audiotestsrc is-live=true num-buffers=\(audioBuffers) samplesperbuffer=1024 volume=0.3"

        var main = inline(file.pipeline.value, assignments)
        var audio = file.audio.map { inline($0.value, assignments) }
        for tap in file.taps {
            if tap.value.role == .appsink {
                main = insert("max-buffers=1 drop=true sync=false wait-on-eos=false", after: tap.value.element, in: main)
                audio = audio.map { insert("max-buffers=1 drop=true sync=false wait-on-eos=false", after: tap.value.element, in: $0) }
                continue
            }
            // An appsrc gets a stand-in producing what the tap carries (raw video by default).
            let standIn: String
            switch tap.value.caps {
            case _ where file.kind == .session && tap.value.element == "feed":
                // The session's switch feeds the source, after the input stage.
                let input = inline(file.input?.value ?? "videoconvert ! videoscale", assignments)
                standIn = "\(testVideo) ! \(input.replacing("name=format", with: "name=format caps=\"\(videoCaps)\""))"
            case let c? where c.hasPrefix("video/x-h264"):
                standIn = "\(testVideo) ! \(videoCaps) ! x264enc tune=zerolatency key-int-max=15 ! h264parse ! video/x-h264,stream-format=avc,alignment=au"
            case let c? where c.hasPrefix("audio/mpeg"):
                standIn = "\(testAudio) ! \(audioCaps) ! audioconvert ! voaacenc ! aacparse"
            default:
                standIn = "\(testVideo.replacing("is-live=true num-buffers=\(frames)", with: "num-buffers=1")) ! \(videoCaps)"
            }
            main = replaceElement(tap.value.element, in: main, with: standIn)
            audio = audio.map { replaceElement(tap.value.element, in: $0, with: standIn) }
        }
        let text: String
        switch file.kind {
        case .branch:
            var t = "\(testVideo) ! videoconvert ! \(videoCaps) ! \(main)"
            if let a = audio { t += " \(testAudio) ! \(audioCaps) ! \(a)" }
            text = t
        case .source:
            text = "\(main) ! videoconvert ! videoscale ! \(videoCaps) ! fakesink"
                .replacing("name=src ", with: "name=src num-buffers=\(frames) ")
        case .audioSource:
            text = "\(main) ! \(audioCaps) ! fakesink"
                .replacing("name=asrc ", with: "name=asrc num-buffers=\(audioBuffers) ")
        case .session:
            audio = audio.map { "\(testAudio) ! \($0)" }
            text = main + (audio.map { " \($0)" } ?? "")
        case .encoder, .pipeline:
            text = main + (audio.map { " \($0)" } ?? "")
        }
        // gst-launch escapes each argument on its own (gst_parse_launchv), so every token is one
        // argument with its gst quotes taken off, and shell-quoted where the shell would interfere.
        return (["gst-launch-1.0", "-e"] + arguments(text).map(shellWord) + redirects).joined(separator: " ")
    }

    /// Splits a description into gst-launch arguments: whitespace outside double quotes separates,
    /// and quoted values lose their quotes (`location="a b"` → `location=a b`).
    static func arguments(_ text: String) -> [String] {
        var out: [String] = [], cur = "", quoted = false, hadToken = false
        var it = text.makeIterator()
        while let c = it.next() {
            if quoted {
                if c == "\\", let n = it.next() { cur.append(n) } else if c == "\"" { quoted = false } else { cur.append(c) }
            } else if c == "\"" {
                quoted = true; hadToken = true
            } else if c.isWhitespace {
                if hadToken || !cur.isEmpty { out.append(cur) }
                cur = ""; hadToken = false
            } else {
                cur.append(c)
            }
        }
        if hadToken || !cur.isEmpty { out.append(cur) }
        return out
    }

    /// Shell-quotes a word only when it holds characters the shell would act on.
    static func shellWord(_ w: String) -> String {
        let safe = !w.isEmpty && w.allSatisfy { $0.isLetter || $0.isNumber || "_-./:=,+!@%".contains($0) }
        return safe ? w : shellQuote(w)
    }

    /// Adds `prop=value` after each bound element's `name=` token.
    static func inline(_ text: String, _ assignments: [String: [String]]) -> String {
        var t = text
        for (element, props) in assignments { t = insert(props.joined(separator: " "), after: element, in: t) }
        return t
    }

    static func insert(_ extra: String, after element: String, in text: String) -> String {
        guard let r = nameRange(element, in: text) else { return text }
        var t = text
        t.replaceSubrange(r, with: "name=\(element) \(extra)")
        return t
    }

    /// Replaces an element's whole declaration (from its factory to the next `!`) with `replacement`.
    static func replaceElement(_ element: String, in text: String, with replacement: String) -> String {
        guard let r = nameRange(element, in: text) else { return text }
        let start = text[..<r.lowerBound].lastIndex(where: { $0 == "!" || $0 == "\n" }).map { text.index(after: $0) } ?? text.startIndex
        let end = text[r.upperBound...].firstIndex(of: "!") ?? text.endIndex
        var t = text
        t.replaceSubrange(start..<end, with: " \(replacement) ")
        return t
    }

    static func nameRange(_ element: String, in text: String) -> Range<String.Index>? {
        var search = text.startIndex..<text.endIndex
        while let r = text[search].firstRange(of: "name=\(element)") {
            let after = r.upperBound == text.endIndex ? " " : text[r.upperBound]
            if after == " " || after == "\n" || after == "!" { return r }
            search = r.upperBound..<text.endIndex
        }
        return nil
    }

    static func gstValue(_ v: PropertyValue) -> String {
        switch v {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .fraction(let n, let d): return "\(n)/\(d)"
        case .string(let s): return gstQuote(s ?? "")
        case .serialized(let s): return gstQuote(s)
        }
    }

    /// gst-launch's own quoting: double quotes, with `"` and `\` escaped.
    static func gstQuote(_ s: String) -> String {
        let plain = s.allSatisfy { $0.isLetter || $0.isNumber || "-_./:".contains($0) } && !s.isEmpty
        if plain { return s }
        return "\"" + s.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// POSIX shell single quotes.
    static func shellQuote(_ s: String) -> String {
        "'" + s.replacing("'", with: "'\\''") + "'"
    }
}
