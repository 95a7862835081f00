import Foundation
import GpickTestSupport
import Testing

/// `gpick pick --ui terminal` in a real terminal: tmux runs it, send-keys types, capture-pane
/// reads the screen (with colours, to check the pictures), and the shell records what it
/// printed and its exit status. The picker draws on /dev/tty, so stdout holds only the result.
@Suite(.serialized) struct PickerTerminalTests {
    typealias Library = LibrarySheetTests.Library
    typealias Tmux = PreviewTests.Tmux

    /// A picker in a tmux pane of `columns`×`rows`; its stdout and stderr go to files.
    struct Running {
        let tmux = Tmux()
        let dir = TestEnvironment.tempDir("pick-tty")
        var out: String { dir + "/out.txt" }
        var err: String { dir + "/err.txt" }
        /// GStreamer's debug log, when the test asks for one (`GST_DEBUG` in `env`).
        var debugLog: String { dir + "/gst.log" }

        /// `windowStyle`: the pane's tmux style ("bg=#f0f0f0"), set before the picker starts;
        /// with a background, tmux answers the picker's OSC 11 question with it.
        init(_ lib: Library, _ args: [String], columns: Int = 100, rows: Int = 30, env: [String: String] = [:],
             windowStyle: String? = nil) async throws {
            var env = env
            if env["GST_DEBUG"] != nil { env["GST_DEBUG_FILE"] = debugLog; env["GST_DEBUG_NO_COLOR"] = "1" }
            let vars = TestEnvironment.child(lib.env.merging(env) { $1 }).map { "'\($0)=\($1)'" }.joined(separator: " ")
            let cmd = ([TestEnvironment.binary, "pick", "--ui", "terminal", "--library", lib.root] + args).map { "'\($0)'" }.joined(separator: " ")
            let closeAll = "for f in /proc/$$/fd/*; do n=${f##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done 2>/dev/null"
            let config = dir + "/tmux.conf"
            try (windowStyle.map { "set -g window-style '\($0)'\n" } ?? "").write(toFile: config, atomically: false, encoding: .utf8)
            _ = try await Subprocess.run("/bin/bash", ["-c", "\(closeAll); tmux -L \(tmux.socket) -f '\(config)' new-session -d -s t -x \(columns) -y \(rows) \"$0\" </dev/null >/dev/null 2>&1",
                                                       "env \(vars) \(cmd) >'\(out)' 2>'\(err)'; echo gpick-exit=$?; sleep 60"], timeout: 20)
        }

        func pane(escapes: Bool = false) async throws -> String { try await tmux.pane(escapes: escapes) }

        /// Waits until the screen shows `text` (at most `seconds`), and returns it.
        @discardableResult
        func waitFor(_ text: String, seconds: Double = 15) async throws -> String {
            try await waitFor(all: [text], seconds: seconds)
        }

        /// Waits for one screen that shows every one of `texts` (the header and a cell are drawn
        /// a frame apart on a loaded machine).
        func waitFor(all texts: [String], seconds: Double = 15) async throws -> String {
            var pane = ""
            let deadline = Date().addingTimeInterval(HangBound.seconds(seconds))
            while Date() < deadline {
                pane = try await self.pane()
                if texts.allSatisfy(pane.contains) { return pane }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            Issue.record("the screen never showed \(texts.map { "\"\($0)\"" }.joined(separator: " and ")) at once: \(pane)\n\(printed)")
            return pane
        }

        /// What the picker printed so far (its `--json` events, then its stderr), the last
        /// lines of each: what a failure shows beside the screen.
        var printed: String {
            func tail(_ path: String, _ lines: Int = 20) -> String {
                let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
            }
            let log = FileManager.default.fileExists(atPath: debugLog) ? "\ndebug log:\n\(tail(debugLog, 150))" : ""
            return "stdout:\n\(tail(out))\nstderr:\n\(tail(err))\(log)"
        }

