import Foundation
import GpickTestSupport
import Testing

/// A file given as the camera that cannot be one: one line in the user's terms, naming the file
/// and what is wrong with it, exit 65 (69 for a missing plugin), nothing written, and none of
/// GStreamer's own text (element names, source locations) unless --verbose asks for it.
@Suite(.serialized) struct SourceErrorTests {
    static let made = SharedFixture { () throws -> String in
        let dir = TestEnvironment.tempDir("fixtures")
        func ffmpeg(_ args: [String]) throws {
            let r = try Subprocess.runSync("/usr/bin/ffmpeg", ["-loglevel", "error", "-y"] + args)
            guard r.status == 0 else { throw TestFailure("ffmpeg \(args): \(r.stderr)") }
        }
        try ffmpeg(["-f", "lavfi", "-i", "sine=d=1", "\(dir)/tone.mp3"])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=320x240", "-pix_fmt", "yuv420p", "-c:v", "libvpx-vp9", "\(dir)/clip.webm"])
        // A video track with no frames in it.
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=320x240", "-frames:v", "0", "-c:v", "libx264", "\(dir)/noframes.mkv"])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=320x240", "-pix_fmt", "yuv420p", "-c:v", "libx264", "\(dir)/cut.mkv"])
        let whole = FileManager.default.contents(atPath: "\(dir)/cut.mkv")!
        try? whole.prefix(400).write(to: URL(fileURLWithPath: "\(dir)/cut.mkv"))
        try? Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(to: URL(fileURLWithPath: "\(dir)/noise.bin"))
        _ = FileManager.default.createFile(atPath: "\(dir)/empty.mp4", contents: Data())
        return dir
    }

    /// Files other programs wrote (ffmpeg), made once for the suite, off the cooperative pool.
    static var fixtures: String { get async throws { try await made.value() } }

    struct Case: CustomStringConvertible, Sendable {
        let file: String
        let says: String
        var description: String { file }
    }

    static let cases: [Case] = [
        Case(file: "/etc/passwd", says: "/etc/passwd is not a media file (it looks like text)"),
        Case(file: "FIX/tone.mp3", says: "FIX/tone.mp3 has no video stream (audio: MPEG-1 Layer 3 (MP3))"),
        Case(file: "FIX/noframes.mkv", says: "FIX/noframes.mkv ended before its first frame (it holds no video frames)"),
        Case(file: "FIX/cut.mkv", says: "FIX/cut.mkv is damaged or truncated"),
        Case(file: "FIX/noise.bin", says: "FIX/noise.bin is not a media file"),
        Case(file: "FIX/empty.mp4", says: "FIX/empty.mp4 is empty (0 bytes)"),
    ]

    /// No GStreamer internals in the line: element paths, source locations, element names.
    static func gstreamerText(in line: String) -> Bool {
        ["/Gst", ".c(", ".c:", "decodebin", "demux", "typefind", "Internal data stream error"].contains { line.contains($0) }
    }

    @Test(arguments: cases)
    func oneLineInTheUsersTerms(_ c: Case) async throws {
        let fixtures = try await Self.fixtures
        let file = c.file.replacingOccurrences(of: "FIX", with: fixtures)
        let says = c.says.replacingOccurrences(of: "FIX", with: fixtures)
        for command in [["snap", "-o", "x.jpg"], ["record", "--duration", "1", "-o", "x.mp4"]] {
            let out = TestEnvironment.tempDir("out")
            let args = [command[0], "--source", "file:\(file)", "--width", "320", "--height", "240"]
                + command.dropFirst().map { $0.hasPrefix("x.") ? "\(out)/\($0)" : $0 }
            let start = Date()
            let r = try await Subprocess.gpick(args, timeout: 30)
            // A hang bound, not a speed test: it holds on a loaded 2-core machine (make test runs eight at once).
            #expect(Date().timeIntervalSince(start) < 15, "\(command[0]) \(c.file) took \(Date().timeIntervalSince(start)) s")
            #expect(r.status == 65, "\(command[0]) \(c.file): exit \(r.status): \(r.stderr)")
            #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("gpick: error: "), "\(r.stderr)")
            #expect(r.stderr.contains(says), "\(command[0]): \(r.stderr)")
            #expect(!Self.gstreamerText(in: r.stderr), "\(r.stderr)")
            #expect(TestEnvironment.files(in: out).isEmpty, "left behind: \(TestEnvironment.files(in: out))")
        }
    }

    /// --verbose adds GStreamer's own account after the line; the line itself is the same.
    @Test func verboseAddsGStreamersText() async throws {
        let fixtures = try await Self.fixtures
        let file = "\(fixtures)/cut.mkv"
        let r = try await Subprocess.gpick(["snap", "--source", "file:\(file)", "-o", "\(TestEnvironment.tempDir())/x.jpg", "--verbose"])
        #expect(r.status == 65)
        #expect(r.stderrLines.first?.hasPrefix("gpick: error: \(file) is damaged or truncated") == true, "\(r.stderr)")
        #expect(r.stderrLines.dropFirst().contains { $0.hasPrefix("gpick: detail: ") }, "\(r.stderr)")
    }

    /// A format no installed plugin decodes: VP9 with the vpx plugin left out of the registry.
    @Test func missingDecoderIsNamedWithItsPackage() async throws {
        let dir = TestEnvironment.tempDir()
        let plugins = "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"
        for f in TestEnvironment.files(in: plugins) where f.hasSuffix(".so") && !f.contains("vpx") && !f.contains("libav") {
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/\(f)", withDestinationPath: "\(plugins)/\(f)")
        }
        let fixtures = try await Self.fixtures
        let r = try await Subprocess.gpick(["snap", "--source", "file:\(fixtures)/clip.webm", "-o", "\(TestEnvironment.tempDir())/x.jpg"],
                                           env: ["GST_PLUGIN_SYSTEM_PATH_1_0": dir, "GST_REGISTRY": "\(dir)/registry.bin"])
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("clip.webm") && r.stderr.contains("VP9")
                && r.stderr.contains("gstreamer1.0-plugins-good"), "\(r.stderr)")
    }

    /// Caps the session cannot use: a source that only offers still-image rates (framerate 0/1).
    @Test func capsThatCannotBeNegotiated() async throws {
        let pipelines = TestEnvironment.tempDir("pipelines")
        for f in TestEnvironment.files(in: "\(TestEnvironment.repoRoot)/pipelines") {
            var text = try String(contentsOfFile: "\(TestEnvironment.repoRoot)/pipelines/\(f)", encoding: .utf8)
            if f == "source-test.yaml" {
                text = text.replacingOccurrences(of: "pipeline: videotestsrc name=src is-live=true",
                                                 with: "pipeline: videotestsrc name=src is-live=true ! video/x-raw,framerate=0/1")
            }
            try text.write(toFile: "\(pipelines)/\(f)", atomically: false, encoding: .utf8)
        }
        let out = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--duration", "1", "--source", "test", "--pipelines", pipelines, "-o", "\(out)/x.mp4"])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("format not supported: test:smpte"), "\(r.stderr)")
        #expect(!Self.gstreamerText(in: r.stderr), "\(r.stderr)")
        #expect(TestEnvironment.files(in: out).isEmpty)
    }
}
