import Foundation
import GpickTestSupport
import Testing

/// A stopped process (a Pi under load, a debugger, a slow disk holding the encoder) comes back
/// to seconds of frames at once. The recording takes them all; what the pile-up made the frames'
/// pool allocate is freed as they come back (FramePoolTests, counted in the session). How much
/// memory the process holds over hours is the soak's to measure (bench S1): RSS read here
/// depends on how far a loaded machine's encoder has caught up, not on gpick.
@Suite struct StallTests {
    /// A 720p recording whose process is stopped for 2 s while it records goes on after it and,
    /// ended by Ctrl-C, has every frame in the file once, in order. (How many frames a loaded
    /// machine's encoder takes is its own: the count is the one the recording reports.)
    @Test func aStoppedRecordingGoesOnWithEveryFrame() async throws {
        let dir = TestEnvironment.tempDir(), out = TestEnvironment.tempDir()
        // Ended by Ctrl-C below, not by the clock: however slowly a loaded machine starts it,
        // the stop falls while it records.
        try "record start r.mkv\nwait 300s\n".write(toFile: "\(dir)/r.gpick", atomically: false, encoding: .utf8)
        let p = try Subprocess.start(TestEnvironment.binary, ["script", "\(dir)/r.gpick", "--source", "test", "--width", "1280", "--height", "720",
                                                              "--output-dir", out, "--json"])
        defer { p.signal(SIGKILL) }
        _ = try await p.waitForOutput("\"record-started\"", timeout: 30)
        // The recording settled: its encoder and muxer at work, a few hundred KB in the file.
        let size = { (try? FileManager.default.attributesOfItem(atPath: "\(out)/r.mkv")[.size] as? Int) ?? 0 }
        #expect(try await TestEnvironment.eventually(HangBound.seconds(30)) { size() >= 300_000 })
        p.signal(SIGSTOP)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        p.signal(SIGCONT)
        // It goes on after the stop: the file grows again.
        let resumed = size()
        #expect(try await TestEnvironment.eventually(HangBound.seconds(30)) { size() >= resumed + 300_000 })
        p.signal(SIGINT)
        let r = try await p.wait(timeout: HangBound.seconds(60))
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let reported = try #require(events.first { $0["event"] as? String == "file-written" }?["frames"] as? Int, "\(r.stdout)")
        let stamps = try await Media.stampIndices("\(out)/r.mkv")
        let first = try #require(stamps.first ?? nil)
        #expect(Media.isConsecutive(stamps, from: first) && stamps.count == reported, "\(stamps.count) frames from \(first), \(reported) reported")
    }
}
