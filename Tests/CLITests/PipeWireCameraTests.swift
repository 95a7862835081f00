import Foundation
import GpickTestSupport
import Testing

/// Cameras the way desktops share them, with no hardware: each test starts its own PipeWire
/// (session bus, pipewire, wireplumber) whose camera is PipeWire's videotestsrc node, and stops
/// it after. gpick's own test source stamps every frame and draws 100 % bars; this camera does
/// not stamp, and its bars are 75 %, so the pixels say which one a file came from.
/// One at a time: three daemons each, on 2 cores, beside every other suite.
@Suite(.serialized) struct PipeWireCameraTests {
    static let small = ["--width", "640", "--height", "360"]

    static func events(_ r: Subprocess.Result) -> [[String: Any]] {
        r.events
    }

    /// The first (white) bar's level: PipeWire's pattern has 75 % bars (about 192), GStreamer's
    /// `smpte`, which gpick's test source draws, 100 % bars (255).
    static func whiteBar(_ path: String) async throws -> Int {
        let img = try await Media.rgb(path)
        let (r, g, b) = Media.pixel(img, img.width / 14, img.height * 2 / 5)
        return (r + g + b) / 3
    }

    /// The picker's camera cell resting on a real PipeWire camera: while the terminal is
    /// unfocused no stream reads the node (PipeWire stops reporting it running, as the LED of a
    /// real camera goes off), and it runs again once the terminal has the focus back.
    @Test func aRestingPickerCellLeavesTheCameraNodeNotRunning() async throws {
        let lib = try await PickerTerminalTests.Library(["red.jpg": "red.jpg"])
        try await PipeWireDaemon.with { pw in
            let picker = try await PickerTerminalTests.Running(lib, ["--source", "pipewire:\(PipeWireDaemon.cameraNode)", "--json"] + Self.small,
                                                               columns: 90, rows: 28,
                                                               env: pw.env.merging(["GST_DEBUG": "gpick:5,pipewiresrc:5"]) { $1 })
            try await picker.waitFor("camera back")
            let live = try await pw.waitForNode(PipeWireDaemon.cameraNode) { $0 == "running" }
            #expect(live == "running", "the camera's node while the cell is live: \(live ?? "not listed")")
            _ = try await picker.tmux.run(["send-keys", "-t", "t", "-H", "1b", "5b", "4f"])  // ESC [ O: focus out
            try await picker.waitFor("camera suspended")
            let resting = try await pw.waitForNode(PipeWireDaemon.cameraNode) { $0 != nil && $0 != "running" }
            #expect(resting == "idle" || resting == "suspended", "the camera's node while the cell rests: \(resting ?? "not listed")")
            _ = try await picker.tmux.run(["send-keys", "-t", "t", "-H", "1b", "5b", "49"])  // ESC [ I: focus in
            // The bound covers gpick's own recovery too: a stream that stays silent for 5 s is
            // opened again (seen once in CI, under the load of the suite's start).
            try await picker.waitFor("camera back", seconds: 30)
            let woken = try await pw.waitForNode(PipeWireDaemon.cameraNode) { $0 == "running" }
            #expect(woken == "running", "the camera's node after the cell woke: \(woken ?? "not listed")")
            try await picker.keys("Escape")
            let r = try await picker.finish()
            #expect(r.status == 130, "\(r.stderr)")
        }
    }

    /// A PipeWire camera's mode is chosen from the formats PipeWire lists for the node, by the
    /// V4L2 camera's rules: with nothing asked, the largest size up to 1920x1080 at 30 fps (the
    /// node takes any size and rate) in its 4:2:2 format before RGB, and the session delivers
    /// it; asked for 640x360, that size. The still is the size chosen.
    @Test func theNodesModeIsChosenFromWhatPipeWireLists() async throws {
        let dir = TestEnvironment.tempDir()
        try await PipeWireDaemon.with { pw in
            for (args, mode, size) in [([String](), "UYVY 1920x1080 @ 30 fps", (1920, 1080)), (Self.small, "UYVY 640x360 @ 30 fps", (640, 360))] {
                let out = "\(dir)/\(size.0).png"
                let r = try await Subprocess.gpick(["snap", "--source", "pipewire:\(PipeWireDaemon.cameraNode)", "--json", "-o", out] + args, env: pw.env)
                #expect(r.status == 0, "\(r.stderr)")
                let started = try #require(Self.events(r).first { $0["event"] as? String == "started" }, "\(r.stdout)")
                #expect(started["mode"] as? String == mode, "\(started)")
                #expect(started["width"] as? Int == size.0 && started["height"] as? Int == size.1, "\(started)")
                let img = try await Media.rgb(out)
                #expect((img.width, img.height) == size)
                #expect(try await Self.whiteBar(out) < 220, "the still is PipeWire's 75 % bars")
            }
        }
    }

