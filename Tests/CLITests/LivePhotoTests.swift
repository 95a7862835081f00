import Foundation
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
        let r = try await Subprocess.gpick(["live", "-o", "\(dir)/shot", "--source", "test", "--audio", "test"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let path = "\(dir)/shot.MP.jpg"
        #expect(r.stdoutLines == [path])
        #expect(TestEnvironment.files(in: dir) == ["shot.MP.jpg"], "no temp files left")

        // exiftool reads the Motion Photo fields and the Container directory.
        let x = try await Subprocess.run("/usr/bin/exiftool", ["-j", "-struct", "-G1", "-XMP-GCamera:all", "-XMP-Container:all", path])
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

    @Test func tenShotsInOneSessionWithSoundAndOneRightAtTheStart() async throws {
        let dir = TestEnvironment.tempDir()
        var script = "live early\n"
        for i in 1...10 { script += "live s\(i)\nwait 0.2s\n" }
        let r = try await Subprocess.gpick(["session", "--source", "test", "--audio", "test", "--output-dir", dir] + Self.small,
                                           timeout: 90, stdin: script)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(TestEnvironment.files(in: dir).count == 11)
        var previousStill = -1
        for name in ["early"] + (1...10).map({ "s\($0)" }) {
            let path = "\(dir)/\(name).MP.jpg"
            let still = try #require(try await Media.frames(path).first?.stamp?.index)
            let mp = try #require((try await Self.report(path))["motionPhoto"] as? [String: Any])
            #expect(mp["consistent"] as? Bool == true, "\(name): \(mp)")
            #expect(mp["stampAtPresentation"] as? String == "1:\(still)", "\(name): \(mp)")
            #expect(still > previousStill)
            previousStill = still
            if name == "early" {
                // The ring had just been armed: the clip starts at its first keyframe and the
                // metadata says where the still is.
                #expect((mp["presentationTimestampUs"] as? Int ?? -1) >= 0)
            } else {
                #expect((mp["presentationTimestampUs"] as? Int ?? 0) >= 1_000_000, "\(name): \(mp)")
            }
        }
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
                                 (["--format", "apple"], "not available yet"), (["--format", "gif"], "gif")] {
            let r = try await Subprocess.gpick(["live", "-o", "\(dir)/x", "--source", "test"] + args)
            #expect(r.status != 0)
            #expect(r.stderrLines.count == 1 && r.stderr.contains(mentions), "\(args): \(r.stderr)")
        }
        try Data("keep".utf8).write(to: URL(fileURLWithPath: "\(dir)/old.MP.jpg"))
        let r = try await Subprocess.gpick(["live", "-o", "\(dir)/old", "--source", "test"])
        #expect(r.status != 0 && r.stderr.contains("already exists"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/old.MP.jpg")) == Data("keep".utf8))
        #expect(TestEnvironment.files(in: dir) == ["old.MP.jpg"])
    }
}
