import Foundation
import GpickKit
import GpickTestSupport
import Testing

@Suite(.serialized) struct LivePhotoTests {
    static let small = ["--width", "320", "--height", "240"]

    /// `gpick inspect --json` of a Motion Photo.
    static func report(_ path: String) async throws -> [String: Any] {
        let r = try await Subprocess.gpick(["inspect", path, "--json", "--stamps"])
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    @Test func oneShotMotionPhotoIsReadByExiftoolAndHoldsTheRightFrames() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["live", "-o", "\(dir)/shot", "--format", "motion", "--source", "test", "--audio", "test"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let path = "\(dir)/shot.MP.jpg"
        #expect(r.stdoutLines == [path])
        #expect(TestEnvironment.files(in: dir) == ["shot.MP.jpg"], "no temp files left")

        // exiftool reads the Motion Photo fields and the Container directory.
        let x = try await ExifTool.run(["-j", "-struct", "-G1", "-XMP-GCamera:all", "-XMP-Container:all", path])
        let tags = try #require((try JSONSerialization.jsonObject(with: Data(x.stdout.utf8)) as? [[String: Any]])?.first)
        #expect("\(tags["XMP-GCamera:MotionPhoto"] ?? "")" == "1")
        #expect("\(tags["XMP-GCamera:MotionPhotoVersion"] ?? "")" == "1")
        let presentationUs = try #require(Int("\(tags["XMP-GCamera:MotionPhotoPresentationTimestampUs"] ?? "")"))
        let items = (tags["XMP-Container:Directory"] as? [[String: Any]])?.compactMap { $0["Item"] as? [String: Any] } ?? []
        #expect(items.map { "\($0["Semantic"] ?? "")" } == ["Primary", "MotionPhoto"], "\(tags)")
        #expect(items.map { "\($0["Mime"] ?? "")" } == ["image/jpeg", "video/mp4"])
        let length = try #require(Int("\(items.last?["Length"] ?? "")"))

        // tail -c Length is an MP4 that GstDiscoverer reads, about before + after long.
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let clipPath = "\(dir)/clip.mp4"
        try data.suffix(length).write(to: URL(fileURLWithPath: clipPath))
        let info = try await Media.discover(clipPath)
        #expect(info.durationSeconds > 2.9 && info.durationSeconds < 3.6, "clip \(info.durationSeconds) s")
        #expect(info.streams.contains { $0.kind == "audio" })
        // File size = JPEG + padding (0) + video: the JPEG ends (EOI) right where the video starts.
        let jpegEnd = data.count - length
        #expect(data[jpegEnd - 2] == 0xFF && data[jpegEnd - 1] == 0xD9)

        // Stamps: the still is a frame of the clip, with ≥ 1.5 s × 30 − one GOP before it and
        // ≥ 1.5 s × 30 − 1 after, in order, and it sits at the presentation timestamp.
        let still = try #require(try await Media.frames(path).first?.stamp?.index)
        let clip = try await Media.frames(clipPath)
        let idx = clip.map { $0.stamp?.index }
        #expect(Media.isConsecutive(idx, from: idx.first! ?? -1), "\(idx)")
        let at = try #require(idx.firstIndex(of: still))
        #expect(at >= 45 - 15, "\(at) frames before the shutter")
        #expect(clip.count - at - 1 >= 44, "\(clip.count - at - 1) frames after the shutter")
        let presentation = Double(presentationUs) / 1e6
        let framePTS = try #require(clip[at].pts)
        #expect(abs(framePTS - presentation) < 0.001, "still at \(framePTS) s, XMP says \(presentation) s")
        let rep = try await Self.report(path)
        let mp = try #require(rep["motionPhoto"] as? [String: Any])
        #expect(mp["consistent"] as? Bool == true)
        #expect(mp["stampAtPresentation"] as? String == "1:\(still)")
    }

    @Test func liveModeArmsTheRingBeforeTheFirstShutter() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["session", "--mode", "live", "--source", "test", "--output-dir", dir] + Self.small,
                                           timeout: 60, stdin: "wait 3s\nlive a\nmode photo\nsnap s.jpg\n")
        #expect(r.status == 0, "\(r.stderr)")
        let mp = try #require((try await Self.report("\(dir)/a.MP.jpg"))["motionPhoto"] as? [String: Any])
        // The ring was filling before the shutter: the clip has its whole 1.5 s "before" part
        // (3 s leave room for a slow start on a busy machine; an unarmed ring would have ~0).
        #expect((mp["presentationTimestampUs"] as? Int ?? 0) >= 1_500_000, "\(mp)")
        #expect(FileManager.default.fileExists(atPath: "\(dir)/s.jpg"))
    }

    @Test func shotsWithoutSound() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["session", "--source", "test", "--output-dir", dir] + Self.small,
                                           timeout: 60, stdin: "live a\nlive b\n")
        #expect(r.status == 0, "\(r.stderr)")
        for n in ["a", "b"] {
            let mp = try #require((try await Self.report("\(dir)/\(n).MP.jpg"))["motionPhoto"] as? [String: Any])
            #expect(mp["consistent"] as? Bool == true)
        }
    }

    @Test func badInputs() async throws {
        let dir = TestEnvironment.tempDir()
        for (args, mentions) in [(["--before", "0"], "--before 0"), (["--after", "11"], "--after 11"),
                                 (["--before", "-1"], "--before -1"), (["--format", "gif"], "gif")] {
            let r = try await Subprocess.gpick(["live", "-o", "\(dir)/x", "--source", "test"] + args)
            #expect(r.status != 0)
            #expect(r.stderrLines.count == 1 && r.stderr.contains(mentions), "\(args): \(r.stderr)")
        }
        try Data("keep".utf8).write(to: URL(fileURLWithPath: "\(dir)/old.MP.jpg"))
        let r = try await Subprocess.gpick(["live", "-o", "\(dir)/old", "--source", "test"])
        #expect(r.status != 0 && r.stderr.contains("already exists"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/old.MP.jpg")) == Data("keep".utf8))
        #expect(TestEnvironment.files(in: dir) == ["old.MP.jpg"])
        // Half of an Apple pair exists: refused, and nothing of the new pair is written.
        try Data("movie".utf8).write(to: URL(fileURLWithPath: "\(dir)/half.mov"))
        let h = try await Subprocess.gpick(["live", "-o", "\(dir)/half", "--format", "apple", "--source", "test"])
        #expect(h.status != 0 && h.stderr.contains("half.mov already exists"), "\(h.stderr)")
        #expect(TestEnvironment.files(in: dir) == ["half.mov", "old.MP.jpg"])
    }

    @Test func diskFullLeavesBothFilesOrNeither() async throws {
        let tiny = try TmpfsMount(sizeKiB: 1200)
        defer { tiny.unmount() }
        let r = try await Subprocess.gpick(["live", "-o", "\(tiny.path)/x", "--source", "test", "--width", "640", "--height", "360"], timeout: 60)
        #expect(r.status != 0)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("no space left"), "\(r.stderr)")
        #expect(TestEnvironment.files(in: tiny.path).isEmpty, "\(TestEnvironment.files(in: tiny.path))")
    }

    @Test func applePairSharesOneUUIDAndMarksTheStill() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["live", "-o", "\(dir)/IMG_0001", "--format", "apple", "--source", "test", "--audio", "test"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(TestEnvironment.files(in: dir) == ["IMG_0001.jpg", "IMG_0001.mov"])
        let jpg = "\(dir)/IMG_0001.jpg", mov = "\(dir)/IMG_0001.mov"
        // exiftool reads the UUID from the JPEG's Apple MakerNote (tag 17) and from the MOV's keys.
        let mn = try await ExifTool.run(["-s3", "-MakerNotes:MediaGroupUUID", "-MakerNotes:ContentIdentifier", jpg])
        let fromJPEG = try #require(mn.stdoutLines.first)
        #expect(fromJPEG.count == 36 && fromJPEG == fromJPEG.uppercased(), "\(mn.stdout)")
        let keys = try await ExifTool.run(["-s3", "-Keys:ContentIdentifier", mov])
        #expect(keys.stdoutLines.first == fromJPEG)
        let rep = try #require((try await Self.report(mov))["appleLivePhoto"] as? [String: Any])
        #expect(rep["contentIdentifier"] as? String == fromJPEG && rep["consistent"] as? Bool == true, "\(rep)")
        // The still-image-time track: one mebx sample, at the still's time, value -1.
        let ee = try await ExifTool.run(["-ee", "-s3", "-StillImageTime", mov])
        #expect(ee.stdoutLines == ["-1"], "\(ee.stdout)")
        let stream = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "d", "-show_entries",
                                                                   "stream=codec_tag_string", "-of", "csv=p=0", mov])
        #expect(stream.stdoutLines == ["mebx"], "\(stream.stdout)")
        let packets = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "d", "-show_entries",
                                                                    "packet=pts_time", "-of", "csv=p=0", mov])
        let lines = packets.stdoutLines
        let times = lines.compactMap(Double.init)
        #expect(times.count == 1, "\(lines)")
        let stillTime = try #require(rep["stillTime"] as? Double)
        #expect(abs((times.first ?? -1) - stillTime) < 0.001)
        // The movie frame at the still time carries the still's stamp; enough frames either side.
        let still = try #require(try await Media.frames(jpg).first?.stamp?.index)
        let frames = try await Media.frames(mov)
        let at = try #require(frames.firstIndex { abs(($0.pts ?? -1) - stillTime) < 0.001 })
        #expect(frames[at].stamp?.index == still)
        #expect(at >= 45 - 15 && frames.count - at - 1 >= 44, "\(at) before, \(frames.count - at - 1) after")
        let info = try await Media.discover(mov)
        #expect(info.streams.contains { $0.kind == "audio" })
    }
}

