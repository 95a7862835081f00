import FoundationEssentials
import Glibc
import GstCore

/// What a pipeline file may do beyond the capture toolkit's own outputs.
public struct PipelinePolicy: Sendable {
    /// Allow elements that send data off the machine (udpsink, rtmpsink, …).
    public var allowNetwork = false
    /// Allow file-writing elements whose location is written in the description, not a parameter.
    public var allowPaths = false
    public init(allowNetwork: Bool = false, allowPaths: Bool = false) {
        self.allowNetwork = allowNetwork
        self.allowPaths = allowPaths
    }
}

/// Turns a pipeline file into GStreamer elements: parses with fatal errors, checks bindings, taps
/// and the sink policy, then sets parameter values as typed properties on named elements. Values
/// never enter the description text.
public enum PipelineBuilder {
    /// Factories that write files, and the property naming where.
    static let fileSinks: [String: String] = [
        "filesink": "location", "multifilesink": "location", "splitmuxsink": "location",
        "fdsink": "fd", "hlssink": "location", "hlssink2": "location", "dashsink": "mpd-filename",
        "giosink": "location",
    ]
    static let networkPrefixes = ["udpsink", "multiudpsink", "dynudpsink", "tcpserversink", "tcpclientsink",
                                  "shmsink", "curl", "rtmp", "srt", "souphttpclientsink", "rtspclientsink",
                                  "webrtc", "ristsink", "sctp", "ipcpipelinesink"]

    /// The full description text, with the audio path appended when asked.
    static func description(_ file: PipelineFile, audio: Bool) -> String {
        if audio, let a = file.audio { return file.pipeline.value + "\n" + a.value }
        return file.pipeline.value
    }

    /// One file's share of a composed pipeline, with the values for its parameters.
    public struct Part: Sendable {
        public var file: PipelineFile
        public var values: [String: Parameter.Value]
        public var outputs: [String: PropertyValue]
        public init(_ file: PipelineFile, values: [String: Parameter.Value] = [:], outputs: [String: PropertyValue] = [:]) {
            self.file = file
            self.values = values
            self.outputs = outputs
        }
    }

    /// `build` off the cooperative pool.
    public static func build(_ file: PipelineFile, audio: Bool = false, values: [String: Parameter.Value] = [:],
                             outputs: [String: PropertyValue] = [:], policy: PipelinePolicy = .init(),
                             asPipeline: Bool, checkOnly: Bool = false) async throws(GpickError) -> Bin {
        try await OffPool.run { () throws(GpickError) in
            try build(file, audio: audio, values: values, outputs: outputs, policy: policy, asPipeline: asPipeline, checkOnly: checkOnly)
        }
    }

    /// Builds the file's elements as a bin (branches, sources) or a pipeline (encoders, run).
    @available(*, noasync, message: "it parses (GStreamer's global lock, plugin loading): await the async overload")
    public static func build(_ file: PipelineFile, audio: Bool = false, values: [String: Parameter.Value] = [:],
                             outputs: [String: PropertyValue] = [:], policy: PipelinePolicy = .init(),
                             asPipeline: Bool, checkOnly: Bool = false) throws(GpickError) -> Bin {
        try compose(description(file, audio: audio), parts: [Part(file, values: values, outputs: outputs)],
                    policy: policy, asPipeline: asPipeline, checkOnly: checkOnly)
    }

    /// Parses `text` (the parts' descriptions joined by the caller) and applies every part's
    /// bindings, taps and policy checks.
    @available(*, noasync, message: "it parses (GStreamer's global lock, plugin loading): await the async overload")
    public static func compose(_ text: String, parts: [Part], policy: PipelinePolicy = .init(),
                               asPipeline: Bool, checkOnly: Bool = false, checkTaps: Bool = true) throws(GpickError) -> Bin {
        do { try Gst.initialize() } catch { throw GpickError(.plugin, "GStreamer: \(error.message)") }
        if CameraJPEGDecoder.mayBeUsed(in: text) { CameraJPEGDecoder.register() }
        if text.contains("decodebin") || text.contains(RawVideoReader.factoryName) { RawVideoReader.register() }
        for part in parts {
            for key in part.values.keys where part.file.parameter(key) == nil {
                let hint = Suggest.closest(to: key, in: part.file.parameters.map(\.name)).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw GpickError(.input, "\(part.file.name) has no parameter \"\(key)\"\(hint)")
            }
        }
        let bin: Bin
        do {
            bin = asPipeline ? try Pipeline.parse(text) : try Bin.parseBin(text)
        } catch {
            throw parseError(error, files: parts.map(\.file))
        }
        for part in parts {
            if checkTaps { try Self.checkTaps(part.file, in: bin, text: text) }
            try checkPolicy(part.file, in: bin, policy: policy)
            try apply(part, to: bin, checkOnly: checkOnly)
        }
        return bin
    }

