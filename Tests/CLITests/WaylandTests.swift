import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// The window paths on Wayland, under a real compositor of the test's own (weston's headless
/// backend, WaylandCompositor): the preview's window with each Wayland sink, proven by stamped
/// frames in the compositor's screenshots and by the buffers its protocol log saw; and the
/// picker, whose window is the browser: its page opens in a Wayland window.
@Suite(.serialized) struct WaylandTests {
    static let small = ["--width", "320", "--height", "240", "--source", "test"]

    static func events(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Lines of GLib's or GStreamer's own (`(gpick:12): GStreamer-Wayland-WARNING **: …`).
    static func libraryLines(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { l in
            ["-WARNING **", "-CRITICAL **", "GStreamer-", "GLib-", "GLib-GObject-"].contains { l.contains($0) }
        }
    }

    /// The stamp of the 320×240 test frame shown somewhere on the screen: the frame is found by
    /// its smpte bars (desktop-shell places windows at random), then its top-left edge is
    /// followed from the white and red bars, and the stamp read from the luma there.
    static func shownStamp(_ img: (width: Int, height: Int, pixels: [UInt8])) -> FrameStamp? {
        let (w, h) = (320, 240)
        func bar(_ x: Int, _ y: Int) -> Int? { PreviewTests.bar(Media.pixel(img, x, y)) }
        for y in stride(from: 0, to: img.height, by: 4) {
            for x in 0..<max(0, img.width - w) where (0..<7).allSatisfy({ bar(x + w * (2 * $0 + 1) / 14, y) == $0 }) {
                var left = x + w / 14, top = y
                while left > 0, bar(left - 1, y) == 0 { left -= 1 }
                let red = left + w * 11 / 14
                while top > 0, bar(red, top - 1) == 5 { top -= 1 }
                guard left + w <= img.width, top + h <= img.height else { return nil }
                var luma = [UInt8](repeating: 0, count: w * h)
                for row in 0..<h {
                    for col in 0..<w {
                        let (r, g, b) = Media.pixel(img, left + col, top + row)
                        luma[row * w + col] = UInt8((r * 77 + g * 150 + b * 29) >> 8)
                    }
                }
                return luma.withUnsafeBytes { FrameStamp.read(luma: $0.baseAddress!, stride: w, width: w, height: h) }
            }
        }
        return nil
    }

    /// Polls screenshots until one shows a frame of the test camera (source 1) later than
    /// `after`; nil if none does within `timeout` seconds.
    static func stampOnScreen(_ compositor: WaylandCompositor, after: Int = -1, timeout: Double = 30) async throws -> FrameStamp? {
        let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
        while Date() < deadline {
            if let s = shownStamp(try await compositor.screenshot()), s.sourceID == 1, s.index > after { return s }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return nil
    }

    /// A window preview on Wayland: which sink, the frames the camera stamped as the compositor
    /// shows them, and what reached stderr.
    struct PreviewRun {
        var sink: String?
        var stamps: [FrameStamp] = []
        var window: WaylandCompositor.Window?
        var result: Subprocess.Result
        var shown: Int { (WaylandTests.events(result.stdout).last?["frames"] as? Int) ?? 0 }
    }

    /// Runs the preview until the screen has shown `screens` different frames of the camera and
    /// the compositor has been handed 30 buffers, then ends it as a user would (SIGTERM).
    static func preview(_ extra: [String] = [], env: [String: String] = [:], screens: Int = 2) async throws -> PreviewRun {
        let compositor = try await WaylandCompositor()
        defer { compositor.stop() }
        let dir = TestEnvironment.tempDir()
        // No --sink: a Wayland display alone means a window.
        let p = try Subprocess.start(TestEnvironment.binary, ["preview", "--json", "--output-dir", dir, "--duration", "60"] + small + extra,
                                     env: compositor.environment.merging(env) { $1 })
        try await p.waitForOutput("\"event\":\"started\"")
        let started = events(p.stdoutSoFar).first
        #expect(started?["sink"] as? String == "window", "\(p.stdoutSoFar)")
        // The first screenshot waits for the window's first buffer: weston is single-threaded,
        // and a screenshot taken while it should answer a new window's first configure can delay
        // that answer past waylandsink's 100 ms wait (GStreamer 1.22), after which the sink draws
        // into the unconfigured window and weston ends its connection.
        _ = try await TestEnvironment.eventually(30) { (compositor.window()?.buffersAttached ?? 0) >= 1 }
        #expect(compositor.window()?.protocolError == nil, "\(compositor.window()?.protocolError ?? "")")
        // Screenshots with different frames of the camera, in order: the window shows it live.
        var stamps: [FrameStamp] = []
        while stamps.count < screens, let next = try await stampOnScreen(compositor, after: stamps.last?.index ?? -1) {
            stamps.append(next)
        }
        _ = try await TestEnvironment.eventually(30) { (compositor.window()?.buffersAttached ?? 0) >= 30 }
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        return PreviewRun(sink: started?["window-sink"] as? String, stamps: stamps, window: compositor.window(), result: r)
    }

    @Test func windowPreviewShowsLiveFramesAndNoLibraryWarnings() async throws {
        let run = try await Self.preview()
        #expect(run.result.status == 0, "\(run.result.stderr)")
        #expect(run.sink == "waylandsink")
        #expect(run.stamps.count == 2, "frames seen on screen: \(run.stamps)")
        // Every frame shown is a buffer the compositor got from gpick's window (waylandsink
        // skips one while the compositor has not drawn the last: at most as many as shown).
        let attached = run.window?.buffersAttached ?? 0
        #expect(attached >= 30 && attached <= run.shown + 1, "shown \(run.shown), attached \(attached)")
        // waylandsink warns twice here (weston's headless backend has no linux-dmabuf): not
        // without --verbose. With --json, gpick itself has nothing to say on stderr.
        #expect(run.result.stderr.isEmpty, "\(run.result.stderr)")
    }

    /// What the quiet run hides is there to hide, and --verbose, GPICK_VERBOSE (how gpick hands
    /// verbosity to its helpers) and the user's own GST_DEBUG each show it.
    @Test(arguments: [(["--verbose"], [:]), ([], ["GPICK_VERBOSE": "1"]), ([], ["GST_DEBUG": "waylandsink:5"])])
    func libraryWarningsShowWhenAskedFor(_ args: [String], _ env: [String: String]) async throws {
        let run = try await Self.preview(args, env: env, screens: 1)
        #expect(run.result.status == 0, "\(run.result.stderr)")
        #expect(Self.libraryLines(run.result.stderr).filter { $0.contains("Could not bind to zwp_linux_dmabuf_v1") }.count == 2,
                "\(run.result.stderr.prefix(2000))")
        if env["GST_DEBUG"] != nil {
            // GStreamer's own debug log, which GST_DEBUG asks for, is there too.
            #expect(run.result.stderr.contains("gstwaylandsink.c"), "\(run.result.stderr.prefix(2000))")
        }
    }

    /// A compositor that answers a new window's first configure later than waylandsink's
    /// 100 ms wait (GStreamer 1.22) ends the sink's connection when it draws: the window is
    /// gone for good. The preview ends at once with one line naming the compositor and its
    /// reason, exit 69, where it went on with no window (and hung on SIGTERM when the sink's
    /// display thread spun).
    @Test func aCompositorThatEndsTheWindowEndsThePreviewInOneLine() async throws {
        let compositor = try await WaylandCompositor(readsLate: true)
        defer { compositor.stop() }
        let r = try await Subprocess.gpick(["preview", "--output-dir", TestEnvironment.tempDir(), "--duration", "60"] + Self.small,
                                           env: compositor.environment, timeout: 60)
        let error = compositor.window()?.protocolError
        #expect(error?.contains("xdg_surface has never been configured") == true, "\(error ?? "no protocol error")")
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderrLines.count == 1
                && r.stderr.hasPrefix("gpick: error: the Wayland compositor \(compositor.socket) closed the preview window (xdg_surface@")
                && r.stderr.contains("error 3: xdg_surface has never been configured)"), "\(r.stderr)")
    }

