import Foundation
import GpickTestSupport
import Testing

@Suite(.serialized) struct ScriptTests {
    static let small = ["--width", "320", "--height", "240"]
    static var samples: String { "\(TestEnvironment.repoRoot)/samples" }

    @Test func photoBoothSample() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["script", "\(Self.samples)/photo-booth.gpick", "--source", "test", "--output-dir", dir, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.events
        let said = events.compactMap { e -> String? in
            switch e["event"] as? String {
            case "echo": return e["text"] as? String
            case "countdown": return (e["remaining"] as? Int).map(String.init)
            default: return nil
            }
        }
        #expect(said.prefix(4) == ["smile!", "3", "2", "1"], "\(said)")
        var stamps: [Int] = []
        for i in 1...4 { stamps.append(try #require(try await Media.frames("\(dir)/booth-00\(i).jpg").first?.stamp?.index)) }
        #expect(stamps == [stamps[0], stamps[0] + 15, stamps[0] + 30, stamps[0] + 45], "\(stamps)")
        // The burst's first frame is one that comes after the countdown's three seconds, on the
        // script's own clock (the events' t). Not by its stamp: a starved test source falls behind
        // the clock (its first burst frame was once stamp 29), so a frame count is no clock.
        let counted = try #require(events.first { $0["event"] as? String == "countdown" }?["t"] as? Double, "\(r.stdout)")
        let asked = try #require(events.first { $0["event"] as? String == "capture-exposure-started" }?["t"] as? Double, "\(r.stdout)")
        let first = try #require(events.first { $0["event"] as? String == "capture-exposure-complete" }, "\(r.stdout)")
        #expect(asked - counted >= 3, "the burst was asked \(asked - counted) s after the countdown began")
        #expect(first["stamp"] as? String == "1:\(stamps[0])", "\(first)")
        #expect((first["t"] as? Double ?? 0) >= asked, "\(first)")
    }

    @Test func snapWhileRecordingSample() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["script", "\(Self.samples)/snap-while-recording.gpick", "--source", "test", "--output-dir", dir] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let clip = try await Media.stampIndices("\(dir)/clip.mp4")
        #expect(Media.isConsecutive(clip, from: clip.first! ?? -1))
        // Each still is a frame of the running recording.
        for s in ["during-1.jpg", "during-2.jpg"] {
            let stamp = try #require(try await Media.frames("\(dir)/\(s)").first?.stamp?.index)
            #expect(clip.contains(stamp), "\(s) stamp \(stamp) not within the recording")
        }
    }

    @Test func flipDemoFlipsSuspendsAndResumesInOneRecording() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["script", "\(Self.samples)/flip-demo.gpick", "--source", "test",
                                            "--front", "test:pinwheel?id=2&warmup=0.3", "--output-dir", dir, "--json"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.events
            .compactMap { $0["event"] as? String }
        for e in ["switching", "flip", "source-live", "suspended", "file-written"] { #expect(events.contains(e), "no \(e) event") }
        let frames = try await Media.frames("\(dir)/flip.mp4")
        // Runs of (camera id or nil for placeholder/crossfade): back, blur, front, blur, front again.
        var runs: [(id: Int?, stamps: [Int])] = []
        for f in frames {
            let id = f.stamp?.sourceID
            if runs.last.map({ $0.id == id }) == true { runs[runs.count - 1].stamps.append(f.stamp?.index ?? -1) } else {
                runs.append((id, [f.stamp?.index ?? -1]))
            }
        }
        let shape = runs.map { $0.id.map(String.init) ?? "-" }.joined(separator: " ")
        #expect(shape == "1 - 2 - 2", "runs: \(runs.map { "\($0.id.map(String.init) ?? "-")×\($0.stamps.count)" })")
        if runs.count == 5 {
            // Each camera's frames in order. On a starved machine the switch drops a frame that
            // reaches it more than two slots late (the timeline stays continuous): a few at most.
            for (i, what) in [(0, "back"), (2, "front"), (4, "front after resume")] {
                let m = Media.missing(runs[i].stamps)
                #expect(m != nil && m! <= 3, "\(what): \(runs[i].stamps)")
            }
            #expect(runs[2].stamps[0] <= 6 && runs[4].stamps[0] <= 6, "each start of the front camera shows from its first frames")
            #expect(runs[3].stamps.count >= 12, "0.5 s suspended: \(runs[3].stamps.count) placeholder frames")
        }
        let pts = frames.compactMap(\.pts)
        #expect(zip(pts, pts.dropFirst()).allSatisfy { abs($1 - $0 - 1.0 / 30) < 0.002 }, "timestamps continuous")
    }

    /// Sources start only when needed: a script that captures nothing never opens the camera
    /// (a missing one is not an error until a command needs it).
    @Test func cameraOpensOnlyWhenACommandNeedsIt() async throws {
        let dir = TestEnvironment.tempDir()
        try "echo no camera needed\n".write(toFile: "\(dir)/e.gpick", atomically: false, encoding: .utf8)
        let r = try await Subprocess.gpick(["script", "\(dir)/e.gpick", "--source", "v4l2:/dev/video99", "--output-dir", dir])
        #expect(r.status == 0 && r.stdout == "no camera needed\n", "\(r.stderr)")
        try "echo first\nsnap a.jpg\n".write(toFile: "\(dir)/s.gpick", atomically: false, encoding: .utf8)
        let s = try await Subprocess.gpick(["script", "\(dir)/s.gpick", "--source", "v4l2:/dev/video99", "--output-dir", dir])
        #expect(s.status != 0 && s.stdout == "first\n" && s.stderr.contains("/dev/video99"), "\(s.stderr)")
    }

    @Test func syntaxErrorNamesLineAndColumnBeforeAnythingRuns() async throws {
        let dir = TestEnvironment.tempDir()
        try "snap a.jpg\nburst 3 b.jpg evry 2\n".write(toFile: "\(dir)/s.gpick", atomically: false, encoding: .utf8)
        let out = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["script", "\(dir)/s.gpick", "--source", "test", "--output-dir", out])
        #expect(r.status == 65)
        #expect(r.stderrLines == ["gpick: error: \(dir)/s.gpick:2:15: expected \"every K\" after the file"])
        #expect(TestEnvironment.files(in: out).isEmpty)
        for (text, pos) in [("snap \"open.jpg\n", "1:6"), ("wait 3 parsecs\n", "1:8"), ("recrod 1s a.mp4\n", "1:1"), ("expect a.jpg frames ~ 3\n", "1:21"), ("mode video\n", "1:6")] {
            try text.write(toFile: "\(dir)/t.gpick", atomically: false, encoding: .utf8)
            let e = try await Subprocess.gpick(["script", "\(dir)/t.gpick", "--output-dir", out])
            #expect(e.status == 65 && e.stderr.contains("t.gpick:\(pos): "), "\(text): \(e.stderr)")
        }
    }

    @Test func assertionsPassAndFail() async throws {
        let dir = TestEnvironment.tempDir()
        let good = "record 1s c.mp4\nexpect c.mp4 frames == 30\nexpect c.mp4 duration 1s\nexpect c.mp4 size 320x240\nexpect c.mp4 stamps ..\nexpect c.mp4 kind video\nsnap p.png\nexpect p.png kind photo\n"
        try good.write(toFile: "\(dir)/good.gpick", atomically: false, encoding: .utf8)
        let r = try await Subprocess.gpick(["script", "\(dir)/good.gpick", "--source", "test", "--output-dir", dir] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let bad = "record 1s d.mp4\nexpect d.mp4 frames == 31\nexpect d.mp4 size 320x240\n"
        try bad.write(toFile: "\(dir)/bad.gpick", atomically: false, encoding: .utf8)
        let f = try await Subprocess.gpick(["script", "\(dir)/bad.gpick", "--source", "test", "--output-dir", dir] + Self.small)
        #expect(f.status != 0)
        #expect(f.stderrLines == ["gpick: error: line 2: expect d.mp4: has 30 frames, expected == 31"], "\(f.stderr)")
        let k = try await Subprocess.gpick(["script", "\(dir)/bad.gpick", "--keep-going", "--json", "--source", "test", "--output-dir", dir] + Self.small)
        #expect(k.status != 0)
        #expect(k.stdout.contains("\"event\":\"expect-passed\""), "with --keep-going line 3 still runs")
    }

    @Test func scriptArgumentsCannotEscapeTheOutputDirectory() async throws {
        let root = TestEnvironment.tempDir()
        let dir = "\(root)/out"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/link", withDestinationPath: root)
        let attempts = ["snap ../x.jpg", "snap /tmp/gpick-escape.jpg", "snap link/x.jpg", "record 1s ../../y.mp4",
                        "snap 'a.jpg ! filesink location=../owned'", "set sink.location ../owned", "set src.location ../owned",
                        "burst 2 ../z.jpg", "expect ../../../etc/passwd exists"]
        let r = try await Subprocess.gpick(["session", "--keep-going", "--source", "test", "--output-dir", dir] + Self.small,
                                           env: [:], timeout: 30, stdin: attempts.joined(separator: "\n") + "\n")
        #expect(r.status != 0)
        #expect(r.stderrLines.count == attempts.count, "\(r.stderr)")
        #expect(TestEnvironment.files(in: root) == ["out"])
        #expect(TestEnvironment.files(in: dir) == ["link"])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/gpick-escape.jpg"))
    }

    @Test func sessionThroughAPipeKeepsFileDescriptorsFlat() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["session", "--source", "test", "--output-dir", dir] + Self.small, stdinPipe: true)
        // Each batch ends with an echo, printed once its recordings are finalised (a file appears
        // when its recording starts, so waiting for files would measure one still open).
        p.send("snap warm.jpg\nrecord 0.2s warm.mp4\necho warm\n")
        _ = try await p.waitForOutput("warm\n")
        try await Task.sleep(nanoseconds: 300_000_000)
        let before = p.openFDs
        var script = ""
        for i in 1...20 { script += "snap s\(i).jpg\n" }
        for i in 1...3 { script += "record 0.3s r\(i).mp4\n" }
        script += "echo done\n"
        p.send(script)
        _ = try await p.waitForOutput("done\n")
        try await Task.sleep(nanoseconds: 300_000_000)
        let after = p.openFDs
        p.closeInput()
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines.last == "done")
        #expect(TestEnvironment.files(in: dir).count == 25)
        #expect(after - before <= 2, "fds \(before) → \(after)")
    }

    /// Ctrl-C or SIGTERM (systemd's stop) during a long wait ends a script as it ends `record`:
    /// its recording finalised with every frame, status 0, and no error line; without --json a
    /// notice says where it stopped.
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsTheScriptCleanly(sig: Int32) async throws {
        let dir = TestEnvironment.tempDir(), out = TestEnvironment.tempDir()
        try "record start r.mkv\nwait 24h\nsnap never.jpg\n".write(toFile: "\(dir)/s.gpick", atomically: false, encoding: .utf8)
        let p = try Subprocess.start(TestEnvironment.binary, ["script", "\(dir)/s.gpick", "--source", "test", "--output-dir", out] + Self.small)
        // Frames in the file first (a keyframe is a few KB at this size).
        let deadline = Date().addingTimeInterval(HangBound.seconds(30))
        while (try? FileManager.default.attributesOfItem(atPath: "\(out)/r.mkv")[.size] as? Int) ?? 0 < 10_000, Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        p.signal(sig)
        let r = try await p.wait(timeout: 30)
        #expect(r.status == 0 && r.stderrLines == ["gpick: stopped at line 2"], "\(r.status): \(r.stderr)")
        #expect(r.stdoutLines == ["\(out)/r.mkv"], "\(r.stdout)")
        let stamps = try await Media.stampIndices("\(out)/r.mkv")
        #expect(!stamps.isEmpty && Media.isConsecutive(stamps, from: stamps.first.flatMap { $0 } ?? 0), "\(stamps)")
    }
}
