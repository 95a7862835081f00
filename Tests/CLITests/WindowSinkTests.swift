import Foundation
import GpickTestSupport
import Testing

/// The window preview with only some sink plugins installed: a registry of its own over a plugin
/// directory that holds just the session's plugins and the chosen sinks. Whatever the subset, the
/// preview opens a window with a sink that works, or says in one line what it tried and which
/// packages to install (exit 69), never a crash; and `doctor` says the same.
@Suite(.serialized) struct WindowSinkTests {
    static let system = "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"
    /// What a test-source session with a window preview needs besides the sink.
    static let session = ["libgstcoreelements.so", "libgstvideotestsrc.so", "libgstvideoconvertscale.so", "libgstapp.so"]

    struct Case: CustomStringConvertible, Sendable {
        let sinks: [String]
        /// The sink expected in use, or nil for the one-line failure.
        let chosen: String?
        /// What the failure line names.
        let mentions: [String]
        var description: String { sinks.isEmpty ? "no sink plugins" : sinks.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(sinks: [], chosen: nil,
             mentions: ["glimagesink: not installed", "xvimagesink: not installed", "ximagesink: not installed", "gstreamer1.0-gl", "gstreamer1.0-x"]),
        // What autovideosink would fall back to here: Xvfb has no XVideo, and kmssink, fbdevsink
        // and dfbvideosink have no display to use (dfbvideosink crashed gpick that way).
        Case(sinks: ["libgstxvimagesink.so", "libgstkms.so", "libgstdirectfb.so", "libgstfbdevsink.so", "libgstautodetect.so"], chosen: nil,
             mentions: ["xvimagesink: could not initialise Xv output", "glimagesink: not installed", "gstreamer1.0-gl"]),
        Case(sinks: ["libgstximagesink.so", "libgstautodetect.so"], chosen: "ximagesink", mentions: []),
        Case(sinks: ["libgstxvimagesink.so", "libgstximagesink.so"], chosen: "ximagesink", mentions: []),
        Case(sinks: ["libgstopengl.so", "libgstximagesink.so"], chosen: "glimagesink", mentions: []),
    ]

    /// A plugin directory with only `plugins`, and the environment that makes GStreamer use it.
    static func restricted(_ plugins: [String]) throws -> [String: String] {
        let dir = TestEnvironment.tempDir("plugins")
        for p in session + plugins {
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/\(p)", withDestinationPath: "\(system)/\(p)")
        }
        return ["GST_PLUGIN_SYSTEM_PATH_1_0": dir, "GST_PLUGIN_PATH_1_0": "", "GST_REGISTRY": "\(dir)/registry.bin"]
    }

    static func events(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test(arguments: cases)
    func previewUsesAWorkingSinkOrSaysWhy(_ c: Case) async throws {
        let display = try await VirtualDisplay()
        defer { display.stop() }
        let runtime = TestEnvironment.tempDir("xdg")
        chmod(runtime, 0o700)
        let env = try Self.restricted(c.sinks).merging(["DISPLAY": display.name, "XDG_RUNTIME_DIR": runtime]) { $1 }
        let dir = TestEnvironment.tempDir()
        let args = ["preview", "--sink", "window", "--json", "--duration", "30", "--source", "test",
                    "--width", "320", "--height", "240", "--output-dir", dir]
        let doctor = try await Subprocess.gpick(["doctor", "--json"], env: env)
        let check = try #require(Self.events(doctor.stdout).first { $0["check"] as? String == "preview window" }, "\(doctor.stdout)")

        guard let chosen = c.chosen else {
            let r = try await Subprocess.gpick(args, env: env, timeout: 30)
            #expect(r.status == 69, "exit \(r.status): \(r.stderr)")
            #expect(r.stderrLines.count == 1, "\(r.stderr)")
            for m in c.mentions { #expect(r.stderr.contains(m), "no \"\(m)\" in: \(r.stderr)") }
            // No GStreamer debug text: source locations, object paths.
            #expect(![".c:", ".c(", "Gst", "/GstPipeline"].contains { r.stderr.contains($0) }, "\(r.stderr)")
            // doctor says the same, and fails.
            #expect(check["ok"] as? Bool == false)
            #expect((check["message"] as? String).map { r.stderr.contains($0) } == true, "doctor: \(check), preview: \(r.stderr)")
            #expect(doctor.status == 69)
            return
        }
        let p = try Subprocess.start(TestEnvironment.binary, args, env: env)
        try await p.waitForOutput("\"event\":\"started\"")
        #expect(Self.events(p.stdoutSoFar).first?["window-sink"] as? String == chosen)
        #expect(check["sink"] as? String == chosen, "doctor: \(check)")
        // The window is there and titled gpick (glimagesink titles it after its first frame).
        var names: [String] = []
        for _ in 0..<50 {
            names = try await display.windowNames()
            if names.contains("gpick") { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(names.contains("gpick"), "windows: \(names)")
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 15)
        #expect(r.status == 0, "\(r.stderr)")
        #expect((Self.events(r.stdout).last?["frames"] as? Int ?? 0) > 0, "\(r.stdout)")
    }

    @Test func noDisplayIsOneLineAndDoctorSaysTheOtherPreviewsRemain() async throws {
        let r = try await Subprocess.gpick(["preview", "--sink", "window", "--source", "test", "--duration", "5"], env: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(r.status == 69 && r.stderrLines.count == 1 && r.stderr.contains("no display"), "\(r.status): \(r.stderr)")
        let doctor = try await Subprocess.gpick(["doctor", "--json"], env: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        let check = try #require(Self.events(doctor.stdout).first { $0["check"] as? String == "preview window" })
        #expect(check["ok"] as? Bool == true && check["sink"] is NSNull, "\(check)")
        #expect(doctor.status == 0, "\(doctor.stdout)")
    }
}
