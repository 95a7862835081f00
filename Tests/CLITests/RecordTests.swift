import Foundation
import GpickTestSupport
import Testing

@Suite(.serialized) struct RecordTests {
    static let small = ["--width", "320", "--height", "240"]

    /// A file source plays like a camera; when it ends, the recording is finalised with every
    /// frame it delivered (a 45-frame file recorded for "2 s" gives 45 frames, promptly).
    @Test func fileSourceEndFinalisesTheRecording() async throws {
        let dir = TestEnvironment.tempDir()
        let src = "\(dir)/src.mkv"
        let make = try await Subprocess.gpick(["record", "--duration", "1.5", "-o", src, "--source", "test", "--width", "320", "--height", "240"])
        #expect(make.status == 0, "\(make.stderr)")
        // 45 frames, not 60, prove the file's end stopped it; the timeout only guards a hang (a
        // wall-clock bound would fail on a busy machine, not on a late stop).
        let r = try await Subprocess.gpick(["record", "--duration", "2", "-o", "\(dir)/out.mp4", "--source", "file:\(src)",
                                            "--width", "320", "--height", "240"], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let stamps = try await Media.stampIndices("\(dir)/out.mp4")
        #expect(stamps.count == 45 && Media.isConsecutive(stamps, from: stamps.first! ?? -1), "\(stamps)")
    }

    @Test func threeSecondsAreNinetyStampedFrames() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--duration", "3", "-o", "\(dir)/r.mp4"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == ["\(dir)/r.mp4"])
        let info = try await Media.discover("\(dir)/r.mp4")
        #expect(abs(info.durationSeconds - 3.0) <= 1.0 / 30 + 0.001, "duration \(info.durationSeconds)")
        #expect(info.seekable)
        let video = try #require(info.streams.first { $0.kind == "video" })
        #expect(video.codec.contains("H.264"))
        #expect(video.caps.contains("profile=(string)high"))
        #expect(video.caps.contains("chroma-format=(string)4:2:0") && video.caps.contains("bit-depth-luma=(uint)8"))
        let stamps = try await Media.stampIndices("\(dir)/r.mp4")
        #expect(stamps.count == 90)
        #expect(Media.isConsecutive(stamps), "\(stamps)")
    }

