import Foundation
import GpickTestSupport
import Testing

/// `gpick inspect` on photos of every format, from gpick's fixtures: facts checked against
/// exiftool and vipsheader, a HEIC Motion Photo's clip played back, a RAW file read through its
/// preview. (The phone files themselves: RealFilesTests.)
@Suite struct InspectStillTests {
    static func report(_ path: String) async throws -> [String: Any] {
        let r = try await Subprocess.gpick(["inspect", path, "--json"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(path): \(r.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    @Test(arguments: [("exif.jpg", "jpeg", "image/jpeg"), ("i.heic", "heif", "image/heic"), ("i.avif", "avif", "image/avif"),
                      ("i.jxl", "jxl", "image/jxl"), ("lossy.webp", "webp", "image/webp"), ("p.png", "png", "image/png"),
                      ("i.gif", "gif", "image/gif"), ("i.tiff", "tiff", "image/tiff")])
    func everyFormatIsAPhoto(name: String, container: String, format: String) async throws {
        let f = try await MediaFixtures.get()
        let rep = try await Self.report(f.path(name))
        let still = try #require(rep["still"] as? [String: Any], "\(name): \(rep)")
        #expect(rep["kind"] as? String == "photo" && rep["container"] as? String == container && still["format"] as? String == format)
        #expect(rep["frames"] as? Int == 1, "one photo, whatever the discoverer would say")
        // The stored size is exiftool's, the upright size libvips' after the orientation.
        #expect(still["storedWidth"] as? Int == f.number(name, "ImageWidth").map(Int.init), "\(name)")
        #expect(still["storedHeight"] as? Int == f.number(name, "ImageHeight").map(Int.init), "\(name)")
        let vips = try await Subprocess.run("/usr/bin/vipsheader", ["-f", "width", f.path(name)])
        let o = f.number(name, "Orientation").map(Int.init) ?? 1
        let upright = o >= 5 ? rep["height"] as? Int : rep["width"] as? Int
        #expect(upright == Int(vips.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(name)")
        #expect((still["decoder"] as? String)?.hasPrefix("libvips ") == true, "\(still)")
    }

    @Test func exifFactsOfAJPEG() async throws {
        let f = try await MediaFixtures.get()
        let still = try #require((try await Self.report(f.path("exif.jpg")))["still"] as? [String: Any])
        #expect(still["taken"] as? String == "2023-07-14T18:05:09+02:00")
        #expect(still["orientation"] as? Int == 6)
        #expect(still["software"] as? String == "gpick test 1.0")
        let roles = (still["images"] as? [[String: Any]] ?? []).compactMap { $0["role"] as? String }
        #expect(roles == ["primary", "thumbnail"], "the EXIF thumbnail exiftool put in: \(still)")
        // In words too.
        let r = try await Subprocess.gpick(["inspect", f.path("exif.jpg")])
        #expect(r.stdoutLines.contains("upright: 480x640 (orientation 6: turned 90° clockwise)"), "\(r.stdout)")
        #expect(r.stdoutLines.contains("taken: 2023-07-14T18:05:09+02:00"))
    }

    /// A HEIC Motion Photo (the MP4 in an mpvd box): its clip is found, extracted and played back.
    @Test func heicMotionPhotoClipPlays() async throws {
        let f = try await MediaFixtures.get()
        let path = TestEnvironment.tempDir() + "/motion.heic"
        let mp4 = try f.bytes("v.mp4")
        let size = mp4.count + 8
        let mpvd = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("mpvd".utf8) + mp4
        try Data(try f.bytes("i.heic") + mpvd).write(to: URL(fileURLWithPath: path))
        let rep = try await Self.report(path)
        let mp = try #require(rep["motionPhoto"] as? [String: Any], "\(rep)")
        #expect(mp["consistent"] as? Bool == true, "\(mp)")
        let clip = try await Media.discover(f.path("v.mp4"))
        #expect(abs((mp["clipDuration"] as? Double ?? 0) - clip.durationSeconds) < 0.01, "\(mp)")
        #expect(mp["videoLength"] as? Int == mp4.count)
    }

    @Test func rawIsReadThroughItsPreview() async throws {
        let f = try await MediaFixtures.get()
        let path = TestEnvironment.tempDir() + "/shot.dng"
        try Data(TIFFBuilder.dng(preview: try f.bytes("a.jpg"))).write(to: URL(fileURLWithPath: path))
        let rep = try await Self.report(path)
        let still = try #require(rep["still"] as? [String: Any])
        #expect(still["format"] as? String == "image/x-adobe-dng" && still["make"] as? String == "Testcam")
        #expect(rep["width"] as? Int == 3000 && rep["height"] as? Int == 4000)
        #expect(still["decoder"] as? String == "libvips jpegload (the RAW file's preview)")
    }

    /// Photos go to gpick-library; movies stay with GStreamer.
    @Test func moviesKeepTheirReport() async throws {
        let f = try await MediaFixtures.get()
        let rep = try await Self.report(f.path("v.mp4"))
        #expect(rep["kind"] as? String == "video" && rep["still"] == nil)
    }
}
