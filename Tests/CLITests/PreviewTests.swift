import GpickWeb
import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// Previews shown for real: a window on an X server of the test's own (Xvfb), the terminal in
/// tmux, the HTTP page in headless Chromium and the stream read by a plain client.
@Suite(.serialized) struct PreviewTests {
    static let small = ["--width", "320", "--height", "240", "--source", "test"]

    /// The seven bars of the smpte pattern, left to right, as which of R, G, B are lit.
    static let bars: [(Bool, Bool, Bool)] = [(true, true, true), (true, true, false), (false, true, true), (false, true, false),
                                             (true, false, true), (true, false, false), (false, false, true)]

    /// Which bar a colour is (sinks and JPEG shift levels; which channels are lit does not change).
    static func bar(_ c: (Int, Int, Int)) -> Int? {
        let lit = (c.0 > 128, c.1 > 128, c.2 > 128)
        return bars.firstIndex { $0 == lit }
    }

    /// Checks the bars at height `y` of an image `width` pixels wide showing the pattern from x=0.
    static func showsBars(_ img: (width: Int, height: Int, pixels: [UInt8]), patternWidth: Int, y: Int) -> Bool {
        (0..<7).allSatisfy { i in bar(Media.pixel(img, patternWidth * (2 * i + 1) / 14, y)) == i }
    }