    @Test func audioTrackMatchesVideo() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--audio", "test", "--duration", "2", "-o", "\(dir)/a.mp4"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let info = try await Media.discover("\(dir)/a.mp4")
        #expect(info.streams.contains { $0.kind == "audio" && $0.codec.contains("AAC") })
        #expect(abs(info.durationSeconds - 2.0) <= 1.0 / 30 + 0.001, "duration \(info.durationSeconds)")
        // ffprobe gives per-stream durations: audio within two AAC frames (2 × 1024 samples) of the video.
        let probe = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,duration", "-of", "csv=p=0", "\(dir)/a.mp4"])
        let durations = Dictionary(uniqueKeysWithValues: probe.stdoutLines.map { l -> (String, Double) in
            let p = l.split(separator: ","); return (String(p[0]), Double(p[1]) ?? 0)
        })
        #expect(abs((durations["audio"] ?? 0) - (durations["video"] ?? 9)) <= 2048.0 / 48000, "\(durations)")
        #expect(try await Media.stampIndices("\(dir)/a.mp4").count == 60)
    }

    @Test(arguments: ["mkv", "webm"])
    func otherContainersPlay(ext: String) async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--audio", "test", "--duration", "1", "-o", "\(dir)/c.\(ext)"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let info = try await Media.discover("\(dir)/c.\(ext)")
        #expect(info.streams.contains { $0.kind == "audio" })
        #expect(info.streams.contains { $0.kind == "video" && $0.codec.contains(ext == "webm" ? "VP9" : "H.264") })
        let stamps = try await Media.stampIndices("\(dir)/c.\(ext)")
        #expect(stamps.count == 30 && Media.isConsecutive(stamps), "\(stamps)")
    }

    /// Frames a running recording has taken so far, by its progress events: time counted in
    /// frames, not on the wall clock, which a starved test source falls behind.
    static func taken(_ p: Subprocess.Running) -> Int {
        p.eventsSoFar.compactMap { $0["frames"] as? Int }.max() ?? 0
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalKeepsEveryFrameUpToIt(sig: Int32) async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "test", "--audio", "test", "--duration", "3600", "--json", "-o", "\(dir)/s.mp4"] + Self.small)
        // 2.5 s of recording (75 frames).
        #expect(try await TestEnvironment.eventually(60) { Self.taken(p) >= 75 }, "\(p.stdoutSoFar.suffix(500))")
        let before = Self.taken(p)
        p.signal(sig)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("finishing"), "\(r.stdout)")  // a notice event (--json)
        let info = try await Media.discover("\(dir)/s.mp4")
        let stamps = try await Media.stampIndices("\(dir)/s.mp4")
        // Every frame from 0 to the signal, none missing: at least all those taken before it was
        // sent (frames taken after it, before it was handled, are kept too), and a header that
        // agrees with them.
        #expect(Media.isConsecutive(stamps), "\(stamps)")
        #expect(stamps.count >= before, "\(stamps.count) frames kept of \(before) taken before the signal")
        // The header agrees with the frames (two frames of slack: a signal lands between frames and
        // audio is cut at the signal time, not at a frame boundary).
        #expect(abs(info.durationSeconds - Double(stamps.count) / 30) <= 2.0 / 30 + 0.001, "duration \(info.durationSeconds) for \(stamps.count) frames")
    }

    @Test func killNineLeavesAFileThatPlays() async throws {
        let dir = TestEnvironment.tempDir()
        // A temporary folder of its own, to see that nothing is left there either (check 21).
        let tmp = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "test", "--audio", "test", "--duration", "3600", "--json", "-o", "\(dir)/k.mp4"] + Self.small,
                                     env: ["TMPDIR": tmp])
        // 5.5 s of recording (165 frames at 30 fps).
        #expect(try await TestEnvironment.eventually(60) { Self.taken(p) >= 165 }, "\(p.stdoutSoFar.suffix(500))")
        let before = Self.taken(p)
        p.signal(SIGKILL)
        _ = try await p.wait(timeout: 10)
        let info = try await Media.discover("\(dir)/k.mp4")
        #expect(info.streams.contains { $0.kind == "video" })
        // Robust muxing rewrites the index every second of the recording: a kill loses at most
        // that second (30 frames) of what was encoded, and on a machine too busy for the encoder
        // the frames still queued for it, at most another second (the queue holds 1 s): 125 of
        // 170 taken were seen under the suite's load, 156 of 165 on an idle machine.
        let stamps = try await Media.stampIndices("\(dir)/k.mp4")
        #expect(stamps.count >= before - 60, "\(stamps.count) frames survived of \(before) taken")
        #expect(Media.isConsecutive(stamps))
        // Only the recording itself is left: no temp files in the directory, nor in $TMPDIR.
        #expect(TestEnvironment.files(in: dir) == ["k.mp4"])
        #expect(TestEnvironment.files(in: tmp).isEmpty, "left in TMPDIR: \(TestEnvironment.files(in: tmp))")
    }

    @Test func sourceFailureFinalisesWhatWasCaptured() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test?fail-after=90", "--duration", "10", "-o", "\(dir)/f.mp4"] + Self.small)
        #expect(r.status != 0)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("fail-after=90"), "\(r.stderr)")
        let stamps = try await Media.stampIndices("\(dir)/f.mp4")
        #expect(stamps.count >= 60 && Media.isConsecutive(stamps), "\(stamps.count) frames")
    }

    @Test func recordingJsonEvents() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--duration", "1", "--json", "-o", "\(dir)/j.mkv"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stdoutLines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["event"] as? String }
        #expect(events.first == "started")
        #expect(events.contains("progress"))
        #expect(Array(events.suffix(2)) == ["file-written", "finished"])
    }
}