/// Eleven live photos in one session: the script waits for each shot's after-part (about 1.6 s),
/// so the test is mostly waiting. A suite of its own, beside `LivePhotoTests`' one-at-a-time
/// chain rather than in it.
@Suite struct LivePhotoSessionTests {
    @Test func tenShotsInOneSessionWithSoundAndOneRightAtTheStart() async throws {
        let dir = TestEnvironment.tempDir()
        var script = "live early\n"
        for i in 1...10 { script += "live s\(i)\nwait 0.2s\n" }
        let r = try await Subprocess.gpick(["session", "--source", "test", "--audio", "test", "--output-dir", dir] + LivePhotoTests.small,
                                           timeout: 90, stdin: script)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(TestEnvironment.files(in: dir).count == 33, "NAME.jpg + NAME.mov + NAME.MP.jpg for each of 11 shots")
        // Read by gpick's inspection in this process (`gpick inspect` itself: LivePhotoTests).
        var previousStill = -1
        for name in ["early"] + (1...10).map({ "s\($0)" }) {
            let path = "\(dir)/\(name).MP.jpg"
            let still = try #require(try await Media.frames(path).first?.stamp?.index)
            let mp = try #require(try await Media.inspected(path).motionPhoto)
            #expect(mp.consistent, "\(name): \(mp)")
            #expect(mp.stampAtPresentation == "1:\(still)", "\(name): \(mp)")
            #expect(still > previousStill)
            previousStill = still
            let apple = try #require(try await Media.inspected("\(dir)/\(name).mov").appleLivePhoto)
            #expect(apple.consistent, "\(name): \(apple)")
            if name == "early" {
                // The ring had just been armed: the clip starts at its first keyframe and the
                // metadata says where the still is.
                #expect((mp.presentationTimestampUs ?? -1) >= 0)
            } else {
                #expect((mp.presentationTimestampUs ?? 0) >= 1_000_000, "\(name): \(mp)")
            }
        }
    }
}
