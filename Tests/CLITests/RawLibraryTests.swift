import Foundation
import GpickTestSupport
import Testing

/// Camera RAW files in the library: a RAW and the JPEG the camera wrote of the same shot are one
/// asset (shown by the JPEG, the RAW its part, as an Apple pair's movie is); a RAW alone is an
/// asset of its own, thumbnailed upright from its JPEG preview.
@Suite struct RawLibraryTests {
    @Test func rawAndJPEGOfOneShotAreOneAsset() async throws {
        let f = try await MediaFixtures.get()
        let dir = TestEnvironment.tempDir()
        let root = dir + "/Pictures"
        try FileManager.default.createDirectory(atPath: root + "/2024", withIntermediateDirectories: true)
        let jpeg = try f.bytes("a.jpg")
        try Data(TIFFBuilder.dng(preview: jpeg)).write(to: URL(fileURLWithPath: root + "/2024/IMG_0042.DNG"))
        try Data(jpeg).write(to: URL(fileURLWithPath: root + "/2024/IMG_0042.JPG"))
        try Data(TIFFBuilder.dng(preview: jpeg)).write(to: URL(fileURLWithPath: root + "/2024/IMG_0043.dng"))
        // The same name in another folder is another shot.
        try FileManager.default.createDirectory(atPath: root + "/other", withIntermediateDirectories: true)
        try Data(jpeg).write(to: URL(fileURLWithPath: root + "/other/IMG_0043.jpg"))

        let scan = try await LibraryCLI.run(["library", "scan", "--library", root], data: dir + "/data")
        #expect(scan.status == 0, "\(scan.stderr)")
        let list = try await LibraryCLI.run(["library", "list", "--json", "--library", root], data: dir + "/data")
        let assets = LibraryCLI.events(list.stdout).filter { $0["event"] as? String == "asset" }
        let paths = assets.compactMap { $0["path"] as? String }.map { String($0.dropFirst(root.count + 1)) }.sorted()
        #expect(paths == ["2024/IMG_0042.JPG", "2024/IMG_0043.dng", "other/IMG_0043.jpg"], "\(paths)")
        let pair = try #require(assets.first { ($0["path"] as? String)?.hasSuffix("IMG_0042.JPG") == true })
        #expect(pair["paired-raw"] as? String == root + "/2024/IMG_0042.DNG", "\(pair)")
        #expect((pair["subtypes"] as? [String]) == ["raw"])
        let lone = try #require(assets.first { ($0["path"] as? String)?.hasSuffix("IMG_0043.dng") == true })
        #expect(lone["mime-type"] as? String == "image/x-adobe-dng" && lone["paired-raw"] == nil)
        #expect(lone["width"] as? Int == 3000 && lone["height"] as? Int == 4000, "the sensor's size, upright: \(lone)")

        // The JPEG goes: the RAW is an asset of its own again.
        try FileManager.default.removeItem(atPath: root + "/2024/IMG_0042.JPG")
        _ = try await LibraryCLI.run(["library", "scan", "--library", root], data: dir + "/data")
        let again = try await LibraryCLI.listed(library: root, data: dir + "/data")
        #expect(again.contains(root + "/2024/IMG_0042.DNG"), "\(again)")
    }

    /// A RAW file's thumbnail is its preview turned upright by the RAW's orientation (6: a quarter
    /// clockwise): the 640×480 preview gives a 192×256 thumbnail whose left column was the top row.
    @Test func rawThumbnailIsItsPreviewUpright() async throws {
        let dir = TestEnvironment.tempDir()
        // A preview whose top half is red and bottom half blue.
        let preview = dir + "/preview.jpg"
        let make = try await Subprocess.run("/usr/bin/gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=1", "pattern=solid-color", "foreground-color=0xffff0000", "!",
            "video/x-raw,width=640,height=240", "!", "videobox", "bottom=-240", "fill=2", "!", "video/x-raw,width=640,height=480", "!",
            "jpegenc", "!", "filesink", "location=\(preview)"])
        #expect(make.status == 0, "\(make.stderr)")
        let raw = dir + "/shot.dng"
        try Data(TIFFBuilder.dng(preview: [UInt8](try Data(contentsOf: URL(fileURLWithPath: preview))))).write(to: URL(fileURLWithPath: raw))
        let out = dir + "/t.png"
        let r = try await Subprocess.gpick(["thumb", raw, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let size = try await Subprocess.run("/usr/bin/vipsheader", [out])
        #expect(size.stdout.contains("192x256"), "\(size.stdout)")
        // Turned clockwise, the red top of the preview is now on the right.
        let sides = try await Subprocess.run("/usr/bin/vips", ["getpoint", out, "180", "128"])
        let left = try await Subprocess.run("/usr/bin/vips", ["getpoint", out, "10", "128"])
        #expect(sides.stdout.split(separator: " ").first.flatMap { Int($0) } ?? 0 > 200, "right: \(sides.stdout)")
        #expect(left.stdout.split(separator: " ").first.flatMap { Int($0) } ?? 255 < 60, "left: \(left.stdout)")
        // The picker's cheap stand-in is the preview too, upright, then the final picture.
        let p = try await Subprocess.gpick(["thumb", raw, "--progressive", "--json", "-o", dir + "/p.png"])
        let written = p.events
            .filter { $0["event"] as? String == "file-written" }
        #expect(written.map { $0["degraded"] as? Bool } == [true, false], "\(p.stdout)")
        #expect(written.first?["origin"] as? String == "exif-thumbnail" && written.first?["width"] as? Int == 192, "\(written)")
    }
}