    static func apply(_ part: Part, to bin: Bin, checkOnly: Bool) throws(GpickError) {
        let file = part.file
        for b in file.bindings {
            guard let element = bin.element(named: b.element) else {
                throw file.error(b.line, "binding \(b.parameter) → \(b.element).\(b.property): no element named \"\(b.element)\" in the pipeline")
            }
            guard element.hasProperty(b.property) else {
                let props = (try? propertyNames(element)) ?? []
                let hint = Suggest.closest(to: b.property, in: props).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw file.error(b.line, "element \"\(b.element)\" (\(element.factoryName ?? "?")) has no property \"\(b.property)\"\(hint)")
            }
            guard let param = file.parameter(b.parameter) else { continue }
            // Every choice a file offers must be one its property takes: an enum parameter is
            // the file's promise of what `--set` accepts.
            if checkOnly, case .enumeration(let choices) = param.type {
                for choice in choices {
                    do throws(GStreamerError) { try element.set(b.property, .string(choice)) } catch {
                        throw file.error(param.line, "parameter \(param.name): \(error.message) (\(element.factoryName ?? "?")), yet it is one of its choices")
                    }
                }
            }
            let value: PropertyValue
            if param.type == .outputPath || (param.type == .inputPath && part.outputs[param.name] != nil) {
                guard let v = part.outputs[param.name] else {
                    if param.required && !checkOnly { throw file.error(param.line, "missing required parameter \(param.name) (\(param.help))") }
                    continue
                }
                value = v
            } else if let v = part.values[param.name] ?? param.defaultValue {
                value = try propertyValue(v, for: element, property: b.property)
            } else if param.required && !checkOnly {
                throw file.error(param.line, "missing required parameter \(param.name) (\(param.help))")
            } else {
                continue
            }
            do {
                try element.set(b.property, value)
            } catch {
                throw GpickError(.input, "\(file.name): parameter \(param.name): \(error.message)")
            }
        }
    }

    /// Checks a file completely (used by `gpick pipelines check` and before running anything):
    /// builds it with its audio path, without requiring output or required values.
    public static func validate(_ file: PipelineFile, policy: PipelinePolicy = .init()) async throws(GpickError) {
        try await OffPool.run { () throws(GpickError) in try validate(file, policy: policy) }
    }

