import Foundation
import GpickTestSupport
import Testing

/// `gpick watch --record DIR`: a clip per motion event that starts before the first moving frame
/// (from the pre-roll ring) and ends after the last, proven by the test source's frame stamps.
/// `moves=A-B` sends a block across the picture in frames A to B-1 and nothing moving elsewhere;
/// the first motion comes five seconds in, after the watch is up on a loaded machine too (it
/// took 1.5 s in a full run).
@Suite struct WatchClipTests {
    static let small = ["--width", "320", "--height", "240"]

    static func clips(_ e: [[String: Any]]) -> [[String: Any]] {
        e.filter { $0["event"] as? String == "file-written" && $0["still"] as? Bool != true }
    }

    /// Runs `gpick watch ARGS --json` until it has written `count` clips (a loaded machine's
    /// frames come later, never fewer), then stops it as Ctrl-C would.
    static func watch(_ args: [String], untilClips count: Int) async throws -> Subprocess.Result {
        let p = try Subprocess.start(TestEnvironment.binary, ["watch", "--json"] + args + small)
        let deadline = Date().addingTimeInterval(HangBound.seconds(90))
        while clips(p.eventsSoFar).count < count {
            guard Date() < deadline, p.process.isRunning else { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        p.signal(SIGINT)
        return try await p.wait(timeout: 30)
    }

    /// Frames played by ffprobe, as a player reads the file.
    static func ffprobeFrames(_ path: String) async throws -> Int {
        let r = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                              "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path], timeout: 30)
        guard r.status == 0, let n = Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("ffprobe \(path): \(r.stderr)")
        }
        return n
    }

    /// Three bursts of motion: the second starts again within the first clip's after part, so it
    /// goes on in that clip; the third, later, is a clip of its own. Each clip holds every frame
    /// from at least a second before its first moving frame to at least three after its last.
    /// (The second burst starts two seconds before the first clip would end: the start is told
    /// later than its frame, and a loaded machine's full run told one a second late.)
    @Test func eachMotionIsAClipFromBeforeItStartedToAfterItEnded() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Self.watch(["--source", "test:colors?moves=180-210,240-270,480-510", "--record", dir,
                                      "--pre", "1", "--post", "3", "--end-after", "0.5", "--clip-name", "door-%n-%t.mp4", "--snap"],
                                     untilClips: 2)
        #expect(r.status == 0, "\(r.stderr)")
        let e = WatchTests.events(r)
        let written = Self.clips(e)
        try #require(written.count == 2, "\(e.filter { ($0["event"] as? String)?.hasPrefix("motion") != true })")
        #expect(e.filter { $0["event"] as? String == "clip-started" }.count == 2)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        let movies = files.filter { $0.hasSuffix(".mp4") }
        #expect(movies.count == 2 && movies.allSatisfy { $0.hasPrefix("door-") }, "\(files)")
        #expect(movies.first?.hasPrefix("door-1-20") == true, "\(files)")
        // --snap: a JPEG beside each clip, named as it, of the session's picture.
        #expect(files == (movies + movies.map { $0.replacingOccurrences(of: ".mp4", with: ".jpg") }).sorted(), "\(files)")
        for still in files where still.hasSuffix(".jpg") {
            #expect(try await Media.rgb("\(dir)/\(still)").width == 320)
        }
        // Each still is the frame its motion began in, however late the start was told (the
        // test source's stamp says which frame); only a watch too far behind to hold the frames
        // meanwhile (32 MiB of them) takes the frame at hand, and says so.
        let stills = e.filter { $0["event"] as? String == "file-written" && $0["still"] as? Bool == true }
        for (still, motion) in zip(stills, [180, 480]) {
            let path = try #require(still["path"] as? String), stamp = try await Media.stampIndices(path)
            if still["motion-start"] as? Bool == true {
                #expect(stamp == [motion], "\(path)")
            } else {
                #expect(still["motion-start"] as? Bool == false && (stamp.first ?? nil).map { $0 > motion } == true, "\(still) \(stamp)")
            }
        }
        #expect(stills.count == 2, "\(stills)")

        // (first moving frame, last moving frame) of each clip's motion, by stamp.
        for (clip, motion) in zip(written, [(180, 269), (480, 509)]) {
            let path = try #require(clip["path"] as? String)
            let stamps = try await Media.stampIndices(path)
            let first = try #require(stamps.first ?? nil, "\(path): no stamp")
            let last = try #require(stamps.last ?? nil)
            #expect(Media.isConsecutive(stamps, from: first), "\(path): frames missing in \(first)…\(last)")
            // At least a second before (30 frames), on a keyframe: at most a second more.
            #expect(first <= motion.0 - 30 && first >= motion.0 - 61, "\(path) starts at frame \(first), motion at \(motion.0)")
            // At least three seconds after the last moving frame, and not much more.
            #expect(last >= motion.1 + 90 && last <= motion.1 + 105, "\(path) ends at frame \(last), motion until \(motion.1)")
            #expect(clip["frames"] as? Int == stamps.count, "\(clip)")
            #expect(try await Self.ffprobeFrames(path) == stamps.count)
        }
    }