        /// Waits until the picker's stdout (its `--json` events) holds `text`.
        func waitForOutput(_ text: String, seconds: Double = 15) async throws {
            let deadline = Date().addingTimeInterval(HangBound.seconds(seconds))
            var printed = ""
            while Date() < deadline {
                printed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
                if printed.contains(text) { return }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            Issue.record("the picker never printed \"\(text)\": \(printed)")
        }

        /// Types `keys` in order, as fast as tmux sends them: the tests then wait for what the
        /// screen shows, never for time to pass.
        func keys(_ keys: String...) async throws {
            for key in keys {
                _ = try await tmux.run(["send-keys", "-t", "t", key])
            }
        }

        /// Escape, and the picker printed (`--json`) one rest and then one wake of its camera.
        func cancelExpectingRestThenWake() async throws {
            try await keys("Escape")
            let r = try await finish()
            #expect(r.status == 130, "\(r.stderr)")
            let events = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .compactMap { $0["event"] as? String }.filter { $0.hasPrefix("camera-") }
            #expect(events == ["camera-suspended", "camera-resumed"], "\(r.stdout)")
        }

        /// The exit status once the picker has ended, its stdout and stderr.
        func finish() async throws -> (status: Int?, stdout: String, stderr: String, pane: String) {
            let pane = try await waitFor("gpick-exit=")
            let status = pane.firstMatch(of: /gpick-exit=(\d+)/).map { Int($0.1) } ?? nil
            let stdout = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
            _ = try? await tmux.run(["kill-server"])
            return (status, stdout, stderr, pane)
        }
    }