    @Test func devicesListsTheNodeAsAccessibleWithItsFormats() async throws {
        try await PipeWireDaemon.with { pw in
            let r = try await Subprocess.gpick(["devices", "--json"], env: pw.env)
            #expect(r.status == 0, "\(r.stderr)")
            let device = try #require(Self.events(r).first { $0["event"] as? String == "device" }, "\(r.stdout)")
            #expect(device["kind"] as? String == "pipewire")
            #expect(device["name"] as? String == PipeWireDaemon.cameraName)
            #expect(device["source"] as? String == "pipewire:\(PipeWireDaemon.cameraNode)")
            #expect(device["accessible"] as? Bool == true, "\(device)")
            #expect(device["formats"] as? [String] == ["RGB, UYVY any size @ any rate"])
            let text = try await Subprocess.gpick(["devices"], env: pw.env)
            #expect(text.stdoutLines == ["pipewire  Test Camera  --source pipewire:testcam  [ok]", "    RGB, UYVY any size @ any rate"],
                    "\(text.stdout)")
        }
    }

    @Test func autoTakesFromThePipeWireCameraNotTheTestSource() async throws {
        let dir = TestEnvironment.tempDir()
        try await PipeWireDaemon.with { pw in
            let r = try await Subprocess.gpick(["snap", "--source", "auto", "--json", "-o", "\(dir)/auto.png"] + Self.small, env: pw.env)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.isEmpty, "no notice when a camera is found: \(r.stderr)")
            let chosen = try #require(Self.events(r).first { $0["event"] as? String == "source-chosen" }, "\(r.stdout)")
            #expect(chosen["kind"] as? String == "pipewire" && chosen["source"] as? String == "pipewire:testcam", "\(chosen)")
            #expect((chosen["reason"] as? String)?.contains("PipeWire is running") == true, "\(chosen)")
        }
        let frames = try await Media.frames("\(dir)/auto.png")
        #expect(frames.count == 1 && frames[0].stamp == nil, "a gpick frame stamp: the test source, not the camera")
        let level = try await Self.whiteBar("\(dir)/auto.png")
        #expect(abs(level - 192) < 16, "PipeWire's 75 % bars: \(level)")
        // The same measure on gpick's own test source, which must tell them apart.
        let control = try await Subprocess.gpick(["snap", "--source", "test", "-o", "\(dir)/test.png"] + Self.small)
        #expect(control.status == 0)
        #expect(try await Self.whiteBar("\(dir)/test.png") > 240)
    }

    @Test func threeSecondRecordingHas90Frames() async throws {
        let dir = TestEnvironment.tempDir()
        try await PipeWireDaemon.with { pw in
            let r = try await Subprocess.gpick(["record", "--source", "pipewire:testcam", "--duration", "3", "-o", "\(dir)/r.mp4"] + Self.small,
                                               env: pw.env)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let frames = try await Media.frames("\(dir)/r.mp4")
        #expect(frames.count == 90)
        #expect(frames.allSatisfy { $0.stamp == nil && $0.width == 640 && $0.height == 360 })
        let pts = frames.compactMap(\.pts)
        #expect(zip(pts, pts.dropFirst()).allSatisfy { abs($1 - $0 - 1.0 / 30) < 0.002 }, "30 fps, no gaps")
    }

    @Test func flipsBetweenThePipeWireCameraAndATestSourceShowNoBlackFrame() async throws {
        let dir = TestEnvironment.tempDir()
        try "record start flip.mp4\nwait 1s\nflip\nwait 1s\nflip\nwait 1s\nrecord stop\n".write(toFile: "\(dir)/f.gpick", atomically: false, encoding: .utf8)
        try await PipeWireDaemon.with { pw in
            // gpick's own debug lines and pipewiresrc's stream states go to a file, shown on a
            // failure: where each opening of the camera stopped.
            let log = "\(dir)/gst.log"
            let r = try await Subprocess.gpick(["script", "\(dir)/f.gpick", "--source", "pipewire:testcam", "--front", "test:pinwheel?id=2",
                                                "--output-dir", dir, "--json"] + Self.small,
                                               env: pw.env.merging(["GST_DEBUG": "gpick:5,pipewiresrc:5", "GST_DEBUG_FILE": log, "GST_DEBUG_NO_COLOR": "1"]) { $1 })
            let states = r.status == 0 ? [] : ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.contains("state") || $0.contains(" gpick ") }.suffix(60)
            #expect(r.status == 0, "\(r.stderr)\(r.stdout.suffix(1500))\npipewire said: \(pw.log.suffix(1500))\n\(states.joined(separator: "\n"))")
        }
        let frames = try await Media.frames("\(dir)/flip.mp4", measure: true)
        #expect(frames.count >= 85)
        for f in frames { #expect((f.measure?.meanY ?? 0) > 24, "a black frame at \(f.pts ?? -1)") }
        // Camera (no stamp), then the test source (stamped id 2), then the camera again.
        let ids = frames.map { $0.stamp?.sourceID }
        let first = try #require(ids.firstIndex(of: 2)), last = try #require(ids.lastIndex(of: 2))
        #expect(first > 20 && last < frames.count - 20, "front camera frames at \(first)…\(last) of \(frames.count)")
        #expect(ids[..<first].allSatisfy { $0 == nil } && ids[(last + 1)...].allSatisfy { $0 == nil })
        let front = frames[first...last].compactMap { $0.stamp?.index }
        #expect(front.count == last - first + 1 && (Media.missing(front) ?? 99) <= 3, "front camera frames in order: \(front)")
    }

    @Test func aNodeDestroyedMidRecordingLeavesAFileThatPlaysAndAnError() async throws {
        let dir = TestEnvironment.tempDir()
        let (result, before) = try await PipeWireDaemon.with { pw -> (Subprocess.Result, Int) in
            let rec = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "pipewire:testcam", "--duration", "3600", "--json",
                                                                    "-o", "\(dir)/cut.mp4"] + Self.small, env: pw.env)
            // Destroyed once half a second is recorded; every frame reported by then is in the file.
            func reported() -> Int {
                rec.stdoutSoFar.split(separator: "\n").compactMap {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["frames"] as? Int
                }.max() ?? 0
            }
            let deadline = Date().addingTimeInterval(HangBound.seconds(15))
            while reported() < 15 && rec.isRunning && Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
            let before = reported()
            try await pw.destroy(node: PipeWireDaemon.cameraNode)
            return (try await rec.wait(timeout: 15), before)
        }
        #expect(result.status == 69)
        #expect(result.stderrLines.count == 1 && result.stderrLines[0].contains("camera pipewire:testcam stopped delivering frames"),
                "\(result.stderr)")
        let names = Self.events(result).compactMap { $0["event"] as? String }
        #expect(names.contains("source-failed") && names.contains("placeholder") && names.contains("file-written"), "\(names)")
        let frames = try await Media.frames("\(dir)/cut.mp4")
        #expect(before >= 15 && frames.count >= before && frames.count < 600, "\(frames.count) frames, \(before) reported before the cut")
        let info = try await Media.discover("\(dir)/cut.mp4")
        let duration = info.durationSeconds, expected = Double(frames.count) / 30
        #expect(abs(duration - expected) < 0.05, "duration \(duration) for \(frames.count) frames")
    }

    /// A camera unplugged while it is served (its node destroyed) is served as its blurred last
    /// frame, and picked up again once it is back (the node made again): `source-failed`, then
    /// `reconnecting` and `source-live`, and a viewer gets the camera's frames again.
    @Test func aCameraPluggedBackInIsServedAgain() async throws {
        let dir = TestEnvironment.tempDir()
        try await PipeWireDaemon.with { pw in
            let serve = try Subprocess.start(TestEnvironment.binary, ["serve", "--source", "pipewire:testcam", "--port", "0", "--json",
                                                                      "--duration", "120"] + Self.small, env: pw.env)
            defer { serve.signal(SIGKILL) }
            let out = try await serve.waitForOutput("\"url\"", timeout: 30)
            let started = out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["event"] as? String == "started" }
            let url = try #require(started?["url"] as? String, "\(out)")
            try await pw.destroy(node: PipeWireDaemon.cameraNode)
            _ = try await serve.waitForOutput("\"source-failed\"", timeout: 30)
            #expect(serve.isRunning, "serve ended when its camera was lost: \(serve.stderrSoFar)")
            try await pw.recreateCamera()
            _ = try await serve.waitForOutput("\"source-live\"", timeout: 30)
            #expect(serve.stdoutSoFar.contains("\"reconnecting\""), "\(serve.stdoutSoFar)")
            let viewer = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url, "-frames:v", "30",
                                                                      "-update", "1", "-y", "\(dir)/after.png"], timeout: 60)
            #expect(viewer.status == 0, "\(viewer.stderr)")
            #expect(try await Self.whiteBar("\(dir)/after.png") < 220, "the stream after the return shows PipeWire's 75 % bars")
            serve.signal(SIGTERM)
            let r = try await serve.wait(timeout: 20)
            #expect(r.status == 0, "\(r.stderr)")
        }
    }

    /// A stream whose link to the camera goes (a session manager re-routing it; WirePlumber
    /// suspending a node it believes idle just as a stream connects) gets nothing and is told
    /// nothing. The camera is still there, so gpick opens it again. Here the session manager
    /// links nothing (the test links by hand), so the reopened stream stays silent, its start
    /// waiting in pipewiresrc: after the silent-start timeout (5 s) gpick stops that start and
    /// opens the camera once more, and the test links that stream. The recording goes on, with
    /// the blurred last frame over the gap, at 30 fps, and ends well at Ctrl-C.
    @Test func aStreamCutFromItsCameraIsReopenedAndTheRecordingGoesOn() async throws {
        let dir = TestEnvironment.tempDir()
        let result = try await PipeWireDaemon.with(linking: false) { pw -> Subprocess.Result in
            let rec = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "pipewire:testcam", "--duration", "3600", "--json",
                                                                    "-o", "\(dir)/r.mp4"] + Self.small, env: pw.env)
            func events() -> [[String: Any]] {
                rec.eventsSoFar
            }
            func recorded() -> Double { events().compactMap { $0["seconds"] as? Double }.max() ?? 0 }
            func count(_ name: String) -> Int { events().filter { $0["event"] as? String == name }.count }
            func until(seconds: Double, _ done: () async throws -> Bool) async throws {
                let deadline = Date().addingTimeInterval(HangBound.seconds(seconds))
                while try await !done(), rec.isRunning, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
            }
            // Each stream gpick opens has an input port of its own, and gpick stops one before
            // it opens the next: the one port there is gets linked.
            var port: Int?
            try await until(seconds: 15) { port = try await pw.inputPorts("gpick:").first; return port != nil }
            let first = try #require(port, "gpick's stream never showed a port")
            try await pw.link(cameraTo: first)
            try await until(seconds: 15) { recorded() >= 1 }
            try await pw.link(cameraTo: first, unlink: true)
            try await until(seconds: 30) { count("reconnecting") >= 2 || count("source-failed") > 0 }
            #expect(count("reconnecting") >= 2, "\(events().filter { $0["event"] as? String != "progress" })")
            // The stream being opened now is to be linked within its 5 s: every port of gpick's
            // with no link is linked at once, looking again every 50 ms. Waiting for the new port
            // to be the only one lost that race in CI, twice in a row, while the second stream's
            // port was still going away; linking that one as well does no harm, as gpick has
            // already given up on it. Which ports have a link is asked each time: the new
            // stream's port takes the id of the one just gone, so a remembered id once left the
            // new port unlinked for good (in a loaded run, streams 3 and 4 were never linked).
            // A machine that stalls this process for longer than 5 s makes gpick give up on the
            // third stream too, rightly, and open a fourth (checked below).
            try await until(seconds: 30) {
                guard count("source-live") == 0 else { return true }
                for p in try await pw.unlinkedInputPorts("gpick:") { try? await pw.link(cameraTo: p) }
                return count("source-live") > 0
            }
            // Then two seconds of progress after the camera is back (its first progress already
            // counts the placeholder over the gap): room for its warm-up and the fade.
            func sinceLive() -> Double {
                let all = events()
                guard let live = all.firstIndex(where: { $0["event"] as? String == "source-live" }) else { return 0 }
                let seconds = all[live...].compactMap { $0["seconds"] as? Double }
                return (seconds.last ?? 0) - (seconds.first ?? 0)
            }
            try await until(seconds: 30) { sinceLive() >= 2 }
            rec.signal(SIGINT)
            return try await rec.wait(timeout: 30)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.isEmpty, "\(result.stderr)")
        let names = Self.events(result).compactMap { $0["event"] as? String }
        let reconnect = try #require(names.firstIndex(of: "reconnecting"), "\(names.filter { $0 != "progress" })")
        #expect(names[reconnect...].contains("source-live") && !names.contains("source-failed"), "\(names.filter { $0 != "progress" })")
        let reasons = Self.events(result).filter { $0["event"] as? String == "reconnecting" }.compactMap { $0["reason"] as? String }
        // Reopened once for the stall, then for each stream left silent: the second (never
        // linked), and any the test could not link within 5 s; the third of those within a
        // minute would have been the camera's loss (source-failed, checked above).
        #expect(reasons.count >= 2 && reasons[0].contains("stopped delivering frames for 2s")
                    && reasons.dropFirst().allSatisfy { $0.contains("sent no frame within 5s of opening") }, "\(reasons)")
        let frames = try await Media.frames("\(dir)/r.mp4", measure: true)
        let pts = frames.compactMap(\.pts)
        #expect(frames.count > 90 && pts.count == frames.count, "\(frames.count) frames")
        let duration = try await Media.discover("\(dir)/r.mp4").durationSeconds
        #expect(abs(duration - ((pts.last ?? 0) + 1.0 / 30)) < 0.05, "duration \(duration) for frames up to \(pts.last ?? 0)")
        // The camera's own bars again at the end (the placeholder is a blur: little detail).
        let sharp = frames.map { $0.measure?.detail ?? 0 }
        let peak = sharp.max() ?? 0
        #expect(peak > 0 && sharp.suffix(15).allSatisfy { $0 > peak * 0.8 }, "detail at the end: \(sharp.suffix(15)) of \(peak)")
        #expect(sharp.contains { $0 < peak * 0.5 }, "a blurred placeholder over the gap: \(sharp)")
        // The stall (2 s, then the reopening) is filled: no hole of half a second or more. A few
        // frames that PipeWire's own test camera skips on a loaded machine are kept as it sent
        // them (holes of a frame or a few, seen beside a busy loop), never more than a second
        // in all.
        let gaps = zip(pts, pts.dropFirst()).enumerated().filter { abs($1.1 - $1.0 - 1.0 / 30) >= 0.002 }
        let described = gaps.map { "\($0.offset): \($0.element.0)→\($0.element.1)" }
        let missing = gaps.reduce(0.0) { $0 + ($1.element.1 - $1.element.0 - 1.0 / 30) }
        #expect(gaps.allSatisfy { $0.element.1 - $0.element.0 < 0.5 } && missing < 1,
                "holes \(described) in \(pts.count) frames; \(Self.events(result).filter { $0["event"] as? String != "progress" })")
    }

    /// Without PipeWire (and, on this machine, without a libcamera or V4L2 camera) `auto` is no
    /// camera: one line saying what was looked for, exit 69, no file; never the test pattern.
    @Test func withoutPipeWireAutoIsNoCameraInOneLine() async throws {
        let dir = TestEnvironment.tempDir()
        let runtime = TestEnvironment.tempDir("xdg")
        chmod(runtime, 0o700)
        let env = ["XDG_RUNTIME_DIR": runtime]
        let json = try await Subprocess.gpick(["snap", "--source", "auto", "--json", "-o", "\(dir)/a.png"] + Self.small, env: env)
        // What follows depends on this machine's V4L2 devices: an openable one is taken.
        if let chosen = Self.events(json).first(where: { $0["event"] as? String == "source-chosen" }) {
            #expect(chosen["kind"] as? String == "v4l2" && (chosen["source"] as? String)?.hasPrefix("v4l2:/dev/") == true, "\(chosen)")
            return
        }
        #expect(json.status == 69, "\(json.stderr)")
        let error = try #require(Self.events(json).first { $0["event"] as? String == "error" }, "\(json.stdout)")
        let message = error["message"] as? String ?? ""
        #expect(message.contains("PipeWire is not running") && message.contains("libcamera found no camera"), "\(message)")
        let text = try await Subprocess.gpick(["snap", "--source", "auto", "-o", "\(dir)/b.png"] + Self.small, env: env)
        #expect(text.status == 69)
        #expect(text.stderrLines.count == 1 && text.stderr.contains("no camera found: PipeWire is not running")
                && text.stderr.contains("(--source test gives the test pattern)"), "\(text.stderr)")
        #expect(TestEnvironment.files(in: dir).isEmpty, "nothing written")
    }
}