    @available(*, noasync, message: "it parses (GStreamer's global lock, plugin loading): await the async overload")
    public static func validate(_ file: PipelineFile, policy: PipelinePolicy = .init()) throws(GpickError) {
        if let (branch, sender) = file.sendingParts(audio: file.sendAudio != nil) {
            try validate(branch, policy: policy)
            let built = try buildSender(sender, values: [:], checkOnly: true)
            if let sendAudio = file.sendAudio, !(built.element(named: "asrc").map { (try? AppSrc($0)) != nil } ?? false) {
                throw file.error(sendAudio.line, "the send's audio starts with an appsrc named \"asrc\" (the branch's sound is pushed into it)")
            }
            guard file.pipeline.value.contains("appsink") else {
                throw file.error(file.pipeline.line, "a branch with a send ends in an appsink named \"sink\" (what it gives is sent)")
            }
            return
        }
        _ = try build(file, audio: file.audio != nil, policy: policy,
                      asPipeline: file.kind == .encoder || file.kind == .pipeline, checkOnly: true)
        if let input = file.input {
            let bin = try compose(input.value, parts: [Part(file)], policy: policy, asPipeline: false, checkOnly: true, checkTaps: false)
            guard bin.element(named: "format") != nil else {
                throw file.error(input.line, "the input stage needs an element named \"format\" (a capsfilter: the session sets its caps)")
            }
        }
        if let media = file.media {
            // Parsed as gst-rtsp-server will parse it, every element checked; its payloaders send
            // nothing anywhere by themselves (the server does), so the network policy is not asked.
            // Its own elements only: the file's bindings and taps are the branch's.
            var mediaPart = file
            mediaPart.bindings = []
            mediaPart.taps = []
            let text = [media.value, file.mediaAudio?.value].compactMap { $0 }.joined(separator: " ")
            let bin = try compose(text, parts: [Part(mediaPart)], policy: PipelinePolicy(allowNetwork: true),
                                  asPipeline: false, checkOnly: true, checkTaps: false)
            guard let src = bin.element(named: "src"), (try? AppSrc(src)) != nil else {
                throw file.error(media.line, "the media starts with an appsrc named \"src\" (the branch's frames are pushed into it)")
            }
            if let mediaAudio = file.mediaAudio, !(bin.element(named: "asrc").map { (try? AppSrc($0)) != nil } ?? false) {
                throw file.error(mediaAudio.line, "the media's audio starts with an appsrc named \"asrc\" (the branch's sound is pushed into it)")
            }
            guard file.pipeline.value.contains("appsink") else {
                throw file.error(file.pipeline.line, "a branch with a media ends in an appsink named \"sink\" (what it gives goes to the media)")
            }
        }
        if file.kind == .session {
            let bin = try build(file, audio: false, asPipeline: false, checkOnly: true)
            guard let feed = bin.element(named: "feed"), (try? AppSrc(feed)) != nil else {
                throw file.error(file.pipeline.line, "a session pipeline starts with an appsrc named \"feed\" (the switch pushes frames into it)")
            }
            for name in ["video", "frames"] where bin.element(named: name) == nil {
                throw file.error(file.pipeline.line, "a session pipeline needs an element named \"\(name)\" (\(name == "video" ? "the video tee outputs attach to" : "the retained-frame appsink"))")
            }
        }
    }

    /// A file's sender (from `sendingParts`) as a pipeline: an appsrc named `src` first, a network
    /// sink named `out` last, which sends where the user asked (so the network policy is not asked).
    @available(*, noasync, message: "it parses (GStreamer's global lock, plugin loading): await the async overload")
    static func buildSender(_ sender: PipelineFile, values: [String: Parameter.Value], checkOnly: Bool = false) throws(GpickError) -> Pipeline {
        let bin = try compose(sender.pipeline.value, parts: [Part(sender, values: values)], policy: PipelinePolicy(allowNetwork: true),
                              asPipeline: true, checkOnly: checkOnly, checkTaps: false)
        guard let pipeline = bin as? Pipeline else { throw sender.error(sender.pipeline.line, "the send part must be one pipeline") }
        guard let src = bin.element(named: "src"), (try? AppSrc(src)) != nil else {
            throw sender.error(sender.pipeline.line, "the send part starts with an appsrc named \"src\" (the branch's frames are pushed into it)")
        }
        guard let out = bin.element(named: "out"), out.hasProperty("uri") || out.hasProperty("location") else {
            throw sender.error(sender.pipeline.line, "the send part ends in a network sink named \"out\" with a uri or location property")
        }
        return pipeline
    }

    static func propertyNames(_ element: Element) throws -> [String] {
        ["name"] + (try element.propertyNames())
    }

    /// Converts a checked parameter value to the property's type. Durations become nanoseconds for
    /// 64-bit time properties and seconds otherwise.
    static func propertyValue(_ v: Parameter.Value, for element: Element, property: String) throws(GpickError) -> PropertyValue {
        switch v {
        case .int(let i): return .int(i)
        case .number(let d): return .double(d)
        case .fraction(let n, let d): return .fraction(n, d)
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .duration(let s):
            let type = (try? element.propertyInfo(property).typeName) ?? ""
            switch type {
            case "guint64", "gint64": return .int(Int64(s * 1e9))
            case "gdouble", "gfloat": return .double(s)
            default: return .int(Int64(s.rounded()))
            }
        }
    }

    static func checkTaps(_ file: PipelineFile, in bin: Bin, text: String) throws(GpickError) {
        for tap in file.taps {
            // A tap of the audio part is absent when the pipeline was built without sound.
            if let audio = file.audio?.value, LaunchLine.nameRange(tap.value.element, in: audio) != nil,
               LaunchLine.nameRange(tap.value.element, in: text) == nil { continue }
            guard let e = bin.element(named: tap.value.element) else {
                throw file.error(tap.line, "tap \(tap.value.name): no element named \"\(tap.value.element)\"")
            }
            let factory = e.factoryName ?? "?"
            let ok = tap.value.role == .appsink ? (try? AppSink(e)) != nil : (try? AppSrc(e)) != nil
            guard ok else {
                throw file.error(tap.line, "tap \(tap.value.name): element \"\(tap.value.element)\" is a \(factory), not an \(tap.value.role.rawValue)")
            }
        }
    }

