import CV4L2
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where frames come from: `auto | test[:PATTERN][?OPTIONS] | v4l2:/dev/videoN[?mode=MODE] |
/// pipewire[:NAME|ID] | libcamera[:NAME] | file:PATH`.
public enum SourceSpec: Sendable, Equatable, CustomStringConvertible {
    public struct TestOptions: Sendable, Equatable {
        public var pattern = "smpte"
        /// Frame-stamp source id (0…15).
        public var id = 1
        /// Post a source error after this many frames (simulates an unplugged camera).
        public var failAfter: Int?
        /// Send nothing more after this many frames, with no error (a hung driver, a camera gone
        /// silent): what a service's watchdog must notice.
        public var stallAfter: Int?
        /// Seconds the source holds back its first frame (a camera's start-up delay, made real).
        public var warmup: Double?
        /// Seconds each frame takes from its capture to the session (a USB camera's transfer and
        /// decoding, made real): frames keep their capture times and arrive this much later.
        public var latency: Double?
        /// Frame ranges (by stamp index, end excluded) in which a bright block crosses the
        /// picture: motion that starts and stops at known frames, for what reacts to motion.
        public var moves: [Range<Int>] = []
        public init() {}
    }
    case auto
    case test(TestOptions)
    /// A V4L2 device; `mode` chosen by hand (`?mode=1280x720@60`), else gpick chooses it.
    case v4l2(device: String, mode: ModeRequest? = nil)
    /// A PipeWire camera node by name or serial; nil: the first one PipeWire lists.
    case pipewire(target: String?)
    /// A libcamera camera by its name (id); nil: the first one libcamera finds.
    case libcamera(name: String?)
    case file(path: String)

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .test(let o):
            var opts: [String] = []
            if o.id != 1 { opts.append("id=\(o.id)") }
            if let f = o.failAfter { opts.append("fail-after=\(f)") }
            if let f = o.stallAfter { opts.append("stall-after=\(f)") }
            if let w = o.warmup { opts.append("warmup=\(w)") }
            if let l = o.latency { opts.append("latency=\(l)") }
            if !o.moves.isEmpty { opts.append("moves=" + o.moves.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")) }
            return "test:\(o.pattern)" + (opts.isEmpty ? "" : "?" + opts.joined(separator: "&"))
        case .v4l2(let d, let mode): return "v4l2:\(d)" + (mode.map { "?mode=\($0)" } ?? "")
        case .pipewire(let t): return t.map { "pipewire:\($0)" } ?? "pipewire"
        case .libcamera(let n): return n.map { "libcamera:\($0)" } ?? "libcamera"
        case .file(let p): return "file:\(p)"
        }
    }

    public var isTest: Bool { if case .test = self { return true } else { return false } }
    public var isCamera: Bool { cameraKind != nil }

    /// The kind of camera this opens, if it is one.
    public var cameraKind: Camera.Kind? {
        switch self {
        case .v4l2: .v4l2
        case .pipewire: .pipewire
        case .libcamera: .libcamera
        case .auto, .test, .file: nil
        }
    }

    /// What the camera's element is pointed at: a device path, a node, a camera name.
    public var target: String? {
        switch self {
        case .v4l2(let d, _): d
        case .pipewire(let t): t
        case .libcamera(let n): n
        case .auto, .test, .file: nil
        }
    }