    /// glimagesink, the second sink on Wayland, when waylandsink is not installed.
    @Test func glimagesinkOnWayland() async throws {
        // Under weston's pixman renderer (no GPU) glimagesink's window shows white, at best a
        // first frame (gst-launch-1.0's too), while it hands the compositor a buffer a frame:
        // what is checked is the buffers, not the screen.
        let run = try await Self.preview(env: try WindowSinkTests.restricted(["libgstopengl.so"]), screens: 0)
        #expect(run.result.status == 0, "\(run.result.stderr)")
        #expect(run.sink == "glimagesink")
        let attached = run.window?.buffersAttached ?? 0
        #expect(attached >= 30 && attached <= run.shown + 1, "shown \(run.shown), attached \(attached)")
        #expect(Self.libraryLines(run.result.stderr).isEmpty, "\(run.result.stderr)")
    }

    /// The picker has no window of its own: with a Wayland display (and no X11) it opens its page
    /// in the user's browser, through xdg-open and the user's default http handler
    /// (mimeapps.list). Here that is Chromium on the compositor, and the page its Wayland window
    /// shows is the picker's.
    @Test func pickerOpensItsPageInABrowserWindowOnWayland() async throws {
        let compositor = try await WaylandCompositor()
        defer { compositor.stop() }
        let lib = try await LibrarySheetTests.Library(["red.jpg": "red.jpg"])
        let dir = TestEnvironment.tempDir()
        let browser = "\(dir)/browser.sh"
        let (data, config) = ("\(dir)/data", "\(dir)/config")
        // The browser's pid, to end it after; --app: a window with the page alone.
        try """
            #!/bin/sh
            echo $$ > '\(dir)/browser.pid'
            exec /usr/bin/chromium --ozone-platform=wayland --no-sandbox --disable-gpu --no-first-run \\
                --user-data-dir='\(dir)/profile' --app="$1" >/dev/null 2>&1
            """.write(toFile: browser, atomically: false, encoding: .utf8)
        chmod(browser, 0o755)
        try FileManager.default.createDirectory(atPath: "\(data)/applications", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Test browser\nExec=\(browser) %u\nMimeType=x-scheme-handler/http;\n"
            .write(toFile: "\(data)/applications/gpick-test-browser.desktop", atomically: false, encoding: .utf8)
        try "[Default Applications]\nx-scheme-handler/http=gpick-test-browser.desktop\n"
            .write(toFile: "\(config)/mimeapps.list", atomically: false, encoding: .utf8)
        let p = try Subprocess.start(TestEnvironment.binary, ["pick", "--no-camera", "--json", "--library", lib.root],
                                     env: lib.env.merging(compositor.environment) { $1 }.merging(["XDG_DATA_HOME": data, "XDG_CONFIG_HOME": config]) { $1 })
        defer { ForeignProcess(pidFile: "\(dir)/browser.pid")?.signal(SIGKILL) }
        try await p.waitForOutput("\"event\":\"ready\"")
        // The window's title is the page's, which the browser knows only once the page (served
        // only to the URL's token) has loaded.
        let titled = try await TestEnvironment.eventually(60) { compositor.window()?.title == "gpick pick" }
        #expect(titled, "window: \(String(describing: compositor.window()))")
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 130, "cancelled: \(r.stderr)")
        #expect(Self.libraryLines(r.stderr).isEmpty, "\(r.stderr)")
    }
}