    /// Motion longer than `--longest`: clips of at most that length, each after the first saying
    /// which it continues, that together hold every frame from before the motion to after it,
    /// none twice; each plays on its own.
    @Test func motionLongerThanTheLongestClipGoesOnInTheNext() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Self.watch(["--source", "test:colors?moves=150-330", "--record", dir, "--pre", "1", "--post", "1",
                                      "--end-after", "0.5", "--longest", "2", "--clip-name", "long-%n.mp4", "--duration", "16"],
                                     untilClips: 100)
        #expect(r.status == 0, "\(r.stderr)")
        let e = WatchTests.events(r)
        let started = e.filter { $0["event"] as? String == "clip-started" }
        let written = Self.clips(e).sorted { ($0["number"] as? Int ?? 0) < ($1["number"] as? Int ?? 0) }
        // Six seconds of motion, one before and one after (the watch ends four seconds later):
        // four clips of two seconds at most, and more.
        try #require(written.count >= 4, "\(e.filter { ($0["event"] as? String)?.hasPrefix("motion") != true })")
        #expect(started.first?["continues"] == nil, "\(started)")
        for (i, s) in started.enumerated().dropFirst() { #expect(s["continues"] as? Int == i, "\(s)") }
        var all: [Int?] = []
        for clip in written {
            let path = try #require(clip["path"] as? String)
            let stamps = try await Media.stampIndices(path)
            #expect(stamps.count <= 60 && clip["frames"] as? Int == stamps.count, "\(path): \(stamps.count) frames")
            #expect(try await Self.ffprobeFrames(path) == stamps.count)
            all += stamps
        }
        let first = try #require(all.first ?? nil), last = try #require(all.last ?? nil)
        #expect(Media.isConsecutive(all, from: first), "frames missing or twice in \(first)…\(last)")
        #expect(first <= 150 - 30 && last >= 329 + 30, "the clips hold \(first)…\(last), the motion 150…329")
    }