    /// Parses the `--source` text; the pattern is checked against `patterns` when given.
    public static func parse(_ text: String, patterns: [String]? = nil) throws(GpickError) -> SourceSpec {
        if text == "auto" { return .auto }
        if text == "test" || text.hasPrefix("test:") || text.hasPrefix("test?") {
            var o = TestOptions()
            var rest = Substring(text.dropFirst(4))
            if rest.hasPrefix(":") { rest = rest.dropFirst() }
            let (patternPart, query) = rest.firstIndex(of: "?").map { (rest[..<$0], rest[rest.index(after: $0)...]) } ?? (rest, "")
            if !patternPart.isEmpty { o.pattern = String(patternPart) }
            if let patterns, !patterns.contains(o.pattern) {
                let hint = Suggest.closest(to: o.pattern, in: patterns).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw GpickError(.usage, "unknown test pattern \"\(o.pattern)\" in \(text)\(hint)")
            }
            for pair in query.split(separator: "&") where !pair.isEmpty {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { throw GpickError(.usage, "test source option \"\(pair)\" must be NAME=VALUE") }
                switch kv[0] {
                case "id":
                    guard let v = Int(kv[1]), (0...15).contains(v) else {
                        throw GpickError(.usage, "test source id \"\(kv[1])\" must be 0…15")
                    }
                    o.id = v
                case "fail-after":
                    guard let v = Int(kv[1]), v >= 0 else {
                        throw GpickError(.usage, "test source fail-after \"\(kv[1])\" must be a frame count ≥ 0")
                    }
                    o.failAfter = v
                case "stall-after":
                    guard let v = Int(kv[1]), v >= 0 else {
                        throw GpickError(.usage, "test source stall-after \"\(kv[1])\" must be a frame count ≥ 0")
                    }
                    o.stallAfter = v
                case "warmup":
                    guard let v = DurationText.parse(kv[1]), v <= 60 else {
                        throw GpickError(.usage, "test source warmup \"\(kv[1])\" must be a duration of 0…60 s (e.g. 0.5, 500ms, 2s)")
                    }
                    o.warmup = v
                case "latency":
                    guard let v = DurationText.parse(kv[1]), v <= 5 else {
                        throw GpickError(.usage, "test source latency \"\(kv[1])\" must be a duration of 0…5 s (e.g. 0.2, 200ms)")
                    }
                    o.latency = v
                case "moves":
                    o.moves = try kv[1].split(separator: ",", omittingEmptySubsequences: false).map { (r) throws(GpickError) -> Range<Int> in
                        let ends = r.split(separator: "-", omittingEmptySubsequences: false)
                        guard ends.count == 2, let a = Int(ends[0]), let b = Int(ends[1]), a >= 0, b > a else {
                            throw GpickError(.usage, "test source moves \"\(kv[1])\" must be frame ranges FROM-TO, e.g. 90-150,300-330")
                        }
                        return a..<b
                    }
                default:
                    let hint = Suggest.closest(to: kv[0], in: ["id", "fail-after", "stall-after", "warmup", "latency", "moves"]).map { " (did you mean \"\($0)\"?)" } ?? ""
                    throw GpickError(.usage, "unknown test source option \"\(kv[0])\"\(hint)")
                }
            }
            return .test(o)
        }
        if text.hasPrefix("v4l2:") {
            var dev = String(text.dropFirst(5))
            var mode: ModeRequest? = nil
            // ?mode=MODE after the path: the camera's mode by hand, as --mode gives it.
            if let q = dev.ranges(of: "?mode=").last {
                let value = String(dev[q.upperBound...])
                do throws(GpickError) { mode = try ModeRequest(parsing: value) } catch { throw GpickError(.usage, "\(text): \(error.message)") }
                dev = String(dev[..<q.lowerBound])
            }
            guard dev.hasPrefix("/dev/") else { throw GpickError(.usage, "v4l2 source \"\(dev)\" must be a device path like /dev/video0") }
            return .v4l2(device: dev, mode: mode)
        }
        for (scheme, make) in [("pipewire", { SourceSpec.pipewire(target: $0) }), ("libcamera", { SourceSpec.libcamera(name: $0) })]
            as [(String, (String?) -> SourceSpec)] {
            if text == scheme { return make(nil) }
            if text.hasPrefix(scheme + ":") {
                // Literal after the first colon: libcamera names hold slashes, colons and @.
                let name = String(text.dropFirst(scheme.count + 1))
                guard !name.isEmpty else { throw GpickError(.usage, "\(scheme) source needs a camera after the colon, or none: \(scheme)[:NAME]") }
                return make(name)
            }
        }
        if text.hasPrefix("file:") {
            let p = String(text.dropFirst(5))
            guard !p.isEmpty else { throw GpickError(.usage, "file source needs a path: file:PATH") }
            return .file(path: p)
        }
        let scheme = text.split(separator: ":").first.map(String.init) ?? text
        throw GpickError(.usage, "unknown source scheme \"\(scheme)\" in \(text) (use auto, test[:PATTERN][?id=N&fail-after=N&stall-after=N&warmup=SECONDS&latency=SECONDS&moves=FROM-TO,…], v4l2:/dev/videoN[?mode=MODE], pipewire[:NAME|ID], libcamera[:NAME] or file:PATH)")
    }

    /// Checks a camera or file before any pipeline starts, naming it in the message.
    public func checkAccessible() throws(GpickError) {
        switch self {
        case .v4l2(let dev, _):
            guard let st = fileStatus(dev) else { throw GpickError(.device, "no such camera: \(dev)") }
            guard (st.st_mode & S_IFMT) == S_IFCHR else { throw GpickError(.device, "\(dev) is not a camera device") }
            guard access(dev, R_OK | W_OK) == 0 else {
                throw GpickError(.device, "permission denied opening \(dev): add your user to the video group (sudo usermod -aG video $USER) and log in again")
            }
            try Self.checkCaptures(dev)
        case .file(let p):
            guard FileManager.default.isReadableFile(atPath: p) else {
                throw GpickError(.input, FileManager.default.fileExists(atPath: p) ? "cannot read \(p): permission denied" : "no such file: \(p)")
            }
        case .auto, .test, .pipewire, .libcamera:
            break  // a PipeWire or libcamera camera is checked by asking its provider (CameraDirectory)
        }
    }
}

extension SourceSpec {
    /// A V4L2 node that captures video, asked of the driver (VIDIOC_QUERYCAP): not any character
    /// device (/dev/null would otherwise reach v4l2src, whose refusal names no device), and not
    /// the metadata node every UVC camera has beside its video one.
    static func checkCaptures(_ dev: String) throws(GpickError) {
        let fd = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return }  // busy or gone: v4l2src's own error names it when it opens
        defer { close(fd) }
        var card = [CChar](repeating: 0, count: 64)
        var captures: Int32 = 0
        guard cv4l2_query_capture(fd, &card, Int32(card.count), &captures) == 0 else {
            throw GpickError(.device, "\(dev) is not a camera (not a V4L2 device)")
        }
        if captures == 0 {
            let name = String(decoding: card.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw GpickError(.device, "\(dev)\(name.isEmpty ? "" : " (\(name))") captures no video (a UVC camera's second node carries only metadata): use the node that gpick devices lists")
        }
    }
}

/// Which microphone, if any.
public enum AudioSpec: String, Sendable, CaseIterable {
    case none, test, auto
}