    static func events(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func windowShowsThePatternAndAnswersKeys() async throws {
        let dir = TestEnvironment.tempDir()
        let runtime = TestEnvironment.tempDir("xdg")
        chmod(runtime, 0o700)
        let display = try await VirtualDisplay()
        defer { display.stop() }
        let env = ["DISPLAY": display.name, "XDG_RUNTIME_DIR": runtime]
        let p = try Subprocess.start(TestEnvironment.binary, ["preview", "--json", "--output-dir", dir, "--duration", "3600",
                                                             "--front", "test:pinwheel?id=2"] + Self.small, env: env)
        try await p.waitForOutput("\"event\":\"started\"")
        #expect(Self.events(p.stdoutSoFar).first?["sink"] as? String == "window", "a display means a window by default")
        // The window appears at the top left of the bare X server and shows the bars.
        var shown = false
        for _ in 0..<50 where !shown {
            shown = Self.showsBars(try await display.screenshot(dir), patternWidth: 320, y: 100)
            if !shown { try await Task.sleep(nanoseconds: 100_000_000) }
        }
        #expect(shown, "the screenshot does not show the test pattern")
        // The window is gpick's (glimagesink would call it "OpenGL renderer"); keys go to it: s
        // takes a still, f flips, q quits.
        #expect(Self.events(p.stdoutSoFar).first?["window-sink"] as? String == "glimagesink")
        var search = try await Subprocess.run("/usr/bin/xdotool", ["search", "--name", "^gpick$"], env: env)
        for _ in 0..<50 where search.stdoutLines.isEmpty {  // titled right after its first frame
            try await Task.sleep(nanoseconds: 100_000_000)
            search = try await Subprocess.run("/usr/bin/xdotool", ["search", "--name", "^gpick$"], env: env)
        }
        let names = try await display.windowNames()
        let window = try #require(search.stdoutLines.last, "no window titled gpick: \(names)")
        for (key, event) in [("s", "\"file-written\""), ("f", "\"flip\"")] {
            _ = try await Subprocess.run("/usr/bin/xdotool", ["key", "--window", window, key], env: env)
            try await p.waitForOutput(event, timeout: 10)
        }
        // xdotool sends the release of q to a window that may already be gone; it has hung on
        // that under load (60 s, once). What is tested is gpick: that it quits on q.
        _ = try? await Subprocess.run("/usr/bin/xdotool", ["key", "--window", window, "q"], env: env, timeout: 5)
        let r = try await p.wait(timeout: 10)
        #expect(r.status == 0, "\(r.stderr)")
        let still = try #require(Self.events(r.stdout).first { $0["event"] as? String == "file-written" }?["path"] as? String)
        #expect(try await Media.frames(still).first?.stamp?.sourceID == 1, "s took the back camera's current frame")
        #expect((Self.events(r.stdout).last?["frames"] as? Int ?? 0) > 10)
    }

    /// tmux on a socket of the test's own. Its server, and whatever runs in it, ends with the
    /// test however the test ends: a test that throws midway leaves no gpick running behind it.
    final class Tmux: Sendable {
        let socket = "gpick-test-\(getpid())-\(UUID().uuidString.prefix(6))"
        deinit { _ = try? Spawn.run("/usr/bin/tmux", ["-L", socket, "kill-server"]) }
        func run(_ args: [String]) async throws -> Subprocess.Result {
            try await Subprocess.run("/usr/bin/tmux", ["-L", socket] + args)
        }
        func pane(escapes: Bool) async throws -> String {
            try await run(["capture-pane", "-p", "-t", "t"] + (escapes ? ["-e"] : [])).stdout
        }
    }

    /// The background colours of one captured row, left to right, one per cell.
    static func rowColours(_ line: Substring) -> [(Int, Int, Int)] {
        var out: [(Int, Int, Int)] = []
        var bg = (0, 0, 0)
        var rest = line[...]
        while !rest.isEmpty {
            if rest.hasPrefix("\u{1b}[") {
                let end = rest.firstIndex { $0.isLetter } ?? rest.endIndex
                let params = rest[rest.index(rest.startIndex, offsetBy: 2)..<end].split(separator: ";").compactMap { Int($0) }
                var i = 0
                while i < params.count {
                    if params[i] == 48, i + 4 < params.count + 0, params.count >= i + 5, params[i + 1] == 2 {
                        bg = (params[i + 2], params[i + 3], params[i + 4]); i += 5
                    } else if params[i] == 38, params.count >= i + 5, params[i + 1] == 2 { i += 5 } else { i += 1 }
                }
                rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
            } else {
                if rest.first == "▀" { out.append(bg) }
                rest = rest.dropFirst()
            }
        }
        return out
    }

    @Test func terminalPreviewDrawsTheBarsInTmux() async throws {
        let dir = TestEnvironment.tempDir()
        let tmux = Tmux()
        let cmd = ([TestEnvironment.binary, "preview", "--sink", "terminal", "--output-dir", dir, "--duration", "3600"] + Self.small)
            .map { "'\($0)'" }.joined(separator: " ")
        // The tmux server outlives this call: it must not keep any of the test's descriptors
        // (Foundation watches one to learn that its child ended).
        let closeAll = "for f in /proc/$$/fd/*; do n=${f##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done 2>/dev/null"
        _ = try await Subprocess.run("/bin/bash", ["-c", "\(closeAll); tmux -L \(tmux.socket) new-session -d -s t -x 80 -y 24 \"$0\" </dev/null >/dev/null 2>&1",
                                                   "\(cmd); echo gpick-exit=$?; sleep 60"], timeout: 20)
        defer { Task { _ = try? await tmux.run(["kill-server"]) } }
        // Waits are hang bounds (each tmux call is a process of its own: slow on a busy machine).
        let bound = { Date().addingTimeInterval(HangBound.seconds(20)) }
        var pane = ""
        var deadline = bound()
        while !pane.contains("gpick ·") && Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
            pane = try await tmux.pane(escapes: false)
        }
        #expect(pane.contains("f flip"), "status line: \(pane.suffix(200))")
        // 320×240 in 80×23 cells: 30 cells wide and 23 rows (46 pixel rows); row 8 crosses the bars.
        let row = try await tmux.pane(escapes: true).split(separator: "\n")[8]
        let colours = Self.rowColours(row)
        #expect(colours.count >= 28, "\(colours.count) cells")
        let seen = colours.compactMap(Self.bar).reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }
        #expect(seen == Array(0..<7), "bars seen: \(seen)")
        // A resize redraws at the new size.
        _ = try await tmux.run(["resize-window", "-t", "t", "-x", "50", "-y", "16"])
        var resized = false
        deadline = bound()
        while !resized && Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
            let lines = try await tmux.pane(escapes: true).split(separator: "\n", omittingEmptySubsequences: false)
            let plain = try await tmux.pane(escapes: false)
            resized = lines.count >= 10 && Self.rowColours(lines[5]).count <= 50 && plain.contains("gpick ·")
        }
        #expect(resized)
        // q quits and the terminal is back to normal: the shell's line shows on the main screen.
        _ = try await tmux.run(["send-keys", "-t", "t", "q"])
        deadline = bound()
        while !pane.contains("gpick-exit=") && Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
            pane = try await tmux.pane(escapes: false)
        }
        #expect(pane.contains("gpick-exit=0"), "\(pane)")
        #expect(!pane.contains("▀"), "the alternate screen was left")
    }

    /// Reads `parts` JPEG parts from the MJPEG stream with a plain HTTP client (curl).
    /// `url` is the page's, with its token: the stream is asked for with the same token.
    static func streamParts(_ url: String, parts: Int, dir: String) async throws -> [[UInt8]] {
        let file = "\(dir)/stream-\(UUID().uuidString.prefix(6)).bin"
        _ = try await Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "2", "-o", file, url.replacing("/?token=", with: "/stream.mjpg?token=")])
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        var out: [[UInt8]] = []
        var i = 0
        while out.count < parts, let start = (i..<max(i, data.count - 1)).first(where: { data[$0] == 0xFF && data[$0 + 1] == 0xD8 }),
              let end = (start..<max(start, data.count - 1)).first(where: { data[$0] == 0xFF && data[$0 + 1] == 0xD9 }) {
            out.append(Array(data[start...end + 1]))
            i = end + 2
        }
        return out
    }

    @Test func httpPreviewInChromiumAndAPlainClient() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["preview", "--sink", "http", "--port", "0", "--json", "--duration", "3600"]
                                     + Self.small, env: ["DISPLAY": ""])
        let out = try await p.waitForOutput("\"url\"")
        let url = try #require(Self.events(out).first { $0["event"] as? String == "started" }?["url"] as? String)
        #expect(url.hasPrefix("http://127.0.0.1:") && url.contains("/?token="))
        // The camera is as private as the library: without the token, or by another name, nothing.
        let bare = String(url.prefix { $0 != "?" })
        let port = bare.split(separator: ":").last.map { $0.filter(\.isNumber) } ?? ""
        for args in [[bare + "stream.mjpg"], [bare + "snapshot.jpg"], [bare],
                     ["-H", "Host: attacker.example:\(port)", url.replacing("/?token=", with: "/snapshot.jpg?token=")]] {
            let c = try await Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "2", "-o", "/dev/null", "-w", "%{http_code}"] + args)
            #expect(c.stdout == "403", "\(args)")
        }
        // Two viewers at once, each getting whole JPEG frames of the camera.
        async let a = Self.streamParts(url, parts: 3, dir: dir)
        async let b = Self.streamParts(url, parts: 3, dir: dir)
        let (pa, pb) = try await (a, b)
        #expect(pa.count == 3 && pb.count == 3)
        if let jpeg = pa.last {
            let file = "\(dir)/part.jpg"
            try Data(jpeg).write(to: URL(fileURLWithPath: file))
            #expect(try await Media.frames(file).first?.stamp?.sourceID == 1, "a frame of the test camera")
        }
        // A browser shows the page with the stream.
        let shot = "\(dir)/page.png"
        let c = try await Subprocess.run("/usr/bin/chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                                              "--window-size=640,520", "--virtual-time-budget=3000",
                                                              "--screenshot=\(shot)", url], timeout: 60)
        #expect(FileManager.default.fileExists(atPath: shot), "\(c.stderr.suffix(400))")
        let img = try await Media.rgb(shot)
        #expect(Self.showsBars(img, patternWidth: 640, y: 150), "the page shows the test pattern")
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 10)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func previewRunsBesideARecordingInAScript() async throws {
        let dir = TestEnvironment.tempDir()
        let script = "\(dir)/p.gpick"
        try "preview start http\nrecord 2s r.mp4\npreview stop\nexpect r.mp4 frames == 60\nexpect r.mp4 stamps ..\n"
            .write(toFile: script, atomically: false, encoding: .utf8)
        let r = try await Subprocess.gpick(["script", script, "--output-dir", dir, "--preview-port", "0", "--json"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let started = Self.events(r.stdout).first { $0["event"] as? String == "preview-started" }
        #expect((started?["url"] as? String)?.hasPrefix("http://127.0.0.1:") == true)
        #expect((Self.events(r.stdout).first { $0["event"] as? String == "preview-stopped" }?["frames"] as? Int ?? 0) > 30)
    }

    @Test func noDisplayAndNoTerminalListsTheChoices() async throws {
        let r = try await Subprocess.gpick(["preview"] + Self.small, env: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(r.status == 64)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("--sink http"), "\(r.stderr)")
    }

    /// A port another program holds: one line with the CLI's remedy, exit 64.
    @Test func portInUseNamesTheFlagToChooseAnother() async throws {
        let holder = try MJPEGServer(port: 0)
        defer { holder.close() }
        let r = try await Subprocess.gpick(["preview", "--sink", "http", "--port", "\(holder.port)", "--duration", "5"] + Self.small)
        #expect(r.status == 64)
        #expect(r.stderrLines == ["gpick: error: port \(holder.port) on 127.0.0.1 is in use (choose another with --port)"], "\(r.stderr)")
    }
}
