import Foundation
import GpickTestSupport
import Testing

/// `gpick devices --formats FILE`: the mode gpick would choose, asked of a camera's pasted
/// `v4l2-ctl --list-formats-ext` listing, with no camera.
struct DevicesFormatsTests {
    static let c922 = "formats/logitech-c922.txt"

    static func requireListing() throws -> String {
        try #require(CameraData.verified.contains(c922), "\(c922) is not in ../shared/cameras: the camera tests need it")
        return CameraData.path(c922)
    }

    /// With --json the answer is one object: the mode, and why where it matters.
    @Test func theAnswerIsOneObject() async throws {
        let file = try Self.requireListing()
        let r = try await Subprocess.gpick(["devices", "--formats", file, "--width", "1920", "--height", "1080", "--fps", "30", "--json"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let lines = r.stdoutLines.filter { !$0.isEmpty }
        try #require(lines.count == 1, "\(r.stdout)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let mode = try #require(o["mode"] as? [String: Any])
        #expect(mode["format"] as? String == "MJPG" && mode["width"] as? Int == 1920 && mode["height"] as? Int == 1080)
        #expect(mode["framerate"] as? String == "30/1")
        #expect(o["reason"] as? String == "YUYV 1920x1080 only at 5 fps: MJPG used")
        #expect((o["modes"] as? [String])?.count == 36)
        #expect(o["camera"] as? String == "C922 Pro Stream Webcam")
    }

    /// Without --json: the camera's modes, the chosen one marked, and the choice with its reason.
    @Test func theTableWithTheChoiceMarked() async throws {
        let file = try Self.requireListing()
        let r = try await Subprocess.gpick(["devices", "--formats", file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines.first == "C922 Pro Stream Webcam:")
        #expect(r.stdoutLines.contains("  * MJPG 1920x1080 @ 30, 24, 20, 15, 10, 7.5, 5 fps"), "\(r.stdout)")
        #expect(r.stdoutLines.contains("    YUYV 2304x1536 @ 2 fps"), "\(r.stdout)")
        #expect(r.stdoutLines.filter { $0.hasPrefix("  *") }.count == 1)
        #expect(r.stdoutLines.last == "default: MJPG 1920x1080 @ 30 fps (YUYV 1920x1080 only at 5 fps: MJPG used)")
        // Piped, as `v4l2-ctl --list-formats-ext | gpick devices --formats -`.
        let piped = try await Subprocess.gpick(["devices", "--formats", "-", "--mode", "1280x720@60"], stdin: try String(contentsOfFile: file, encoding: .utf8))
        #expect(piped.status == 0 && piped.stdoutLines.last == "for 1280x720@60: MJPG 1280x720 @ 60 fps (YUYV 1280x720 only at 10 fps: MJPG used)", "\(piped.stdout)\(piped.stderr)")
        let nothing = try await Subprocess.gpick(["devices", "--formats", "-"], stdin: "")
        #expect(nothing.status == 65 && nothing.stderrLines == ["gpick: error: standard input: no format list found (v4l2-ctl's list of formats, with their sizes and frame intervals)"],
                "\(nothing.stderr)")
    }

    /// A mode the camera lacks, a missing file, a file with no listing, a flag without --formats:
    /// one line each, in the user's terms, and the exit codes gpick uses for them.
    @Test func badRequestsAreOneLine() async throws {
        let file = try Self.requireListing()
        let impossible = try await Subprocess.gpick(["devices", "--formats", file, "--mode", "1920x1080@60"])
        #expect(impossible.status == 64 && impossible.stderrLines.count == 1, "\(impossible.stderr)")
        #expect(impossible.stderr.contains("no mode 1920x1080@60; nearest: MJPG 1920x1080 @ 30 fps, MJPG 1280x720 @ 60 fps"), "\(impossible.stderr)")
        let missing = try await Subprocess.gpick(["devices", "--formats", "/nonexistent/c920.txt"])
        #expect(missing.status == 65 && missing.stderrLines == ["gpick: error: no such file: /nonexistent/c920.txt"], "\(missing.stderr)")
        let dir = TestEnvironment.tempDir()
        try "Driver Info:\n\tCard type : nothing\n".write(toFile: dir + "/x.txt", atomically: true, encoding: .utf8)
        let empty = try await Subprocess.gpick(["devices", "--formats", dir + "/x.txt"])
        #expect(empty.status == 65 && empty.stderrLines.count == 1 && empty.stderr.contains("no format list found"), "\(empty.stderr)")
        let alone = try await Subprocess.gpick(["devices", "--mode", "max"])
        #expect(alone.status == 64 && alone.stderrLines == ["gpick: error: --mode goes with --formats FILE"], "\(alone.stderr)")
        let bad = try await Subprocess.gpick(["devices", "--formats", file, "--mode", "1920x1080@30/HEVC"])
        #expect(bad.status == 64 && bad.stderrLines.count == 1 && bad.stderr.contains("HEVC is not a format gpick can take"), "\(bad.stderr)")
    }
}
