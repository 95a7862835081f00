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

        init(_ lib: Library, _ args: [String], columns: Int = 100, rows: Int = 30, env: [String: String] = [:]) async throws {
            let vars = lib.env.merging(env) { $1 }.map { "'\($0)=\($1)'" }.joined(separator: " ")
            let cmd = ([TestEnvironment.binary, "pick", "--ui", "terminal", "--library", lib.root] + args).map { "'\($0)'" }.joined(separator: " ")
            let closeAll = "for f in /proc/$$/fd/*; do n=${f##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done 2>/dev/null"
            _ = try await Subprocess.run("/bin/bash", ["-c", "\(closeAll); tmux -L \(tmux.socket) new-session -d -s t -x \(columns) -y \(rows) \"$0\" </dev/null >/dev/null 2>&1",
                                                       "env \(vars) \(cmd) >'\(out)' 2>'\(err)'; echo gpick-exit=$?; sleep 60"], timeout: 20)
        }

        func pane(escapes: Bool = false) async throws -> String { try await tmux.pane(escapes: escapes) }

        /// Waits until the screen shows `text` (at most `seconds`), and returns it.
        @discardableResult
        func waitFor(_ text: String, seconds: Double = 15) async throws -> String {
            var pane = ""
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                pane = try await self.pane()
                if pane.contains(text) { return pane }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            Issue.record("the screen never showed \"\(text)\": \(pane)")
            return pane
        }

        func keys(_ keys: String...) async throws {
            for key in keys {
                _ = try await tmux.run(["send-keys", "-t", "t", key])
                // Each key is drawn before the next, as a person types.
                try await Task.sleep(nanoseconds: 150_000_000)
            }
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
        let picker = try await Running(lib, ["--no-camera", "--multi", "--columns", "3"], rows: 40)
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

    @Test func theCameraCellSnapsAResizeRedrawsAndEscapeCancels() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let out = TestEnvironment.tempDir("pick-tty-out")
        let picker = try await Running(lib, ["--output-dir", out, "--source", "test", "--width", "320", "--height", "240", "--json"],
                                       columns: 90, rows: 28)
        try await picker.waitFor("camera back")
        // The cursor starts on the camera cell: Enter takes a photo, which comes first, selected.
        try await picker.keys("Enter")
        var pane = try await picker.waitFor("took pick-0001.jpg")
        #expect(pane.contains("✓ pick-0001.jpg") && pane.contains("1 selected"), "\(pane)")
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
        #expect(events.map { $0["event"] as? String ?? "" }.filter { $0 != "problem" } == ["ready", "shown", "captured"], "\(r.stdout)")
        #expect(events.first?["graphics"] as? String == "blocks", "tmux answers for itself: half blocks")
        #expect(!r.pane.contains("▀"), "the alternate screen was left")
    }

    @Test func takeOrPickWithTheTestCameraTakesAPhoto() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let out = TestEnvironment.tempDir("take-or-pick")
        let picker = try await Running(lib, ["--take-or-pick", "--output-dir", out, "--source", "test", "--width", "320", "--height", "240"])
        let pane = try await picker.waitFor("Choose from library")
        #expect(pane.contains("›Take photo"), "the question comes first, on Take photo: \(pane)")
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
        let pane = try await picker.waitFor("No camera can be opened")
        #expect(pane.contains("/dev/video99") && pane.contains("red.jpg") && !pane.contains("Take photo"), "\(pane)")
        try await picker.keys("Enter")
        let r = try await picker.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == listed[0].path + "\n", "\(r.stdout)")
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
