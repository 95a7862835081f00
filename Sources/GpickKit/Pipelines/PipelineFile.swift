import FoundationEssentials
import Glibc

/// A declarative pipeline: a GStreamer description with named elements, typed parameters bound to
/// element properties, and the taps (appsink/appsrc) the toolkit attaches to.
public struct PipelineFile: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A video source part; the session appends its format stage after it.
        case source
        /// An audio source part.
        case audioSource = "audio-source"
        /// An output branch fed from the session's tees (entry elements `video` / `audio`).
        case branch
        /// A standalone pipeline fed by an appsrc tap and read by an appsink tap (still encoders).
        case encoder
        /// The session's shared middle part: the per-source `input` stage, then the switch's `feed`
        /// appsrc, tees and the retained-frame tap.
        case session
        /// A complete pipeline for `gpick run`.
        case pipeline
    }

    public struct Located<T: Sendable>: Sendable {
        public var value: T
        public var line: Int
    }

    public var path: String
    public var name: String
    public var kind: Kind
    public var summary: String
    public var parameters: [Parameter]
    /// The main description (video path for branches).
    public var pipeline: Located<String>
    /// For branches: the audio path, appended when the session has audio.
    public var audio: Located<String>?
    /// For sessions: the stage every source passes through before the switch (ends in `format`).
    public var input: Located<String>?
    /// Parameter name → (element, property), in file order.
    public var bindings: [Binding]
    /// Tap name → element name (must be appsink or appsrc).
    public var taps: [Located<Tap>]
    /// For a window preview branch: the video sinks to try, linked after the element named
    /// `convert` (see `WindowSinkChooser`).
    public var windowSinks: WindowSinks? = nil
    /// For a network stream's branch: the media gst-rtsp-server builds for each mount, fed by an
    /// appsrc named `src` with what the branch's `sink` gives, its payloaders named pay0, pay1….
    public var media: Located<String>? = nil
    /// The media's audio, appended to it when the session has sound: an appsrc named `asrc` fed
    /// with what the branch's audio path's appsink `asink` gives, and its payloader `pay1`.
    public var mediaAudio: Located<String>? = nil
    /// For a published stream's branch: the pipeline that sends what the branch's `sink` gives to
    /// a server, from an appsrc named `src` to a network sink named `out` (its `uri` or `location`
    /// is set to the URL). It is built anew for each connection.
    public var send: Located<String>? = nil
    /// The sender's audio, appended to `send` when the session has sound: an appsrc named `asrc`
    /// fed with what the branch's audio path's appsink `asink` gives, linked into the muxer.
    public var sendAudio: Located<String>? = nil

    /// The window sinks to try on each kind of display, in order of preference. A fixed list:
    /// autovideosink would probe every installed sink (kmssink, dfbvideosink …), and some crash.
    public struct WindowSinks: Sendable, Equatable {
        public var wayland: [String]
        public var x11: [String]
        public var line: Int
        /// Both lists, each element once.
        public var all: [String] {
            var seen = Set<String>()
            return (wayland + x11).filter { seen.insert($0).inserted }
        }
    }

    public struct Binding: Sendable {
        public var parameter: String
        public var element: String
        public var property: String
        public var line: Int
    }

    public struct Tap: Sendable {
        public var name: String
        public var element: String
        public var role: Role
        /// What the tap carries, e.g. "video/x-h264" (lets tools stand in for gpick's own data).
        public var caps: String? = nil
        public enum Role: String, Sendable { case appsink, appsrc }
    }

    public func parameter(_ name: String) -> Parameter? { parameters.first { $0.name == name } }

    /// A file with `send`, as two: the branch (the session's side) and the sender (a pipeline of
    /// its own). Each binding goes to the part that names its element; parameters are shared.
    public var sendingParts: (branch: PipelineFile, sender: PipelineFile)? { sendingParts() }
    /// With `audio`, the sender's pipeline has its `send-audio` part too.
    public func sendingParts(audio: Bool = false) -> (branch: PipelineFile, sender: PipelineFile)? {
        guard let send else { return nil }
        var sent = send
        if audio, let sendAudio { sent.value += " " + sendAudio.value }
        let inSender = { (b: Binding) in LaunchLine.nameRange(b.element, in: sent.value) != nil }
        var branch = self, sender = self
        branch.send = nil
        branch.sendAudio = nil
        branch.bindings = bindings.filter { !inSender($0) }
        sender.send = nil
        sender.sendAudio = nil
        sender.kind = .pipeline
        sender.pipeline = sent
        sender.audio = nil
        sender.taps = []
        sender.bindings = bindings.filter(inSender)
        return (branch, sender)
    }
    public func tap(_ name: String) -> Tap? { taps.first { $0.value.name == name }?.value }

    /// `file:line: message` for an error at a line of this file.
    public func error(_ line: Int, _ message: String, remedy: GpickError.Remedy? = nil) -> GpickError {
        GpickError(.pipeline, "\(path):\(line): \(message)", remedy: remedy)
    }
}

