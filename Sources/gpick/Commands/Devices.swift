import GpickCLI
import ArgumentParser
import GpickKit
import GstCore

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List cameras from PipeWire, libcamera and V4L2: kind, name, the --source that opens each, whether you can, and formats (a V4L2 camera's every mode, the default marked).",
        discussion: """
            Access is judged per kind: a PipeWire node is connected to for one frame; a V4L2 device's \
            permissions are checked, with the fix. When PipeWire shares the V4L2 cameras, they are \
            listed once, as PipeWire nodes.

            With --formats FILE, no camera is opened: FILE is a camera's `v4l2-ctl --list-formats-ext` \
            listing (as pasted in bug reports, old or new layout, with or without a log prefix on each \
            line), and gpick prints its modes and the one it would choose: for --mode, or for \
            --width/--height/--fps (what a session delivers), else the default (the largest mode up to \
            1920x1080 that keeps 30 fps).
            """)

    @OptionGroup var out: OutputOptions

    @Option(name: .long, help: ArgumentHelp("A camera's `v4l2-ctl --list-formats-ext` listing (- for standard input): print its modes and the one gpick chooses, without a camera.", valueName: "FILE"))
    var formats: String?

    @Option(name: .long, help: ArgumentHelp("A camera's `v4l2-ctl --list-ctrls-menus` listing (- for standard input): print its controls by gpick's names, and check --control values against them, without a camera.", valueName: "FILE"))
    var controls: String?

    @Option(name: .long, help: ArgumentHelp("With --controls: a control to check (repeatable), as capture commands take it.", valueName: "NAME=VALUE"))
    var control: [String] = []

    @Option(name: .long, help: ArgumentHelp("With --formats: a mode chosen by hand, WxH, WxH@FPS, WxH@FPS/FORMAT (1920x1080@30/MJPG) or max.", valueName: "MODE"))
    var mode: String?

    @Option(name: .long, help: ArgumentHelp("With --formats: the width a session delivers.", valueName: "PIXELS"))
    var width: Int?

    @Option(name: .long, help: ArgumentHelp("With --formats: the height a session delivers.", valueName: "PIXELS"))
    var height: Int?

    @Option(name: .long, help: ArgumentHelp("With --formats: the frame rate a session delivers (30, 29.97, 30000/1001).", valueName: "FPS"))
    var fps: String?

    func validate() throws {
        let asked = [mode != nil ? "--mode" : nil, width != nil ? "--width" : nil, height != nil ? "--height" : nil, fps != nil ? "--fps" : nil].compactMap { $0 }
        if formats == nil, let first = asked.first { throw ValidationError("\(first) goes with --formats FILE") }
        if controls == nil, !control.isEmpty { throw ValidationError("--control goes with --controls FILE") }
        if controls != nil, formats != nil { throw ValidationError("give --formats or --controls, not both") }
        for c in control { do { _ = try ControlSetting(parsing: c) } catch { throw ValidationError("--control: " + error.message) } }
        if mode != nil, asked.count > 1 { throw ValidationError("--mode chooses the mode by hand: give it without --width, --height or --fps") }
        if (width == nil) != (height == nil) { throw ValidationError("give --width and --height together") }
        for (name, v) in [("--width", width), ("--height", height)] { if let v, !(1...65536).contains(v) { throw ValidationError("\(name) \(v): give 1 to 65536 pixels") } }
        if let fps, ModeRate.parse(fps) == nil { throw ValidationError("--fps \(fps): give a positive rate (30, 29.97, 30000/1001)") }
    }

    func run() async throws {
        let events = Events(json: out.json, command: "devices")
        if let formats { return try await reporting(events) { try Self.answer(formats: formats, request: try request(), events: events) } }
        if let controls { return try await reporting(events) { try Self.answer(controls: controls, settings: control, events: events) } }
        try await reporting(events) {
            let cameras = await CameraDirectory.checked(await CameraDirectory.cameras())
            if out.json {
                for c in cameras { events.emit("device", Self.fields(c)) }
                events.finished(["devices": cameras.count, "pipewire": PipeWireSocket.isReachable])
                return
            }
            if cameras.isEmpty {
                let pipewire = PipeWireSocket.isReachable ? "PipeWire is running but shares none" : "PipeWire is not running"
                print("no cameras found (\(pipewire); libcamera and V4L2 found none). The test source is always there: --source test")
                return
            }
            for c in cameras {
                let access: String
                switch c.access {
                case .ok: access = "ok"
                case .denied(let why, _): access = "NO ACCESS: \(why)"
                case .unchecked: access = "not checked"
                }
                print("\(c.kind.rawValue + String(repeating: " ", count: max(0, 10 - c.kind.rawValue.count)))\(c.name)  --source \(c.source)  [\(access)]")
                if case .denied(_, let fix?) = c.access { print("    fix: \(fix)") }
                // A V4L2 camera's every mode, and the one gpick runs it in when nothing is asked.
                if let (offers, chosen) = Self.modes(of: c) {
                    for l in Self.table(offers, chosen: chosen, indent: "  ") { print(l) }
                    print("    default: \(chosen.mode)\(chosen.reason.isEmpty ? "" : " (\(chosen.reason))")")
                    continue
                }
                let formats = FormatSummary.of(c.formats)
                for f in formats { print("    \(f.line)") }
                if formats.isEmpty { print("    (no formats reported)") }
            }
        }
    }

    static func fields(_ c: Camera) -> JSONFields {
        var f: JSONFields = ["kind": c.kind.rawValue, "name": c.name, "source": "\(c.source)", "accessible": c.access.isOK]
        if case .denied(let why, let fix) = c.access {
            f["reason"] = why
            if let fix { f["fix"] = fix }
        }
        let formats = FormatSummary.of(c.formats)
        f["formats"] = formats.map(\.line)
        if let (offers, chosen) = modes(of: c) {
            let m = chosen.mode
            f["modes"] = offers.map(line)
            f["mode"] = JSONValue(fields: ["format": m.format.fourcc, "width": m.width, "height": m.height, "framerate": m.framerate])
            f["reason"] = chosen.reason
        }
        f["ranges"] = formats.map { s -> JSONValue in
            var r: JSONFields = ["formats": s.formats]
            if let a = s.smallest, let b = s.largest { r["width"] = [a.width, b.width]; r["height"] = [a.height, b.height] }
            if let fps = s.rates { r["fps"] = [fps.lowerBound.value, fps.upperBound.value] }
            return JSONValue(fields: r)
        }
        for key in ["node.name", "object.serial", "api.v4l2.path", "device.api"] {
            if let v = c.properties[key] { f[key] = v }
        }
        return f
    }
}