    @Test func movesSelectsAndConfirmsTwoAssetsWithTheirPicturesAndBadges() async throws {
        let lib = try await Library(LibrarySheetTests.everyKind)
        let listed = try await PickerWebTests.listed(lib)
        // The page's theme and accent are accepted here too (kept for the terminal's own drawing).
        let picker = try await Running(lib, ["--no-camera", "--multi", "--columns", "3", "--theme", "light", "--accent", "#f80"], rows: 40)
        let pane = try await picker.waitFor("pano.jpg")
        #expect(pane.contains("5 items · 0 selected"), "\(pane)")
        for badge in ["LIVE", "▶ 0:0", "×3", "PANO"] { #expect(pane.contains(badge), "badge \(badge): \(pane)") }
        // The pictures are drawn from the thumbnails: red.jpg's cell is red half blocks.
        let red = try #require(listed.firstIndex { $0.path.hasSuffix("/red.jpg") })
        var colours: [(Int, Int, Int)] = []
        for _ in 0..<100 {
            let lines = try await picker.pane(escapes: true).split(separator: "\n", omittingEmptySubsequences: false)
            // 3 cells of 33 columns a row; a cell is 16 rows of picture and a label, under the
            // title row. The middle row of red.jpg's line crosses its picture; no other is red.
            let row = 1 + (red / 3) * 17 + 8
            if row < lines.count {
                colours = PreviewTests.rowColours(lines[row])
                if colours.contains(where: { $0.0 > 200 && $0.1 < 60 && $0.2 < 60 }) { break }
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(colours.contains { $0.0 > 200 && $0.1 < 60 && $0.2 < 60 }, "red.jpg's cell: \(colours.prefix(8))")

        // Right, select, down, select, Enter: the second and fifth assets, in that order.
        try await picker.keys("l", "Space", "j", "Space")
        try await picker.waitFor("2 selected")
        try await picker.keys("Enter")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == listed[1].path + "\n" + listed[4].path + "\n", "\(r.stdout)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(!r.pane.contains("▀") && !r.pane.contains("gpick pick"), "the picker's screen was left: \(r.pane)")
    }

    /// A photo gpick lists but cannot decode: its cell says what it is and why, as the page
    /// does, and Enter on it prints its path.
    @Test func anUndecodablePhotoSaysWhatItIsAndStaysChoosable() async throws {
        let (lib, listed, cut) = try await PickerWebTests.withUndecodablePhoto()
        let picker = try await Running(lib, ["--no-camera", "--columns", "2"], columns: 100, rows: 30)
        let pane = try await picker.waitFor(all: ["photo, no preview", "the file is truncated or damaged"])
        #expect(pane.contains("cut.jpg"), "\(pane)")
        for _ in 0..<cut { try await picker.keys("Right") }
        try await picker.keys("Enter")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == listed[cut].path + "\n", "\(r.stdout)")
    }

    @Test func jsonRecordsCarryTheLivePairsMovieAndPrint0EndsPathsWithNUL() async throws {
        let lib = try await Library(["DCIM/IMG_0001.JPG": "yellow.jpg", "DCIM/IMG_0001.MOV": "live.mov", "clip.mp4": "green.mp4"])
        let listed = try await PickerWebTests.listed(lib)
        let live = try #require(listed.firstIndex { $0.path.hasSuffix("IMG_0001.JPG") })
        let clip = try #require(listed.firstIndex { $0.path.hasSuffix("clip.mp4") })
        let json = try await Running(lib, ["--no-camera", "--multi", "--json"])
        try await json.waitFor("IMG_0001.JPG")
        // The cursor starts on the first asset; select both, in the listing's order.
        try await json.keys("Space", "l", "Space", "Enter")
        let r = try await json.finish()
        #expect(r.status == 0, "\(r.stderr)")
        let picked = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "picked" }
        #expect(picked.count == 2, "\(r.stdout)")
        let livePick = try #require(picked.first { ($0["path"] as? String) == listed[live].path })
        #expect(livePick["kind"] as? String == "photo" && (livePick["subtypes"] as? [String])?.contains("live") == true, "\(livePick)")
        #expect((livePick["paired-movie"] as? String)?.hasSuffix("DCIM/IMG_0001.MOV") == true, "\(livePick)")
        #expect((livePick["size"] as? Int ?? 0) > 0)
        let clipPick = try #require(picked.first { ($0["path"] as? String) == listed[clip].path })
        #expect(clipPick["kind"] as? String == "video" && (clipPick["duration"] as? Double ?? 0) > 1, "\(clipPick)")

        let nul = try await Running(lib, ["--no-camera", "--multi", "--print0"])
        try await nul.waitFor("clip.mp4")
        try await nul.keys("Space", "l", "Space", "Enter")
        let n = try await nul.finish()
        #expect(n.status == 0, "\(n.stderr)")
        #expect(n.stdout == listed[0].path + "\0" + listed[1].path + "\0", "\(n.stdout.debugDescription)")
    }

    /// The answer does not wait for a native library still starting: here GStreamer's first
    /// start, for the video's thumbnail, rebuilds its registry with a plugin scanner that never
    /// answers (as a slow rebuild on a loaded machine made the picker miss a 15 s bound in CI).
    @Test func enterAnswersAtOnceWhileGStreamerIsStillStarting() async throws {
        let lib = try await Library(["red.jpg": "red.jpg", "clip.mp4": "green.mp4"])
        let listed = try await PickerWebTests.listed(lib)
        let scanner = lib.dir + "/slow-scanner", started = lib.dir + "/scanner-pid"
        try "#!/bin/sh\necho $$ >'\(started).part' && mv '\(started).part' '\(started)'\nexec sleep 600\n"
            .write(toFile: scanner, atomically: false, encoding: .utf8)
        chmod(scanner, 0o755)
        let picker = try await Running(lib, ["--no-camera"], env: ["GST_PLUGIN_SCANNER": scanner, "GST_REGISTRY": lib.dir + "/registry.bin"])
        try await picker.waitFor("clip.mp4")
        // A hang guard, not a timing: in one loaded full run GStreamer took over 20 s to start.
        var scannerProcess: ForeignProcess? = nil
        let deadline = Date().addingTimeInterval(HangBound.seconds(60))
        while scannerProcess == nil && Date() < deadline {
            scannerProcess = ForeignProcess(pidFile: started)
            if scannerProcess == nil { try await Task.sleep(nanoseconds: 50_000_000) }
        }
        let stderr = (try? String(contentsOfFile: picker.err, encoding: .utf8)) ?? ""
        let screen = scannerProcess != nil ? "" : try await picker.pane()
        // Failing here, the picker and its terminal must not be left running.
        if scannerProcess == nil { _ = try? await picker.tmux.run(["kill-server"]) }
        let scanning = try #require(scannerProcess, "the video's thumbnail started GStreamer, which ran the plugin scanner: \(stderr) \(screen)")
        defer { scanning.signal(SIGKILL) }
        #expect(scanning.isRunning, "the plugin scanner still runs as Enter is pressed")
        try await picker.keys("Enter")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == listed[0].path + "\n", "\(r.stdout)")
        // The scanner never answers, and GStreamer writes its registry only once its start is
        // over: none means the answer did not wait for it. (Whether the scanner outlives the
        // picker is the terminal's business: the pane's end hangs up its process group.)
        #expect(!FileManager.default.fileExists(atPath: lib.dir + "/registry.bin"), "GStreamer was still starting when the picker ended")
    }