    /// Killed while a clip is being written: the clip is on disk and plays, up to about its last
    /// second.
    @Test func aClipCutByKillNinePlays() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["watch", "--source", "test:colors?moves=150-100000", "--record", dir,
                                                              "--pre", "0.5", "--json"] + Self.small)
        defer { p.signal(SIGKILL) }
        let deadline = Date().addingTimeInterval(HangBound.seconds(60))
        while !p.stdoutSoFar.contains("\"clip-started\"") {
            guard Date() < deadline, p.process.isRunning else { throw TestFailure("no clip started: \(p.stdoutSoFar.suffix(600))") }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        // Three seconds of clip: the index is rewritten every second.
        let started = p.eventsSoFar
        let path = try #require(started.first { $0["event"] as? String == "clip-started" }?["path"] as? String)
        while (try? await Media.stampIndices(path).count) ?? 0 < 60 {
            guard Date() < deadline, p.process.isRunning else { throw TestFailure("the clip did not grow: \(p.stdoutSoFar.suffix(600))") }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        p.signal(SIGKILL)
        _ = try await p.wait(timeout: 20)
        let stamps = try await Media.stampIndices(path)
        let first = try #require(stamps.first ?? nil)
        #expect(stamps.count >= 60 && Media.isConsecutive(stamps, from: first), "\(stamps.count) frames from \(first)")
        #expect(try await Self.ffprobeFrames(path) == stamps.count)
    }

    /// --keep-size: the oldest clips go, those an earlier run left with the same name too.
    @Test func theOldestClipsAreDeletedAsNewOnesAreWritten() async throws {
        let dir = TestEnvironment.tempDir()
        let earlier = "\(dir)/motion-2026-01-01_00-00-00.mp4", other = "\(dir)/holiday.mp4"
        try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: earlier))
        try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: other))
        let r = try await Self.watch(["--source", "test:colors?moves=150-170,210-230", "--record", dir, "--pre", "0.2",
                                      "--post", "0.2", "--end-after", "0.3", "--keep-size", "1K"], untilClips: 2)
        #expect(r.status == 0, "\(r.stderr)")
        let e = WatchTests.events(r)
        let written = Self.clips(e).compactMap { $0["path"] as? String }
        let deleted = e.filter { $0["event"] as? String == "clip-deleted" }.compactMap { $0["path"] as? String }
        // The newest always stays; everything older goes, the earlier run's clip first.
        #expect(written.count == 2 && deleted == [earlier, written[0]], "written \(written), deleted \(deleted)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(left == ["holiday.mp4", (written[1] as NSString).lastPathComponent].sorted(), "\(left)")
    }

    /// Served over RTSP from the same session while it watches and records: a viewer gets its
    /// frames, and the motion is still a clip.
    @Test func aWatchIsServedWhileItRecords() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["watch", "--source", "test:colors?moves=150-100000", "--record", dir,
                                                              "--pre", "0.5", "--serve", "door", "--rtsp-port", "0", "--json"] + Self.small)
        defer { p.signal(SIGKILL) }
        let started = try await p.waitForOutput("\"started\"", timeout: 30)
        let url = try #require(started.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "started" }?["url"] as? String, "\(started)")
        #expect(url.hasPrefix("rtsp://127.0.0.1:") && url.hasSuffix("/door"), "\(url)")
        let viewer = try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url, "-frames:v", "30", "-f", "null", "-"],
                                              timeout: 60)
        #expect(viewer.status == 0, "\(viewer.stderr)")
        _ = try await p.waitForOutput("\"clip-started\"", timeout: 60)
        p.signal(SIGINT)
        let r = try await p.wait(timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.clips(WatchTests.events(r)).count == 1)
    }

    /// Published over SRT from the same session while it watches (GStreamer's srtsrc as the
    /// listener, keeping what it gets): the stream holds the session's frames.
    @Test func aWatchIsPublishedWhileItWatches() async throws {
        let dir = TestEnvironment.tempDir()
        let port = try StreamServers.freePort(udp: true)
        let listener = try StreamServers.srtReceiver(port: port, file: "\(dir)/got.mkv")
        defer { listener.signal(SIGKILL) }
        #expect(try await TestEnvironment.eventually(10) { StreamServers.udpBound(port) }, "srtsrc did not bind \(port)")
        let r = try await Subprocess.gpick(["watch", "--source", "test:colors?moves=60-90", "--publish", "srt://127.0.0.1:\(port)",
                                            "--duration", "4", "--json"] + Self.small, timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let e = WatchTests.events(r)
        #expect(e.first { $0["event"] as? String == "started" }?["publish"] as? String == "srt://127.0.0.1:\(port)", "\(e)")
        // The receiver ends its file when gpick hangs up.
        _ = try await StreamServers.ended(listener)
        let stamps = try await Media.stampIndices("\(dir)/got.mkv").compactMap { $0 }
        // In order (a live stream may drop a late frame on a loaded machine; the recordings may not).
        #expect(stamps.count >= 30 && Media.missing(stamps) != nil, "\(stamps.count) stamps")
    }

    @Test(arguments: [
        (["--pre", "2"], "--pre needs --record"),
        (["--keep-size", "1G"], "need --record"),
        (["--record", "/nonexistent/clips"], "output directory does not exist: /nonexistent/clips"),
        (["--record", "DIR", "--clip-name", "a/b.mp4"], "must be a file name, without a folder"),
        (["--record", "DIR", "--clip-name", "clip-%d.mp4"], "only %t (time), %n (number) and %% may follow a percent sign"),
        (["--record", "DIR", "--pre", "100"], "--pre 100.0 must be 0…60 seconds"),
        (["--record", "DIR", "--longest", "1"], "--longest 1.0 must be 2…86400 seconds"),
        (["--longest", "60"], "--longest needs --record"),
        (["--rtsp-port", "9000"], "--rtsp-port needs --serve"),
        (["--serve", "a/b"], "--serve a/b must be a stream name"),
        (["--publish", "http://example.com/x"], "http://example.com/x"),
    ])
    func badClipOptionsAreOneLine(_ args: [String], _ says: String) async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["watch", "--source", "test", "--duration", "1"] + args.map { $0 == "DIR" ? dir : $0 } + Self.small)
        #expect(r.status != 0 && r.stderrLines.count == 1 && r.stderr.contains(says), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}
