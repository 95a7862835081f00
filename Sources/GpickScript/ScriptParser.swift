import FoundationEssentials
import GpickKit
import Glibc

/// The script language: one command per line, shared by `gpick script FILE` and `gpick session`.
public enum ScriptParser {
    public static let commands = ["source", "preview", "serve", "publish", "snap", "burst", "record", "wait", "set", "flip",
                                  "suspend", "resume", "live", "mode", "countdown", "expect", "echo", "zone", "mask", "on", "end", "timelapse", "clips"]

    /// Parses a whole script; the first syntax error stops it, naming line and column.
    public static func parse(_ text: String) throws(ScriptSyntaxError) -> [ScriptStatement] {
        var out: [ScriptStatement] = []
        var zones: Set<String> = []
        var blocks = ScriptBlocks()
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard let s = try parseLine(String(line), lineNumber: i + 1) else { continue }
            // A zone is named before a line asks for it, so the whole script is checked at once.
            func unknown(_ zone: String) -> ScriptSyntaxError {
                let column = (try? ScriptLexer.tokens(s.text, lineNumber: i + 1))?.dropFirst(2).last { $0.text == zone }?.column ?? 1
                return ScriptSyntaxError(line: i + 1, column: column, message: "no zone \"\(zone)\" before this line (zone NAME x1,y1 x2,y2 x3,y3 …)")
            }
            switch s.command {
            case .zone(let name, _): zones.insert(name)
            case .waitMotion(let zone?, _, _) where !zones.contains(zone), .onMotion(let zone?, _, _) where !zones.contains(zone):
                throw unknown(zone)
            case .clipsStart(_, let clip) where clip.zone.map({ !zones.contains($0) }) == true:
                throw unknown(clip.zone ?? "")
            default: break
            }
            if let ready = try blocks.feed(s) { out.append(ready) }
        }
        try blocks.finish()
        return out
    }

    /// Parses one line (nil for blank or comment lines).
    public static func parseLine(_ line: String, lineNumber: Int) throws(ScriptSyntaxError) -> ScriptStatement? {
        let t = try ScriptLexer.tokens(line, lineNumber: lineNumber)
        guard let head = t.first else { return nil }
        func err(_ tok: ScriptToken?, _ m: String) -> ScriptSyntaxError {
            ScriptSyntaxError(line: lineNumber, column: tok?.column ?? (line.count + 1), message: m)
        }
        func arity(_ n: ClosedRange<Int>, _ usage: String) throws(ScriptSyntaxError) {
            if t.count - 1 < n.lowerBound { throw err(nil, "\(head.text) needs \(usage)") }
            if t.count - 1 > n.upperBound { throw err(t[n.upperBound + 1], "unexpected \"\(t[n.upperBound + 1].text)\"; usage: \(head.text) \(usage)") }
        }
        func duration(_ tok: ScriptToken) throws(ScriptSyntaxError) -> Double {
            guard let d = DurationText.parse(tok.text) else { throw err(tok, "\"\(tok.text)\" is not a duration (like 1.5s, 500ms, 2m)") }
            return d
        }
        func int(_ tok: ScriptToken, _ what: String, min: Int = 1) throws(ScriptSyntaxError) -> Int {
            guard let v = Int(tok.text), v >= min else { throw err(tok, "\(what) \"\(tok.text)\" must be a whole number ≥ \(min)") }
            return v
        }
        let cmd: ScriptCommand
        switch head.text {
        case "source":
            try arity(1...1, "SOURCE (test[:PATTERN], v4l2:/dev/videoN, file:PATH, auto)")
            cmd = .source(t[1].text)
        case "preview":
            try arity(1...2, "start [window|terminal|http] | stop")
            guard ["start", "stop"].contains(t[1].text) else { throw err(t[1], "preview takes start or stop, not \"\(t[1].text)\"") }
            var sink: PreviewSink?
            if t.count == 3 {
                guard t[1].text == "start" else { throw err(t[2], "preview stop takes nothing more") }
                guard let s = PreviewSink(rawValue: t[2].text) else { throw err(t[2], "preview sink \"\(t[2].text)\" is not window, terminal or http") }
                sink = s
            }
            cmd = .preview(start: t[1].text == "start", sink: sink)
        case "serve":
            try arity(1...2, "start [NAME] | stop")
            guard ["start", "stop"].contains(t[1].text) else { throw err(t[1], "serve takes start or stop, not \"\(t[1].text)\"") }
            if t.count == 3, t[1].text == "stop" { throw err(t[2], "serve stop takes nothing more") }
            cmd = .serve(start: t[1].text == "start", name: t.count == 3 ? t[2].text : nil)
        case "publish":
            try arity(1...2, "start URL | stop")
            switch (t[1].text, t.count) {
            case ("start", 3): cmd = .publish(start: true, url: t[2].text)
            case ("start", _): throw err(t[1], "publish start needs a URL: srt://HOST:PORT, rtmp://HOST/APP/KEY or rtsp://HOST/PATH")
            case ("stop", 2): cmd = .publish(start: false, url: nil)
            case ("stop", _): throw err(t[2], "publish stop takes nothing more")
            default: throw err(t[1], "publish takes start or stop, not \"\(t[1].text)\"")
            }
        case "snap":
            try arity(1...1, "FILE")
            cmd = .snap(t[1].text)
        case "burst":
            try arity(2...4, "N FILE [every K]")
            var every = 1
            if t.count > 3 {
                guard t[3].text == "every", t.count == 5 else { throw err(t[3], "expected \"every K\" after the file") }
                every = try int(t[4], "every")
            }
            cmd = .burst(count: try int(t[1], "burst count"), path: t[2].text, every: every)
        case "record":
            guard t.count >= 2 else { throw err(nil, "record needs start FILE, stop, or DURATION FILE") }
            switch t[1].text {
            case "start":
                guard t.count >= 3 else { throw err(nil, "record needs start FILE [split SECONDS [keep D] [keep-size S] [keep-free P%]]") }
                if t.count == 3 {
                    cmd = .recordStart(t[2].text)
                } else {
                    let (seconds, retention) = try loopOptions(Array(t.dropFirst(3)), duration, err)
                    cmd = .recordLoop(path: t[2].text, partSeconds: seconds, retention: retention)
                }
            case "stop":
                try arity(1...1, "stop")
                cmd = .recordStop
            default:
                try arity(2...2, "DURATION FILE")
                let d = try duration(t[1])
                guard d > 0 else { throw err(t[1], "record duration must be > 0") }
                cmd = .record(duration: d, path: t[2].text)
            }
        case "wait" where t.count >= 2 && t[1].text == "motion":
            var zone: String?, lasting = 0.0, timeout: Double?
            var i = 2
            while i < t.count {
                guard i + 1 < t.count else { throw err(t[i], "\(t[i].text) needs a value; usage: wait motion [in ZONE] [for DURATION] [timeout DURATION]") }
                switch t[i].text {
                case "in": zone = t[i + 1].text
                case "for": lasting = try duration(t[i + 1])
                case "timeout":
                    let d = try duration(t[i + 1])
                    guard d > 0 else { throw err(t[i + 1], "timeout must be > 0") }
                    timeout = d
                default: throw err(t[i], "unexpected \"\(t[i].text)\"; usage: wait motion [in ZONE] [for DURATION] [timeout DURATION]")
                }
                i += 2
            }
            cmd = .waitMotion(zone: zone, lasting: lasting, timeout: timeout)
        case "timelapse":
            let usage = "DURATION every INTERVAL FILE (like timelapse 8h every 10s lapse.mp4)"
            try arity(4...4, usage)
            guard t[2].text == "every" else { throw err(t[2], "expected \"every\"; usage: timelapse \(usage)") }
            let d = try duration(t[1]), every = try duration(t[3])
            guard every > 0 else { throw err(t[3], "the interval must be > 0") }
            guard d >= every else { throw err(t[1], "a timelapse of \(t[1].text) is shorter than its interval") }
            cmd = .timelapse(duration: d, every: every, path: t[4].text)
        case "on":
            let usage = "on motion [in ZONE] [cooldown DURATION], then its lines, then end"
            guard t.count >= 2 else { throw err(nil, "on needs what to react to: \(usage)") }
            guard t[1].text == "motion" else { throw err(t[1], "on reacts to motion, not \"\(t[1].text)\"; usage: \(usage)") }
            var zone: String?, cooldown = 0.0
            var i = 2
            while i < t.count {
                guard i + 1 < t.count else { throw err(t[i], "\(t[i].text) needs a value; usage: \(usage)") }
                switch t[i].text {
                case "in": zone = t[i + 1].text
                case "cooldown": cooldown = try duration(t[i + 1])
                default: throw err(t[i], "unexpected \"\(t[i].text)\"; usage: \(usage)")
                }
                i += 2
            }
            cmd = .onMotion(zone: zone, cooldown: cooldown, body: [])
        case "clips":
            let usage = "clips start NAME [pre D] [post D] [longest D] [in ZONE] [snap] [keep D] [keep-size S] [keep-free P%] | clips stop"
            guard t.count >= 2 else { throw err(nil, "clips needs start NAME or stop; usage: \(usage)") }
            switch t[1].text {
            case "stop":
                try arity(1...1, "stop")
                cmd = .clipsStop
            case "start":
                guard t.count >= 3 else { throw err(nil, "clips start needs a file name (like motion-%t.mp4); usage: \(usage)") }
                let name = t[2]
                guard let last = name.text.split(separator: "/").last, !name.text.hasSuffix("/") else {
                    throw err(name, "clips start needs a file name, not a folder (like door/motion-%t.mp4)")
                }
                do throws(GpickError) { try MotionClips.checkName(String(last)) } catch { throw err(name, error.message) }
                cmd = .clipsStart(name: name.text, clip: try clipOptions(Array(t.dropFirst(3)), usage, duration, err))
            default:
                throw err(t[1], "clips takes start or stop, not \"\(t[1].text)\"; usage: \(usage)")
            }
        case "end":
            try arity(0...0, "(it closes an on block)")
            cmd = .end
        case "wait":
            try arity(1...1, "DURATION | motion [in ZONE] [for DURATION] [timeout DURATION]")
            cmd = .wait(try duration(t[1]))
        case "zone", "mask":
            let named = head.text == "zone"
            guard t.count >= (named ? 5 : 4) else { throw err(nil, "\(head.text) needs \(named ? "NAME " : "")x1,y1 x2,y2 x3,y3 … (fractions of the frame)") }
            let first = named ? 2 : 1
            let area: MotionPolygon
            do throws(GpickError) {
                area = try MotionPolygon(parsing: t[first...].map(\.text).joined(separator: " "))
            } catch {
                throw err(t[first], error.message)
            }
            cmd = named ? .zone(name: t[1].text, area: area) : .mask(area)
        case "set":
            try arity(2...2, "ELEMENT.PROPERTY VALUE")
            let parts = t[1].text.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw err(t[1], "expected ELEMENT.PROPERTY, got \"\(t[1].text)\"") }
            cmd = .set(element: parts[0], property: parts[1], value: t[2].text)
        case "flip": try arity(0...0, ""); cmd = .flip
        case "suspend": try arity(0...0, ""); cmd = .suspend
        case "resume": try arity(0...0, ""); cmd = .resume
        case "live":
            try arity(1...1, "NAME")
            cmd = .live(t[1].text)
        case "mode":
            try arity(1...1, "photo|live")
            guard ["photo", "live"].contains(t[1].text) else { throw err(t[1], "mode takes photo or live, not \"\(t[1].text)\"") }
            cmd = .mode(live: t[1].text == "live")
        case "countdown":
            try arity(1...1, "N")
            cmd = .countdown(try int(t[1], "countdown", min: 1))
        case "echo":
            cmd = .echo(t.dropFirst().map(\.text).joined(separator: " "))
        case "expect":
            guard t.count >= 3 else { throw err(nil, "expect needs FILE and a check: frames OP N, duration D, size WxH, stamps A..B, kind photo|video, exists") }
            cmd = .expect(path: t[1].text, try expectation(Array(t.dropFirst(2)), err))
        default:
            let hint = Suggest.closest(to: head.text, in: commands).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw err(head, "unknown command \"\(head.text)\"\(hint)")
        }
        return ScriptStatement(line: lineNumber, command: cmd, text: line.trimmed(newlines: false))
    }

    /// `split SECONDS [keep D] [keep-size S] [keep-free P%]`, as `record --split` and its --keep options take them.
    private static func loopOptions(_ a: [ScriptToken], _ duration: (ScriptToken) throws(ScriptSyntaxError) -> Double,
                                    _ err: (ScriptToken?, String) -> ScriptSyntaxError) throws(ScriptSyntaxError) -> (Double, PartRetention) {
        guard a[0].text == "split" else { throw err(a[0], "unexpected \"\(a[0].text)\"; usage: record start FILE [split SECONDS [keep D] [keep-size S] [keep-free P%]]") }
        guard a.count >= 2 else { throw err(a[0], "split needs the length of a part (like 60s)") }
        let seconds = try duration(a[1])
        guard seconds > 0 else { throw err(a[1], "a part must last more than 0 s") }
        var retention = PartRetention()
        var i = 2
        while i < a.count {
            let name = a[i]
            guard i + 1 < a.count else { throw err(name, "\(name.text) needs a value") }
            guard try keepOption(name, a[i + 1], into: &retention, err) else {
                let hint = Suggest.closest(to: name.text, in: keepWords).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw err(name, "unknown split option \"\(name.text)\"\(hint)")
            }
            i += 2
        }
        return (seconds, retention)
    }

    private static let keepWords = ["keep", "keep-size", "keep-free"]

    /// One of `keep D`, `keep-size S`, `keep-free P%` into `retention`; false for another word.
    private static func keepOption(_ name: ScriptToken, _ value: ScriptToken, into retention: inout PartRetention,
                                   _ err: (ScriptToken?, String) -> ScriptSyntaxError) throws(ScriptSyntaxError) -> Bool {
        switch name.text {
        case "keep":
            guard let d = DurationText.parse(value.text), d > 0 else { throw err(value, "keep \"\(value.text)\" must be a duration (like 24h, 90m)") }
            retention.maxAge = d
        case "keep-size":
            guard let b = ByteSize.parse(value.text), b > 0 else { throw err(value, "keep-size \"\(value.text)\" must be a size (like 20G, 500M)") }
            retention.maxBytes = b
        case "keep-free":
            let digits = value.text.hasSuffix("%") ? String(value.text.dropLast()) : value.text
            guard let v = Double(digits), v > 0, v < 100 else { throw err(value, "keep-free \"\(value.text)\" must be a share of the disk below 100% (like 5%)") }
            retention.minFree = v / 100
        default:
            return false
        }
        return true
    }

    /// `clips start NAME`'s options: `pre D`, `post D`, `longest D`, `in ZONE`, `snap` and the keep options.
    private static func clipOptions(_ a: [ScriptToken], _ usage: String, _ duration: (ScriptToken) throws(ScriptSyntaxError) -> Double,
                                    _ err: (ScriptToken?, String) -> ScriptSyntaxError) throws(ScriptSyntaxError) -> ClipOptions {
        var o = ClipOptions()
        var seen: Set<String> = []
        var i = 0
        while i < a.count {
            let name = a[i]
            guard seen.insert(name.text).inserted else { throw err(name, "\(name.text) is given twice") }
            if name.text == "snap" { o.snap = true; i += 1; continue }
            guard i + 1 < a.count else { throw err(name, "\(name.text) needs a value; usage: \(usage)") }
            let value = a[i + 1]
            switch name.text {
            case "pre": o.pre = try duration(value)
            case "post": o.post = try duration(value)
            case "longest":
                o.longest = try duration(value)
                guard o.longest >= MotionClips.minimumLongest, o.longest <= MotionClips.maximumLongest else {
                    throw err(value, "longest must be \(Int(MotionClips.minimumLongest)) s…\(Int(MotionClips.maximumLongest) / 3600) h")
                }
            case "in": o.zone = value.text
            default:
                guard try keepOption(name, value, into: &o.retention, err) else {
                    let hint = Suggest.closest(to: name.text, in: ["pre", "post", "longest", "in", "snap"] + keepWords).map { " (did you mean \"\($0)\"?)" } ?? ""
                    throw err(name, "unknown clips option \"\(name.text)\"\(hint); usage: \(usage)")
                }
            }
            i += 2
        }
        return o
    }

    private static func expectation(_ a: [ScriptToken], _ err: (ScriptToken?, String) -> ScriptSyntaxError) throws(ScriptSyntaxError) -> Expectation {
        let what = a[0]
        switch what.text {
        case "frames":
            guard a.count == 3, let op = Expectation.Comparison(rawValue: a[1].text) else {
                throw err(a.count > 1 ? a[1] : what, "expected: frames ==|>=|<=|>|< N")
            }
            guard let n = Int(a[2].text), n >= 0 else { throw err(a[2], "frame count \"\(a[2].text)\" must be a whole number") }
            return .frames(op, n)
        case "duration":
            guard a.count == 2 || (a.count == 4 && a[2].text == "within") else { throw err(what, "expected: duration D [within T]") }
            guard let d = DurationText.parse(a[1].text) else { throw err(a[1], "\"\(a[1].text)\" is not a duration") }
            var tol: Double?
            if a.count == 4 {
                guard let t = DurationText.parse(a[3].text) else { throw err(a[3], "\"\(a[3].text)\" is not a duration") }
                tol = t
            }
            return .duration(d, tolerance: tol)
        case "size":
            let parts = a.count == 2 ? a[1].text.split(separator: "x").compactMap { Int($0) } : []
            guard parts.count == 2 else { throw err(a.count == 2 ? a[1] : what, "expected: size WIDTHxHEIGHT") }
            return .size(parts[0], parts[1])
        case "stamps":
            guard a.count == 2 else { throw err(what, "expected: stamps A..B (either end may be left out)") }
            let r = a[1].text.split(separator: "..", omittingEmptySubsequences: false).map(String.init)
            guard r.count == 2, r[0].isEmpty || Int(r[0]) != nil, r[1].isEmpty || Int(r[1]) != nil else {
                throw err(a[1], "expected a range like 0..89, 10.. or ..29")
            }
            return .stamps(first: Int(r[0]), last: Int(r[1]))
        case "kind":
            guard a.count == 2, ["photo", "video", "audio"].contains(a[1].text) else { throw err(a.count == 2 ? a[1] : what, "expected: kind photo|video|audio") }
            return .kind(a[1].text)
        case "exists":
            guard a.count == 1 else { throw err(a[1], "exists takes nothing more") }
            return .exists
        default:
            let hint = Suggest.closest(to: what.text, in: ["frames", "duration", "size", "stamps", "kind", "exists"]).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw err(what, "unknown check \"\(what.text)\"\(hint)")
        }
    }
}
