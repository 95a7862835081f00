import FoundationEssentials
import Glibc

/// Reads pipeline files. Everything structural is checked here, before GStreamer sees the text;
/// `PipelineValidator` then checks elements, properties, bindings and taps against the registry.
public enum PipelineLoader {
    static let topKeys = ["name", "kind", "description", "parameters", "pipeline", "input", "audio", "bindings", "taps", "window-sinks", "media", "media-audio", "send", "send-audio"]
    static let parameterKeys = ["type", "default", "min", "max", "choices", "required", "help"]

    public static func load(path: String) throws(GpickError) -> PipelineFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GpickError(.input, "\(path): cannot read pipeline file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GpickError(.pipeline, "\(path):1: not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    public static func parse(_ text: String, path: String) throws(GpickError) -> PipelineFile {
        let composed: YAMLNode?
        do {
            // Every value is read as text and converted where a number is expected.
            composed = try YAMLComposer.compose(text)
        } catch {
            throw GpickError(.pipeline, "\(path):\(error.line): YAML syntax error: \(error.problem)")
        }
        guard let root = composed else { throw GpickError(.pipeline, "\(path):1: empty pipeline file") }
        func fail(_ node: YAMLNode?, _ message: String) -> GpickError {
            GpickError(.pipeline, "\(path):\(line(node)): \(message)")
        }
        guard let map = root.mapping else { throw fail(root, "expected a mapping with name, kind, pipeline…") }
        for (k, _) in map {
            let key = k.string ?? ""
            if !topKeys.contains(key) {
                let hint = Suggest.closest(to: key, in: topKeys).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw fail(k, "unknown key \"\(key)\"\(hint)")
            }
        }
        func string(_ key: String, required: Bool) throws(GpickError) -> PipelineFile.Located<String>? {
            guard let n = map[key] else {
                if required { throw fail(root, "missing required key \"\(key)\"") }
                return nil
            }
            guard let s = n.string else { throw fail(n, "\"\(key)\" must be text") }
            return .init(value: s.trimmed(), line: line(n))
        }
        let name = try string("name", required: true)!
        let kindText = try string("kind", required: true)!
        guard let kind = PipelineFile.Kind(rawValue: kindText.value) else {
            throw fail(map["kind"], "kind \"\(kindText.value)\" is not one of \(PipelineFile.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let pipeline = try string("pipeline", required: true)!
        // A block scalar's text starts on the line after its key.
        let pipelineLine = map["pipeline"].map { n in n.isBlockScalar ? line(n) + 1 : line(n) } ?? 1
        let audio = try string("audio", required: false)
        let audioLine = map["audio"].map { n in n.isBlockScalar ? line(n) + 1 : line(n) }
        let summary = try string("description", required: false)?.value ?? ""
        let input = try string("input", required: false)
        let inputLine = map["input"].map { n in n.isBlockScalar ? line(n) + 1 : line(n) }
        if kind == .session, input == nil {
            throw fail(root, "a session file needs \"input\": the stage each source passes through (convert, scale, an element named format)")
        }
        if kind != .session, let n = map["input"] {
            throw fail(n, "\"input\" belongs in session files only")
        }
        let media = try string("media", required: false)
        let mediaLine = map["media"].map { n in n.isBlockScalar ? line(n) + 1 : line(n) }
        if let media, let n = map["media"] {
            guard kind == .branch else { throw fail(n, "\"media\" belongs in branch files only") }
            guard LaunchLine.nameRange("src", in: media.value) != nil, LaunchLine.nameRange("pay0", in: media.value) != nil else {
                throw fail(n, "a branch's media needs an appsrc named \"src\" and a payloader named \"pay0\"")
            }
        }
        let mediaAudio = try string("media-audio", required: false)
        let mediaAudioLine = map["media-audio"].map { n in n.isBlockScalar ? line(n) + 1 : line(n) }
        if let mediaAudio, let n = map["media-audio"] {
            guard media != nil else { throw fail(n, "\"media-audio\" is the audio of a \"media\": the file has none") }
            guard let audio, LaunchLine.nameRange("asink", in: audio.value) != nil else {
                throw fail(n, "\"media-audio\" is fed by the branch's audio path, which ends in an appsink named \"asink\"")
            }
            guard LaunchLine.nameRange("asrc", in: mediaAudio.value) != nil, LaunchLine.nameRange("pay1", in: mediaAudio.value) != nil else {
                throw fail(n, "a media's audio needs an appsrc named \"asrc\" and a payloader named \"pay1\"")
            }
        }
        let send = try string("send", required: false)
        let sendLine = map["send"].map { n in n.isBlockScalar ? line(n) + 1 : line(n) }
        if let send, let n = map["send"] {
            guard kind == .branch else { throw fail(n, "\"send\" belongs in branch files only") }
            guard media == nil else { throw fail(n, "a branch is served (media) or published (send), not both") }
            guard LaunchLine.nameRange("src", in: send.value) != nil, LaunchLine.nameRange("out", in: send.value) != nil else {
                throw fail(n, "a branch's send needs an appsrc named \"src\" and a network sink named \"out\"")
            }
        }

        let sendAudio = try string("send-audio", required: false)
        let sendAudioLine = map["send-audio"].map { n in n.isBlockScalar ? line(n) + 1 : line(n) }
        if let sendAudio, let n = map["send-audio"] {
            guard send != nil else { throw fail(n, "\"send-audio\" is the audio of a \"send\": the file has none") }
            guard let audio, LaunchLine.nameRange("asink", in: audio.value) != nil else {
                throw fail(n, "\"send-audio\" is fed by the branch's audio path, which ends in an appsink named \"asink\"")
            }
            guard LaunchLine.nameRange("asrc", in: sendAudio.value) != nil else {
                throw fail(n, "a send's audio needs an appsrc named \"asrc\"")
            }
        }

        var parameters: [Parameter] = []
        if let pnode = map["parameters"] {
            guard let pmap = pnode.mapping else { throw fail(pnode, "\"parameters\" must be a mapping of name → {type, default, help}") }
            for (k, v) in pmap {
                parameters.append(try parameter(k, v, path: path))
            }
        }
        var bindings: [PipelineFile.Binding] = []
        if let bnode = map["bindings"] {
            guard let bmap = bnode.mapping else { throw fail(bnode, "\"bindings\" must be a mapping of parameter → element.property") }
            for (k, v) in bmap {
                let pname = k.string ?? ""
                guard parameters.contains(where: { $0.name == pname }) else {
                    throw fail(k, "binding for unknown parameter \"\(pname)\"")
                }
                let targets = v.sequence ?? [v]
                for t in targets {
                    guard let s = t.string, let dot = s.firstIndex(of: "."), dot != s.startIndex, s.index(after: dot) != s.endIndex else {
                        throw fail(t, "binding \"\(t.string ?? "?")\" must be ELEMENT.PROPERTY")
                    }
                    bindings.append(.init(parameter: pname, element: String(s[..<dot]), property: String(s[s.index(after: dot)...]), line: line(t)))
                }
            }
        }
        var taps: [PipelineFile.Located<PipelineFile.Tap>] = []
        if let tnode = map["taps"] {
            guard let tmap = tnode.mapping else { throw fail(tnode, "\"taps\" must be a mapping of tap → {element, role}") }
            for (k, v) in tmap {
                guard let tm = v.mapping, let el = tm["element"]?.string, let roleText = tm["role"]?.string else {
                    throw fail(v, "tap \"\(k.string ?? "")\" needs element and role (appsink or appsrc)")
                }
                for (tk, _) in tm where !["element", "role", "caps"].contains(tk.string ?? "") {
                    throw fail(tk, "unknown key \"\(tk.string ?? "")\" in tap (element, role, caps)")
                }
                guard let role = PipelineFile.Tap.Role(rawValue: roleText) else {
                    throw fail(tm["role"], "tap role \"\(roleText)\" must be appsink or appsrc")
                }
                taps.append(.init(value: .init(name: k.string ?? "", element: el, role: role, caps: tm["caps"]?.string), line: line(k)))
            }
        }
        var windowSinks: PipelineFile.WindowSinks?
        if let wnode = map["window-sinks"] {
            guard kind == .branch else { throw fail(wnode, "\"window-sinks\" belongs in branch files only") }
            guard let wmap = wnode.mapping else { throw fail(wnode, "\"window-sinks\" must be a mapping of wayland and x11 → [sink, …]") }
            var lists: [String: [String]] = [:]
            for (k, v) in wmap {
                let system = k.string ?? ""
                guard ["wayland", "x11"].contains(system) else { throw fail(k, "unknown window system \"\(system)\" (use wayland and x11)") }
                guard let seq = v.sequence, !seq.isEmpty else { throw fail(v, "window-sinks \(system) must be a list of element names") }
                var names: [String] = []
                for n in seq {
                    guard let name = n.string, LaunchDescription.isFactoryName(name) else {
                        throw fail(n, "\"\(n.string ?? "?")\" is not an element name")
                    }
                    names.append(name)
                }
                lists[system] = names
            }
            guard LaunchLine.nameRange("convert", in: pipeline.value) != nil else {
                throw fail(wnode, "a branch with window-sinks needs an element named \"convert\" (the sink is linked after it)")
            }
            windowSinks = .init(wayland: lists["wayland"] ?? [], x11: lists["x11"] ?? [], line: line(wnode))
        }
        for p in parameters where p.required && p.defaultValue != nil {
            throw GpickError(.pipeline, "\(path):\(p.line): parameter \(p.name) is required and has a default; choose one")
        }
        return PipelineFile(path: path, name: name.value, kind: kind, summary: summary, parameters: parameters,
                            pipeline: .init(value: pipeline.value, line: pipelineLine),
                            audio: audio.map { .init(value: $0.value, line: audioLine ?? $0.line) },
                            input: input.map { .init(value: $0.value, line: inputLine ?? $0.line) },
                            bindings: bindings, taps: taps, windowSinks: windowSinks,
                            media: media.map { .init(value: $0.value, line: mediaLine ?? $0.line) },
                            mediaAudio: mediaAudio.map { .init(value: $0.value, line: mediaAudioLine ?? $0.line) },
                            send: send.map { .init(value: $0.value, line: sendLine ?? $0.line) },
                            sendAudio: sendAudio.map { .init(value: $0.value, line: sendAudioLine ?? $0.line) })
    }

    private static func parameter(_ k: YAMLNode, _ v: YAMLNode, path: String) throws(GpickError) -> Parameter {
        func fail(_ node: YAMLNode?, _ message: String) -> GpickError { GpickError(.pipeline, "\(path):\(line(node)): \(message)") }
        let name = k.string ?? ""
        // Plain character checks: a regex here would load ICU on every start.
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first),
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }) else {
            throw fail(k, "parameter name \"\(name)\" must be lower-case letters, digits and dashes")
        }
        guard let m = v.mapping else { throw fail(v, "parameter \(name) must be a mapping with type, default, help") }
        for (key, _) in m where !parameterKeys.contains(key.string ?? "") {
            let hint = Suggest.closest(to: key.string ?? "", in: parameterKeys).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw fail(key, "unknown key \"\(key.string ?? "")\" in parameter \(name)\(hint)")
        }
        guard let typeText = m["type"]?.string else { throw fail(v, "parameter \(name) has no type") }
        func number(_ key: String) throws(GpickError) -> Double? {
            guard let n = m[key] else { return nil }
            guard let d = n.float ?? n.int.map(Double.init) else { throw fail(n, "\(key) of \(name) must be a number") }
            return d
        }
        let type: Parameter.ParamType
        switch typeText {
        case "int":
            let lo = try number("min").map { Int64($0) } ?? Int64(Int32.min)
            let hi = try number("max").map { Int64($0) } ?? Int64(Int32.max)
            guard lo <= hi else { throw fail(m["min"], "min of \(name) is above its max") }
            type = .int(min: lo, max: hi)
        case "number":
            let lo = try number("min") ?? -Double.greatestFiniteMagnitude
            let hi = try number("max") ?? Double.greatestFiniteMagnitude
            guard lo <= hi else { throw fail(m["min"], "min of \(name) is above its max") }
            type = .number(min: lo, max: hi)
        case "fraction": type = .fraction
        case "enum":
            guard let seq = m["choices"]?.sequence, !seq.isEmpty else { throw fail(v, "enum parameter \(name) needs choices") }
            type = .enumeration(seq.compactMap { $0.string })
        case "bool": type = .bool
        case "string": type = .string
        case "duration": type = .duration
        case "source": type = .source
        case "output-path": type = .outputPath
        case "input-path": type = .inputPath
        default:
            let all = ["int", "number", "fraction", "enum", "bool", "string", "duration", "source", "output-path", "input-path"]
            let hint = Suggest.closest(to: typeText, in: all).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw fail(m["type"], "parameter \(name) has unknown type \"\(typeText)\"\(hint)")
        }
        var p = Parameter(name: name, type: type, defaultValue: nil, required: m["required"]?.bool ?? false,
                          help: m["help"]?.string ?? "", line: line(k))
        if let d = m["default"] {
            guard let text = d.string else { throw fail(d, "default of \(name) must be a scalar") }
            do { p.defaultValue = try p.parse(text) } catch { throw fail(d, "default of \(name): \(error.message)") }
        }
        return p
    }

    static func line(_ node: YAMLNode?) -> Int { node?.line ?? 1 }
}
