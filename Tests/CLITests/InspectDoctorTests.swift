import Foundation
import GpickTestSupport
import Testing

@Suite(.serialized) struct InspectDoctorTests {
    @Test func inspectPrintsStampsOfEveryFrame() async throws {
        let dir = TestEnvironment.tempDir()
        _ = try await Subprocess.gpick(["record", "--source", "test?id=3", "--width", "320", "--height", "240", "--duration", "1", "-o", "\(dir)/i.mp4"])
        let r = try await Subprocess.gpick(["inspect", "\(dir)/i.mp4", "--stamps"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("kind: video") && r.stdout.contains("frames: 30") && r.stdout.contains("H.264"))
        #expect(r.stdoutLines.filter { $0.hasPrefix("frame ") } == (0..<30).map { "frame \($0): 3:\($0)" })
        let j = try await Subprocess.gpick(["inspect", "\(dir)/i.mp4", "--stamps", "--json"])
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        #expect(obj["frames"] as? Int == 30)
        #expect((obj["stamps"] as? [String])?.first == "3:0")
    }

    @Test func inspectSurvivesBrokenFiles() async throws {
        let dir = TestEnvironment.tempDir()
        _ = try await Subprocess.gpick(["record", "--source", "test", "--width", "320", "--height", "240", "--duration", "1", "-o", "\(dir)/ok.mp4"])
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/ok.mp4"))
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: "\(dir)/truncated.mp4"))
        var flipped = data
        for i in stride(from: 100, to: flipped.count, by: 97) { flipped[i] ^= 0x5A }
        try flipped.write(to: URL(fileURLWithPath: "\(dir)/flipped.mp4"))
        try Data().write(to: URL(fileURLWithPath: "\(dir)/empty.mp4"))
        try Data("not a movie".utf8).write(to: URL(fileURLWithPath: "\(dir)/text.mp4"))
        for f in ["truncated", "flipped", "empty", "text"] {
            let start = Date()
            let r = try await Subprocess.gpick(["inspect", "\(dir)/\(f).mp4", "--stamps"], timeout: 30)
            #expect(Date().timeIntervalSince(start) < 20, "\(f) took too long")
            // Either a report or one clear error line; never a crash (signal exit codes are > 128).
            #expect(r.status < 128, "\(f): status \(r.status)")
            if r.status != 0 { #expect(r.stderrLines.count == 1 && r.stderr.contains("\(f).mp4"), "\(f): \(r.stderr)") }
        }
    }

    @Test func doctorFindsEverythingHere() async throws {
        let r = try await Subprocess.gpick(["doctor"])
        #expect(r.status == 0, "\(r.stdout)")
        #expect(!r.stdout.contains("MISSING"))
    }

    /// The MJPEG decoder doctor names is the one decodebin takes, by rank: gpick's own here,
    /// libjpeg-turbo's jpegdec when GST_PLUGIN_FEATURE_RANK puts gpick's out of the way (GStreamer
    /// reads that variable before gpick registers its element: gpick applies it), another that
    /// ranks above both (as a hardware decoder does; the same override stands in for one), and
    /// none is a missing package.
    @Test func doctorNamesTheMJPEGDecoderByRank() async throws {
        func decoder(_ ranks: String?) async throws -> (Int32, [String: Any]?) {
            let r = try await Subprocess.gpick(["doctor", "--json"], env: ranks.map { ["GST_PLUGIN_FEATURE_RANK": $0] } ?? [:])
            let events = r.events
            return (r.status, events.first { $0["check"] as? String == "MJPEG cameras" })
        }
        let here = try await decoder(nil)
        #expect(here.0 == 0 && here.1?["decoder"] as? String == "gpickjpegdec", "\(String(describing: here.1))")
        let fallback = try await decoder("gpickjpegdec:NONE")
        #expect(fallback.0 == 0 && fallback.1?["decoder"] as? String == "jpegdec", "\(String(describing: fallback.1))")
        let ranked = try await decoder("avdec_mjpeg:MAX")
        #expect(ranked.1?["decoder"] as? String == "avdec_mjpeg", "\(String(describing: ranked.1))")
        let none = try await decoder("gpickjpegdec:NONE,jpegdec:NONE,avdec_mjpeg:NONE")
        #expect(none.0 == 69 && none.1?["ok"] as? Bool == false && none.1?["packages"] as? [String] == ["gstreamer1.0-plugins-good"])
    }

    @Test func devicesListsOrSaysNone() async throws {
        let r = try await Subprocess.gpick(["devices", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.events
        #expect(events.last?["event"] as? String == "finished")
        let count = events.last?["devices"] as? Int ?? -1
        #expect(events.filter { $0["event"] as? String == "device" }.count == count)
    }

    @Test func pipelineFilesAllValidate() async throws {
        let r = try await Subprocess.gpick(["pipelines", "check"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines.count == TestEnvironment.files(in: "\(TestEnvironment.repoRoot)/pipelines").count)
    }
}