    /// The terminal reports losing and regaining the focus (CSI O, CSI I, once asked with
    /// CSI ? 1004 h): the camera rests behind another window and wakes in front again. A camera
    /// that takes a second to start says it is starting while it wakes, over its dimmed last
    /// frame, not that it is still suspended.
    @Test func theCameraRestsWhileTheTerminalIsUnfocused() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Running(lib, ["--source", "test?warmup=1.5", "--width", "320", "--height", "240", "--json"], columns: 90, rows: 28)
        try await picker.waitFor("camera back")
        _ = try await picker.tmux.run(["send-keys", "-t", "t", "-H", "1b", "5b", "4f"])  // ESC [ O: focus out
        try await picker.waitFor("camera suspended")
        _ = try await picker.tmux.run(["send-keys", "-t", "t", "-H", "1b", "5b", "49"])  // ESC [ I: focus in
        let waking = try await picker.waitFor(all: ["· camera starting", "camera starting…"])
        #expect(!waking.contains("suspended"), "\(waking)")
        // The camera cell is the grid's first, at the left: its picture is half blocks.
        let cameraColumns = waking.split(separator: "\n").dropFirst().prefix(9).map { $0.prefix(20) }
        #expect(cameraColumns.contains { $0.contains("▀") }, "the cell kept its last frame while waking: \(waking)")
        try await picker.waitFor("camera back")
        try await picker.cancelExpectingRestThenWake()
    }

