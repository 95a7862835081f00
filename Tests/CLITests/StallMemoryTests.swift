import Foundation
import GpickTestSupport
import Testing

/// What a stall leaves behind. A stopped process (a Pi under load, a debugger, a slow disk holding
/// the encoder) comes back to a second or more of frames at once; the recording's queue holds them
/// while its encoder catches up, and the frames' pool had to allocate one for each. GStreamer's
/// pools keep every buffer they ever allocated: 41 MiB more at 720p for a 2 s stop, for the rest
/// of the session. gpick's source pool (CFramePool) frees them as they come back.
@Suite struct StallMemoryTests {
    static func rssKiB(_ pid: Int32) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }

    /// A 720p recording whose process is stopped for 2 s: every frame is in the file, and the
    /// memory comes back to within 16 MiB (a dozen frames) of what it was before the stop.
    @Test func memoryComesBackAfterAStall() async throws {
        let dir = TestEnvironment.tempDir(), out = TestEnvironment.tempDir()
        try "record start r.mkv\nwait 120s\n".write(toFile: "\(dir)/r.gpick", atomically: false, encoding: .utf8)
        let p = try Subprocess.start(TestEnvironment.binary, ["script", "\(dir)/r.gpick", "--source", "test", "--width", "1280", "--height", "720",
                                                              "--output-dir", out, "--json"])
        _ = try await p.waitForOutput("\"record-started\"", timeout: 30)
        // The recording settled: its encoder and muxer at work, a few hundred KB in the file.
        let settled = Date().addingTimeInterval(HangBound.seconds(30))
        while (try? FileManager.default.attributesOfItem(atPath: "\(out)/r.mkv")[.size] as? Int) ?? 0 < 300_000, Date() < settled {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        let before = try #require(Self.rssKiB(p.pid))
        p.signal(SIGSTOP)
        try await Task.sleep(nanoseconds: 2_000_000_000)
        p.signal(SIGCONT)
        // The frames of the stop come at once and wait for the encoder: RSS rises (41 MiB at
        // 720p for 2 s) and, once they are encoded, falls back. Read every 20 ms until it has
        // risen and fallen; a rise too short to be seen passes at the deadline.
        var peak = 0, after = Int.max
        let deadline = Date().addingTimeInterval(HangBound.seconds(30))
        while Date() < deadline {
            after = Self.rssKiB(p.pid) ?? 0
            peak = max(peak, after)
            if peak > before + 16 * 1024, after <= before + 16 * 1024 { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        p.signal(SIGINT)
        let r = try await p.wait(timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(after <= before + 16 * 1024, "RSS \(before / 1024) MiB before the stop, \(peak / 1024) at most after it, still \(after / 1024)")
        let stamps = try await Media.stampIndices("\(out)/r.mkv")
        let first = try #require(stamps.first ?? nil)
        // The frames of the stop too: the test source makes them up as the clock has gone on.
        #expect(Media.isConsecutive(stamps, from: first) && stamps.count >= 60, "\(stamps.count) frames from \(first)")
    }
}