    static func checkPolicy(_ file: PipelineFile, in bin: Bin, policy: PipelinePolicy) throws(GpickError) {
        let boundOutputs = Set(file.bindings.filter { file.parameter($0.parameter)?.type == .outputPath }
            .map { "\($0.element).\($0.property)" })
        for e in bin.children {
            let factory = e.factoryName ?? ""
            // Found only for a refusal: scanning the text for every element is most of this check's cost.
            var line: Int { lineOf(e.name, in: file) ?? lineOf(factory, in: file) ?? file.pipeline.line }
            if !policy.allowNetwork, networkPrefixes.contains(where: { factory.hasPrefix($0) }) {
                throw file.error(line, "element \(factory) sends data off the machine; refused", remedy: .allowNetwork)
            }
            if let prop = fileSinks[factory], !policy.allowPaths, !boundOutputs.contains("\(e.name).\(prop)") {
                throw file.error(line, "element \(factory) writes to a path not given by an output-path parameter; refused",
                                 remedy: .bindOrAllowPaths(binding: "\(e.name).\(prop)"))
            }
        }
    }

    /// The line of the file where `word` first appears in the description.
    static func lineOf(_ word: String, in file: PipelineFile) -> Int? {
        guard !word.isEmpty else { return nil }
        for (base, text) in [(file.pipeline.line, file.pipeline.value), (file.audio?.line ?? 0, file.audio?.value ?? ""),
                             (file.input?.line ?? 0, file.input?.value ?? "")] {
            for (i, l) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where containsWord(l, word) {
                return base + i
            }
        }
        return nil
    }

    /// Whether `word` occurs in `line` as a whole token (element and property names).
    static func containsWord(_ line: Substring, _ word: String) -> Bool {
        func isNameChar(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "-" || c == "_" }
        var rest = line[...]
        while let r = rest.firstRange(of: word) {
            let before = r.lowerBound == line.startIndex ? nil : line[line.index(before: r.lowerBound)]
            let after = r.upperBound == line.endIndex ? nil : line[r.upperBound]
            if !(before.map(isNameChar) ?? false) && !(after.map(isNameChar) ?? false) { return true }
            rest = line[r.upperBound...]
        }
        return false
    }

    /// Names what GStreamer's parser refused and where, from the parse context (missing
    /// elements) and the description's own structure (which element lacks which property),
    /// never from the wording of GStreamer's message.
    static func parseError(_ error: GStreamerError, files: [PipelineFile]) -> GpickError {
        func named(_ word: String) -> PipelineFile { files.first { lineOf(word, in: $0) != nil } ?? files[0] }
        if error.isParseNoSuchElement, let name = error.missingElements.first {
            let file = named(name)
            if let package = ElementPackages.package(for: name) {
                return GpickError(.plugin, "missing GStreamer element \"\(name)\" (needed by \(file.path):\(lineOf(name, in: file) ?? file.pipeline.line)); install it with: apt-get install \(package)")
            }
            let hint = Suggest.closest(to: name, in: Gst.elementFactoryNames()).map { " (did you mean \"\($0)\"?)" } ?? ""
            return file.error(lineOf(name, in: file) ?? file.pipeline.line, "unknown element \"\(name)\"\(hint)")
        }
        if error.isParseNoSuchProperty {
            for file in files {
                let texts = [file.pipeline.value, file.audio?.value ?? "", file.input?.value ?? ""]
                for (factory, props) in texts.flatMap(LaunchDescription.elements(in:)) {
                    guard let e = try? Element.make(factory) else { continue }
                    for p in props where p != "name" && !e.hasProperty(p) {
                        let known = (try? propertyNames(e)) ?? []
                        let hint = Suggest.closest(to: p, in: known).map { " (did you mean \"\($0)\"?)" } ?? ""
                        return file.error(lineOf(p, in: file) ?? file.pipeline.line, "element \"\(factory)\" has no property \"\(p)\"\(hint)")
                    }
                }
            }
        }
        return files[0].error(files[0].pipeline.line, "invalid pipeline: \(error.message)")
    }
}

