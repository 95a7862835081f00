import Foundation
import GpickTestSupport
import Testing

@Suite(.serialized) struct SnapTests {
    @Test func stillHasAskedSizeBarsAndStamp() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--source", "test", "--width", "640", "--height", "360", "-o", "\(dir)/a.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == ["\(dir)/a.jpg"])
        let img = try await Media.rgb("\(dir)/a.jpg")
        #expect(img.width == 640 && img.height == 360)
        // SMPTE bars (7 across the top two thirds), sampled below the stamp: white, yellow, cyan,
        // green, magenta, red, blue.
        let expected: [(Bool, Bool, Bool)] = [(true, true, true), (true, true, false), (false, true, true),
                                               (false, true, false), (true, false, true), (true, false, false),
                                               (false, false, true)]
        for (i, e) in expected.enumerated() {
            let x = Int((Double(i) + 0.5) * 640 / 7)
            let (r, g, b) = Media.pixel(img, x, 150)
            #expect((r > 128, g > 128, b > 128) == e, "bar \(i) at x=\(x) is \(r),\(g),\(b)")
        }
        let frames = try await Media.frames("\(dir)/a.jpg")
        #expect(frames.count == 1)
        #expect(frames.first?.stamp?.sourceID == 1)
        // The still is the current frame when the stream is up: one of the first few.
        #expect((frames.first?.stamp?.index ?? 99) < 5)
    }

    @Test func pngByExtensionAndStampId() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--source", "test:ball?id=7", "--width", "320", "--height", "240", "-o", "\(dir)/b.png"])
        #expect(r.status == 0, "\(r.stderr)")
        let info = try await Media.discover("\(dir)/b.png")
        #expect(info.streams.first?.codec.contains("PNG") == true)
        #expect(try await Media.frames("\(dir)/b.png").first?.stamp?.sourceID == 7)
    }

    /// Reliability check 16: a burst of 100 is 100 JPEGs that decode, of 100 consecutive frames.
    @Test func burstOfConsecutiveFrames() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--source", "test", "--width", "320", "--height", "240", "--count", "100", "-o", "\(dir)/shot.jpg"],
                                           timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == (1...100).map { String(format: "\(dir)/shot-%03d.jpg", $0) })
        #expect(TestEnvironment.files(in: dir).count == 100)
        var stamps: [Int?] = []
        for p in r.stdoutLines { stamps.append(try await Media.frames(p).first?.stamp?.index) }
        #expect(stamps.count == 100 && Media.isConsecutive(stamps, from: stamps[0] ?? -1), "\(stamps)")
    }

    @Test func burstEveryKthFrame() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--source", "test", "--width", "320", "--height", "240", "--count", "3", "--every", "4", "-o", "\(dir)/k.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        var stamps: [Int] = []
        for p in r.stdoutLines { stamps.append(try #require(try await Media.frames(p).first?.stamp?.index)) }
        #expect(stamps.count == 3 && stamps == [stamps[0], stamps[0] + 4, stamps[0] + 8], "\(stamps)")
    }

    @Test func jsonEvents() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--source", "test", "--width", "320", "--height", "240", "--json", "-o", "\(dir)/j.jpg"])
        #expect(r.status == 0)
        let events = r.events
        // The five capture stages, as a session's snap reports them, around the file.
        #expect(events.map { $0["event"] as? String } == ["started", "capture-settings-resolved", "capture-exposure-started",
                                                          "capture-exposure-complete", "capture-data-delivered", "file-written",
                                                          "capture-complete", "finished"])
        let times = events.compactMap { $0["t"] as? Double }
        #expect(times.count == events.count && times == times.sorted(), "monotonic times: \(times)")
        #expect(events.first { $0["event"] as? String == "capture-exposure-complete" }?["stamp"] as? String == "1:0")
        #expect(events.first { $0["event"] as? String == "capture-data-delivered" }?["path"] as? String == "\(dir)/j.jpg")
        let written = events.first { $0["event"] as? String == "file-written" }
        #expect(written?["path"] as? String == "\(dir)/j.jpg")
        #expect((written?["bytes"] as? Int ?? 0) > 1000)
    }

    @Test func percentInNameIsLiteral() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--source", "test", "--width", "320", "--height", "240", "-o", "\(dir)/a%s%n%d.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(TestEnvironment.files(in: dir) == ["a%s%n%d.jpg"])
    }

    @Test func symlinkAtOutputIsReplacedNotFollowed() async throws {
        let dir = TestEnvironment.tempDir()
        let target = "\(dir)/precious.txt"
        try "keep me".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/s.jpg", withDestinationPath: target)
        let r = try await Subprocess.gpick(["snap", "--source", "test", "--width", "320", "--height", "240", "-o", "\(dir)/s.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
        let attrs = try FileManager.default.attributesOfItem(atPath: "\(dir)/s.jpg")
        #expect(attrs[.type] as? FileAttributeType == .typeRegular)
    }
}
