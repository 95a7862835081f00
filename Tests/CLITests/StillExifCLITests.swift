import Foundation
import GpickTestSupport
import Testing

/// Every still gpick writes carries the EXIF that Shotwell, digiKam, GNOME Photos and Immich date
/// and name photos by (DateTimeOriginal with sub-seconds and offset, Make, Model, Software,
/// Orientation), as exiftool reads it; and the library dates it by that, not by the file's mtime.
@Suite struct StillExifCLITests {
    static let small = ["--source", "test", "--width", "320", "--height", "240"]

    @Test func snapJPEGAndPNG() async throws {
        let dir = TestEnvironment.tempDir()
        for name in ["a.jpg", "b.png"] {
            let r = try await Subprocess.gpick(["snap", "-o", "\(dir)/\(name)"] + Self.small)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try await ExifTags.problems("\(dir)/\(name)") == [])
        }
        // The pixels are still the test source's frame: the EXIF went in beside them.
        #expect(try await Media.frames("\(dir)/a.jpg").first?.stamp?.sourceID == 1)
        #expect(try await Media.frames("\(dir)/b.png").first?.stamp?.sourceID == 1)
    }

    /// A burst's frames, each with its own time: the sub-seconds say which came first.
    @Test func burstFramesAreDatedInOrder() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--count", "3", "-o", "\(dir)/b.jpg"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        var times: [String] = []
        for i in 1...3 {
            let path = "\(dir)/b-00\(i).jpg"
            #expect(try await ExifTags.problems(path) == [])
            let t = try await ExifTags.read(path)
            times.append((t["DateTimeOriginal"] ?? "") + "." + (t["SubSecTimeOriginal"] ?? ""))
        }
        #expect(times == times.sorted(), "\(times)")
    }

    /// A live photo's stills: the Motion Photo's and the Apple pair's, which keeps its MakerNote.
    @Test func livePhotoStills() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["live", "-o", "\(dir)/shot"] + Self.small, timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await ExifTags.problems("\(dir)/shot.MP.jpg") == [])
        #expect(try await ExifTags.problems("\(dir)/shot.jpg") == [])
        let x = try await ExifTool.run(["-s3", "-MediaGroupUUID", "-ContentIdentifier", "\(dir)/shot.jpg"])
        let uuid = x.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(uuid.count == 36, "the Apple pair's UUID: \(x.stdout)")
        let rep = try await Subprocess.gpick(["inspect", "\(dir)/shot.jpg", "--json"])
        let apple = (try JSONSerialization.jsonObject(with: Data(rep.stdout.utf8)) as? [String: Any])?["appleLivePhoto"] as? [String: Any]
        #expect(apple?["consistent"] as? Bool == true, "\(rep.stdout) \(rep.stderr)")
    }

    /// A session's snap, through the script language.
    @Test func sessionSnap() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["session", "--output-dir", dir] + Self.small, stdin: "snap s.jpg\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await ExifTags.problems("\(dir)/s.jpg") == [])
    }

    /// The library dates a still by its EXIF: a copy that changed the file's mtime changes nothing.
    @Test func libraryDatesByExifNotMtime() async throws {
        let dir = TestEnvironment.tempDir()
        let root = dir + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let r = try await Subprocess.gpick(["snap", "-o", "\(root)/a.jpg"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let t = try await ExifTags.read("\(root)/a.jpg")
        // As a sync would leave it: an mtime in 2001.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: "\(root)/a.jpg")
        let scan = try await LibraryCLI.run(["library", "scan", "--library", root], data: dir + "/data")
        #expect(scan.status == 0, "\(scan.stderr)")
        let list = try await LibraryCLI.run(["library", "list", "--json", "--library", root], data: dir + "/data")
        let asset = try #require(LibraryCLI.events(list.stdout).first { $0["event"] as? String == "asset" })
        let taken = try #require(asset["taken"] as? String)
        let exifSeconds = try #require(ExifTags.seconds(t["DateTimeOriginal"] ?? "", t["OffsetTimeOriginal"] ?? ""))
        let f = ISO8601DateFormatter()
        let listed = try #require(f.date(from: taken)?.timeIntervalSince1970, "\(taken)")
        #expect(listed == exifSeconds.rounded(.down), "listed \(taken), EXIF \(t)")
    }
}