/// A typed parameter of a pipeline file.
public struct Parameter: Sendable {
    public enum ParamType: Sendable, Equatable {
        case int(min: Int64, max: Int64)
        case number(min: Double, max: Double)
        case fraction
        case enumeration([String])
        case bool
        case string
        case duration
        case source
        case outputPath
        case inputPath

        public var name: String {
            switch self {
            case .int: "int"
            case .number: "number"
            case .fraction: "fraction"
            case .enumeration: "enum"
            case .bool: "bool"
            case .string: "string"
            case .duration: "duration"
            case .source: "source"
            case .outputPath: "output-path"
            case .inputPath: "input-path"
            }
        }
    }

    public var name: String
    public var type: ParamType
    public var defaultValue: Value?
    public var required: Bool
    public var help: String
    public var line: Int

    /// A checked parameter value.
    public enum Value: Sendable, Equatable, CustomStringConvertible {
        case int(Int64), number(Double), fraction(Int32, Int32), string(String), bool(Bool), duration(Double)
        public var description: String {
            switch self {
            case .int(let i): String(i)
            case .number(let d): String(d)
            case .fraction(let n, let d): "\(n)/\(d)"
            case .string(let s): s
            case .bool(let b): String(b)
            case .duration(let s): DurationText.format(seconds: s)
            }
        }
    }

    /// Parses and range-checks a value given as text (from YAML, `--set` or a script).
    public func parse(_ text: String) throws(GpickError) -> Value {
        func bad(_ why: String) -> GpickError { GpickError(.input, "parameter \(name): \"\(text)\" \(why)") }
        switch type {
        case .int(let lo, let hi):
            guard let v = Int64(text.trimmed(newlines: false)) else { throw bad("is not an integer") }
            guard v >= lo && v <= hi else { throw bad("is out of range \(lo)…\(hi)") }
            return .int(v)
        case .number(let lo, let hi):
            guard let v = Double(text.trimmed(newlines: false)), v.isFinite else { throw bad("is not a number") }
            guard v >= lo && v <= hi else { throw bad("is out of range \(lo)…\(hi)") }
            return .number(v)
        case .fraction:
            let parts = text.split(separator: "/")
            guard let n = Int32(parts.first ?? ""), parts.count <= 2 else { throw bad("is not a fraction like 30/1") }
            let d = parts.count == 2 ? Int32(parts[1]) : 1
            guard let d, d > 0, n > 0 else { throw bad("is not a positive fraction like 30/1") }
            return .fraction(n, d)
        case .enumeration(let choices):
            guard choices.contains(text) else {
                let hint = Suggest.closest(to: text, in: choices).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw bad("is not one of \(choices.joined(separator: ", "))\(hint)")
            }
            return .string(text)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1", "on": return .bool(true)
            case "false", "no", "0", "off": return .bool(false)
            default: throw bad("is not true or false")
            }
        case .duration:
            guard let s = DurationText.parse(text) else { throw bad("is not a duration like 1.5s, 500ms or 2m") }
            return .duration(s)
        case .string, .source, .outputPath, .inputPath:
            return .string(text)
        }
    }
}
