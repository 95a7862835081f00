import Foundation
import GpickTestSupport
import Testing

/// `gpick timelapse`: a frame every --every for --for, played at --playback-fps, proven by the
/// test source's stamps; a kill leaves a file that plays.
@Suite struct TimelapseTests {
    static let small = ["--width", "320", "--height", "240"]

    /// Three seconds at a frame in 0.2 s: fifteen frames, each 0.2 s (six of the source's
    /// frames) after the one before, played at 10 fps.
    @Test func framesAreTakenEveryIntervalAndPlayAtTheirRate() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["timelapse", "--source", "test", "--every", "200ms", "--for", "3s", "--playback-fps", "10",
                                            "-o", "\(dir)/lapse.mp4", "--json"] + Self.small, timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let e = WatchTests.events(r)
        let written = try #require(e.first { $0["event"] as? String == "file-written" }, "\(e)")
        #expect(written["frames"] as? Int == 15 && written["duration"] as? Double == 1.5, "\(written)")
        let stamps = try await Media.stampIndices("\(dir)/lapse.mp4").compactMap { $0 }
        #expect(stamps.count == 15, "\(stamps)")
        // Taken on the monotonic clock: six source frames apart. The frame taken is the one at
        // hand, which a loaded machine's session delivers late or in bursts (one full run had
        // 5, 13, 19, … 91), so a step may be a few frames off; the span holds the schedule.
        let steps = zip(stamps, stamps.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { (2...10).contains($0) } && abs((stamps.last ?? 0) - (stamps.first ?? 0) - 14 * 6) <= 6, "\(stamps)")
        let info = try await Media.discover("\(dir)/lapse.mp4")
        #expect(abs(Double(info.duration) / 1e9 - 1.5) < 0.11, "\(info.duration) ns")
        #expect(try await WatchClipTests.ffprobeFrames("\(dir)/lapse.mp4") == 15)
    }

    /// The file plays while it is written: once a reader sees eleven frames in it, a kill -9 takes
    /// none of them away, and every frame in it had been announced as taken (a frame enters the
    /// file when the next one is taken: MP4 needs the next frame's time to write one).
    @Test func aTimelapseCutByKillNinePlays() async throws {
        let dir = TestEnvironment.tempDir(), path = "\(dir)/cut.mp4"
        let p = try Subprocess.start(TestEnvironment.binary, ["timelapse", "--source", "test", "--every", "100ms",
                                                              "-o", path, "--json"] + Self.small)
        defer { p.signal(SIGKILL) }
        let deadline = Date().addingTimeInterval(HangBound.seconds(60))
        // Read as it grows, as any player would; before its first index it is not a movie yet.
        while (try? await WatchClipTests.ffprobeFrames(path)).map({ $0 < 11 }) ?? true {
            guard Date() < deadline, p.process.isRunning else { throw TestFailure("no eleven frames readable: \(p.stdoutSoFar.suffix(400))") }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        p.signal(SIGKILL)
        _ = try await p.wait(timeout: 20)
        let stamps = try await Media.stampIndices(path).compactMap { $0 }
        #expect(stamps.count >= 11, "\(stamps)")
        #expect(try await WatchClipTests.ffprobeFrames(path) == stamps.count)
        let taken = p.eventsSoFar.filter { $0["event"] as? String == "frame-taken" }.count
        #expect(stamps.count <= taken, "\(stamps.count) frames in the file, \(taken) announced")
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "\(stamps)")
    }

    /// In a script: the next line runs once the timelapse is written.
    @Test func aScriptMakesATimelapse() async throws {
        let dir = TestEnvironment.tempDir(), out = TestEnvironment.tempDir()
        try "timelapse 2s every 250ms lapse.mp4\nexpect lapse.mp4 frames == 8\n".write(toFile: "\(dir)/t.gpick", atomically: false, encoding: .utf8)
        let r = try await Subprocess.gpick(["script", "\(dir)/t.gpick", "--source", "test", "--output-dir", out] + Self.small, timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\(out)/lapse.mp4"), "\(r.stdout)")
    }

    @Test(arguments: [
        (["--every", "0", "--for", "1s"], "--every 0 must be a duration above 0"),
        (["--every", "2s", "--for", "1s"], "--for 1s is shorter than --every 2s"),
        (["--every", "1s", "--playback-fps", "0"], "--playback-fps 0 must be 1…240"),
        (["--every", "soon"], "--every soon must be a duration"),
    ])
    func badOptionsAreOneLine(_ args: [String], _ says: String) async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["timelapse", "--source", "test", "-o", "\(dir)/x.mp4"] + args + Self.small)
        #expect(r.status != 0 && r.stderrLines.count == 1 && r.stderr.contains(says), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/x.mp4"))
    }
}