    /// Away and back at once (focus out and in within one read): the rest and the wake take
    /// turns, so the events come in order and the cell ends live, its picture still moving.
    @Test func aGlanceAwayAndBackLeavesTheCellLive() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Running(lib, ["--source", "test", "--width", "320", "--height", "240", "--json"], columns: 90, rows: 28)
        try await picker.waitFor("camera back")
        _ = try await picker.tmux.run(["send-keys", "-t", "t", "-H", "1b", "5b", "4f", "1b", "5b", "49"])  // focus out, focus in
        try await picker.waitForOutput("camera-resumed")
        try await picker.waitFor("camera back")
        // Live: the test source's stamp changes with every frame, so the picture does.
        let first = try await picker.pane(escapes: true)
        var moved = false
        let deadline = Date().addingTimeInterval(HangBound.seconds(10))
        while !moved && Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
            moved = try await picker.pane(escapes: true) != first
        }
        #expect(moved, "the camera cell froze after waking")
        try await picker.cancelExpectingRestThenWake()
    }

    /// The camera also rests while the cursor has scrolled its cell off the grid, and wakes
    /// when the cell is drawn again.
    @Test func theCameraRestsWhileItsCellIsScrolledOffTheGrid() async throws {
        var files: [String: String] = [:]
        for i in 0..<12 { files["p\(i).jpg"] = "red.jpg" }
        let lib = try await Library(files)
        let picker = try await Running(lib, ["--source", "test", "--width", "320", "--height", "240", "--columns", "3", "--json"],
                                       columns: 90, rows: 24)
        try await picker.waitFor("camera back")
        // Five rows of cells, about one on the screen: three rows down, the camera's is gone.
        try await picker.keys("Down", "Down", "Down")
        try await picker.waitForOutput("camera-suspended")
        let away = try await picker.pane()
        #expect(!away.contains("camera back") && away.contains("· camera suspended"), "the camera cell is still drawn: \(away)")
        try await picker.keys("Up", "Up", "Up")
        try await picker.waitFor("camera back")
        try await picker.waitForOutput("camera-resumed")
        try await picker.cancelExpectingRestThenWake()
    }

    /// The palette follows the terminal's background as it answers OSC 11 (tmux answers with
    /// its pane's): light on a light pane, dark on a dark one or when the terminal does not say;
    /// --theme decides over it. Checked on the title bar's colour as drawn.
    @Test(arguments: [("bg=#f0f0f0", [String](), "light"), ("bg=#101418", [], "dark"), ("", [], "dark"),
                      ("bg=#101418", ["--theme", "light"], "light"), ("bg=#f0f0f0", ["--theme", "dark"], "dark")])
    func theThemeFollowsTheTerminalsBackground(style: String, args: [String], theme: String) async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Running(lib, ["--no-camera", "--json"] + args, columns: 90, rows: 24,
                                       windowStyle: style.isEmpty ? nil : style)
        try await picker.waitFor("red.jpg")
        let header = try await picker.pane(escapes: true).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        // The background set just before the bar's text (after the title in the accent).
        let set = header.firstMatch(of: /48;2;(\d+);(\d+);(\d+)m 1 item/)
        let bar = set.map { (Int($0.1) ?? -1, Int($0.2) ?? -1, Int($0.3) ?? -1) } ?? (-1, -1, -1)
        let expected = theme == "light" ? (0xD8, 0xDB, 0xE2) : (0x30, 0x30, 0x30)
        #expect(bar == expected, "title bar \(bar) for a \(theme) palette: \(header.debugDescription)")
        try await picker.keys("Escape")
        let r = try await picker.finish()
        #expect(r.status == 130, "\(r.stderr)")
        let ready = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "ready" }
        #expect(ready?["theme"] as? String == theme, "\(r.stdout)")
    }

    @Test func theCameraCellSnapsAResizeRedrawsAndEscapeCancels() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let out = TestEnvironment.tempDir("pick-tty-out")
        let picker = try await Running(lib, ["--output-dir", out, "--source", "test", "--width", "320", "--height", "240", "--json"],
                                       columns: 90, rows: 28)
        try await picker.waitFor("camera back")
        // The whole grid first (red.jpg's picture too, which a loaded machine decodes after the
        // camera is back), so the events below come in one order.
        try await picker.waitForOutput("\"shown\"")
        // The cursor starts on the camera cell: Enter takes a photo, which comes first, selected.
        try await picker.keys("Enter")
        // The header and the new cell are drawn a frame apart on a loaded machine.
        var pane = try await picker.waitFor(all: ["took pick-0001.jpg", "✓ pick-0001.jpg", "1 selected"])
        let frames = try await Media.frames(out + "/pick-0001.jpg")
        #expect(frames.first?.stamp?.sourceID == 1, "the photo is the test camera's frame")
        // A resize redraws the whole grid at the new size.
        _ = try await picker.tmux.run(["resize-window", "-t", "t", "-x", "60", "-y", "20"])
        for _ in 0..<60 {
            pane = try await picker.pane()
            let lines = pane.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if lines.count == 20 && lines[0].contains("gpick pick") && lines[19].contains("Esc/q") { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let lines = pane.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 20 && lines.allSatisfy { $0.count <= 60 }, "\(pane)")
        #expect(lines.last?.contains("Esc/q") == true, "the key help is on the new last row: \(pane)")
        try await picker.keys("Escape")
        let r = try await picker.finish()
        #expect(r.status == 130, "\(r.stderr)")
        let events = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        // The photo arrives selected, and an app following the selection hears of it.
        #expect(events.map { $0["event"] as? String ?? "" }.filter { $0 != "problem" } == ["ready", "shown", "captured", "selected"], "\(r.stdout)")
        let captured = events.first { $0["event"] as? String == "captured" }, selected = events.last
        #expect(captured?["path"] as? String != nil && selected?["path"] as? String == captured?["path"] as? String, "\(r.stdout)")
        #expect(events.first?["graphics"] as? String == "blocks", "tmux answers for itself: half blocks")
        #expect(!r.pane.contains("▀"), "the alternate screen was left")
    }

    /// Live on (l), a live photo from the cell, a recording (r … r): with --save-to-library both
    /// land in the library, indexed, and the chosen one is printed from there.
    @Test func liveAndRecordedCapturesGoIntoTheLibrary() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let picker = try await Running(lib, ["--save-to-library", "--camera-mode", "photo-and-live", "--multi",
                                             "--source", "test", "--width", "320", "--height", "240", "--json"])
        try await picker.waitFor("camera back")
        try await picker.keys("l")
        try await picker.waitFor("live photos on", seconds: 20)
        try await picker.keys("Enter")
        try await picker.waitFor("took ", seconds: 20)
        try await picker.keys("r")
        try await picker.waitFor("recording…")
        try await Task.sleep(nanoseconds: 1_500_000_000)
        try await picker.keys("r")
        try await picker.waitFor("recorded ", seconds: 20)
        // The message and the new cell can come a frame apart on a loaded machine: one screen
        // with both captures selected, the movie's cell and the live photo's badge.
        _ = try await picker.waitFor(all: ["2 selected", "▶ 0:0", "LIVE"])
        // Both captures are selected (newest first in the grid, in the order taken): Enter on one confirms both.
        try await picker.keys("Right", "Enter")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let picked = events.filter { $0["event"] as? String == "picked" }
        #expect(picked.map { $0["kind"] as? String ?? "" } == ["photo", "video"], "\(r.stdout)")
        #expect(picked.allSatisfy { ($0["path"] as? String ?? "").hasPrefix(lib.root + "/") && $0["asset"] != nil }, "\(picked)")
        #expect((picked.first?["subtypes"] as? [String])?.contains("live") == true, "\(picked)")
        let listed = try await PickerWebTests.listed(lib)
        for p in picked { #expect(listed.contains { $0.path == p["path"] as? String }, "\(p["path"] ?? "") is indexed") }
    }

    /// A video that reaches --longest-video stops with no key pressed: the status line says it
    /// was recorded, the cell no longer shows REC, and the file holds exactly that second.
    @Test func aVideoStopsByItselfAtItsLongest() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let out = TestEnvironment.tempDir("longest-video")
        let picker = try await Running(lib, ["--output-dir", out, "--longest-video", "1s", "--json",
                                             "--source", "test", "--width", "320", "--height", "240"])
        try await picker.waitFor("camera back")
        try await picker.keys("r")
        try await picker.waitFor("recording…")
        let pane = try await picker.waitFor("recorded pick-0001.mp4", seconds: 20)
        #expect(!pane.contains("REC"), "\(pane)")
        try await picker.keys("Escape")
        let r = try await picker.finish()
        #expect(r.status == 130, "\(r.stderr)")
        let stamps = try await Media.stampIndices(out + "/pick-0001.mp4")
        #expect(stamps.count == 30 && Media.isConsecutive(stamps, from: stamps.first! ?? -1), "\(stamps.count) frames")
    }

    @Test func takeOrPickWithTheTestCameraTakesAPhoto() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let out = TestEnvironment.tempDir("take-or-pick")
        let picker = try await Running(lib, ["--take-or-pick", "--output-dir", out, "--source", "test", "--width", "320", "--height", "240"])
        // The question comes first, on Take photo (waited for whole: the screen is drawn in pieces,
        // and a loaded machine once showed the two answers before the cursor).
        let pane = try await picker.waitFor("›Take photo")
        #expect(pane.contains("Choose from library"), "\(pane)")
        #expect(!pane.contains("red.jpg") && !pane.contains("camera back"), "no library and no camera yet: \(pane)")
        try await picker.keys("Enter")
        try await picker.waitFor("camera back")
        try await picker.keys("Enter")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == out + "/pick-0001.jpg\n", "\(r.stdout)")
        #expect(try await Media.frames(out + "/pick-0001.jpg").first?.stamp?.sourceID == 1)
    }

    @Test func takeOrPickWithoutACameraGoesStraightToTheLibrary() async throws {
        let lib = try await Library(["red.jpg": "red.jpg", "clip.mp4": "green.mp4"])
        let listed = try await PickerWebTests.listed(lib)
        let picker = try await Running(lib, ["--take-or-pick", "--source", "v4l2:/dev/video99"])
        try await picker.waitFor("No camera can be opened")
        let pane = try await picker.waitFor("red.jpg")
        #expect(pane.contains("/dev/video99") && !pane.contains("Take photo"), "\(pane)")
        try await picker.keys("Enter")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == listed[0].path + "\n", "\(r.stdout)")
    }

    /// A real sixel terminal: xterm as a VT340 under Xvfb answers the picker's question with
    /// sixel, and the screen then shows the pictures' colours (read back from a screenshot).
    @Test func xtermAsAVT340GetsSixelPictures() async throws {
        let lib = try await Library(["red.jpg": "red.jpg", "blue.jpg": "blue.jpg"])
        let display = try await VirtualDisplay()
        defer { display.stop() }
        let dir = TestEnvironment.tempDir("pick-xterm")
        let vars = TestEnvironment.child(lib.env).map { "'\($0)=\($1)'" }.joined(separator: " ")
        let inner = "env \(vars) '\(TestEnvironment.binary)' pick --ui terminal --no-camera --library '\(lib.root)' --json "
            + ">'\(dir)/events' 2>'\(dir)/err'; echo $? >'\(dir)/rc'"
        let xterm = try Subprocess.start("/usr/bin/xterm", ["-ti", "vt340", "-geometry", "100x30+0+0", "-e", "/bin/sh", "-c", inner],
                                         env: ["DISPLAY": display.name])
        defer { xterm.signal(SIGKILL) }
        var events: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(HangBound.seconds(20))
        while Date() < deadline && !events.contains(where: { $0["event"] as? String == "shown" }) {
            try await Task.sleep(nanoseconds: 100_000_000)
            let text = (try? String(contentsOfFile: dir + "/events", encoding: .utf8)) ?? ""
            events = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        #expect(events.first?["graphics"] as? String == "sixel", "\(events) \((try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "")")
        #expect(events.contains { $0["event"] as? String == "shown" && $0["cells"] as? Int == 2 }, "\(events)")
        let shot = try await display.screenshot(dir)
        var red = 0, blue = 0
        for i in stride(from: 0, to: shot.pixels.count - 2, by: 3) {
            let (r, g, b) = (shot.pixels[i], shot.pixels[i + 1], shot.pixels[i + 2])
            if r > 200 && g < 60 && b < 60 { red += 1 }
            if b > 200 && r < 60 && g < 60 { blue += 1 }
        }
        // Each picture is about 144×108 pixels here (24 cells of 6×13 pixels, 4:3).
        #expect(red > 5000 && blue > 5000, "red \(red), blue \(blue) pixels on screen")
        // q through the X server's keyboard (xterm ignores synthetic key events): cancelled.
        _ = try await Subprocess.run("/usr/bin/xdotool", ["mousemove", "50", "50", "key", "q"], env: ["DISPLAY": display.name])
        // The shell creates rc before echo writes to it: wait for the whole line.
        func rc() -> String? { try? String(contentsOfFile: dir + "/rc", encoding: .utf8) }
        _ = try await TestEnvironment.eventually(10) { rc()?.hasSuffix("\n") == true }
        #expect(rc()?.trimmingCharacters(in: .whitespacesAndNewlines) == "130", "rc: \(rc() ?? "no file")")
    }

    @Test func withoutAUIChoiceOrATerminalItIsOneLine() async throws {
        let lib = try await Library([:], scan: false)
        // No display, stdout a pipe: nothing to draw on.
        let r = try await Subprocess.gpick(["pick", "--library", lib.root], env: lib.env.merging(["DISPLAY": "", "WAYLAND_DISPLAY": ""]) { $1 })
        #expect(r.status == 64)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("--ui web") && r.stderr.contains("--ui terminal"), "\(r.stderr)")
        // No controlling terminal at all (a new session): --ui terminal says so.
        let t = try await Subprocess.run("/usr/bin/setsid", ["-w", TestEnvironment.binary, "pick", "--ui", "terminal", "--no-camera", "--library", lib.root],
                                         env: lib.env)
        #expect(t.status == 64)
        #expect(t.stderrLines.count == 1 && t.stderr.contains("/dev/tty"), "\(t.stderr)")
        let g = try await Subprocess.gpick(["pick", "--ui", "web", "--graphics", "sixel", "--library", lib.root], env: lib.env)
        #expect(g.status == 64 && g.stderrLines.count == 1, "\(g.stderr)")
        let t2 = try await Subprocess.gpick(["pick", "--take-or-pick", "--no-camera", "--library", lib.root], env: lib.env)
        #expect(t2.status == 64 && t2.stderrLines.count == 1 && t2.stderr.contains("--take-or-pick"), "\(t2.stderr)")
    }
}
