import Foundation
import GpickBase
@testable import GpickImages
import GpickTestSupport
import Testing

/// libvips and GStreamer on real files: boxes, orientation, video frames past black.
struct ImageAndVideoTests {
    /// A `width`×`height` black image with a white disc of `radius` in its centre.
    func disc(width: Int, height: Int, radius: Double) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) + 0.5 - Double(width) / 2, dy = Double(y) + 0.5 - Double(height) / 2
                let v: UInt8 = dx * dx + dy * dy <= radius * radius ? 255 : 0
                let i = (y * width + x) * 4
                rgba[i] = v; rgba[i + 1] = v; rgba[i + 2] = v; rgba[i + 3] = 255
            }
        }
        return rgba
    }

    /// Width and height of the bright region (the disc as scaled).
    func brightExtent(_ img: (width: Int, height: Int, pixels: [UInt8])) -> (Int, Int) {
        var minX = Int.max, maxX = -1, minY = Int.max, maxY = -1
        for y in 0..<img.height {
            for x in 0..<img.width where img.pixels[(y * img.width + x) * 3] > 127 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        return (maxX - minX + 1, maxY - minY + 1)
    }

    @Test func fitStaysInsideTheBoxAndFillCoversItWithoutDistortion() async throws {
        let dir = Fixture.dir()
        let source = "\(dir)/disc.png"
        try Fixture.write(TestPNG.make(width: 400, height: 200, rgba: disc(width: 400, height: 200, radius: 80)), to: source)

        let fit = try await StillImage.thumbnail(at: source, box: ImageBox(width: 128, height: 128, mode: .fit))
        #expect((fit.width, fit.height) == (128, 64))
        let fill = try await StillImage.thumbnail(at: source, box: ImageBox(width: 128, height: 128, mode: .fill))
        #expect((fill.width, fill.height) == (128, 128))
        let wide = try await StillImage.thumbnail(at: source, box: ImageBox(width: 300, height: 60, mode: .fill))
        #expect((wide.width, wide.height) == (300, 60))

        for (picture, diameter) in [(fit, 128.0 / 400 * 160), (fill, 128.0 / 200 * 160)] {
            let out = "\(dir)/out-\(picture.width)x\(picture.height).png"
            try Fixture.write(try picture.pngData(), to: out)
            let (w, h) = brightExtent(try await Fixture.rgb(out))
            #expect(abs(Double(w) - diameter) <= 2, "disc \(w)×\(h), expected \(diameter)")
            #expect(abs(w - h) <= 1, "disc \(w)×\(h) is not round")
        }
    }

    @Test func headerReadsTheSizeAsShown() async throws {
        let dir = Fixture.dir()
        let photo = "\(dir)/r.jpg"
        try await Fixture.jpeg(photo, width: 320, height: 200, orientation: 8)
        let h = try await StillImage.header(at: photo)
        #expect((h.width, h.height, h.orientation) == (200, 320, 8))
        #expect(h.mimeType == "image/jpeg")
        // The same from memory.
        let picture = try await OffPool.run { () throws(GpickError) in
            try StillImage.thumbnail(data: try! Fixture.bytes(photo), name: "r.jpg", box: .square(100))
        }
        #expect(picture.height == 100 && (62...63).contains(picture.width))
    }

    @Test func pngTextChunksAreTEXtAndReadBack() throws {
        let pixels = [UInt8](repeating: 255, count: 16)
        let picture = try pixels.withUnsafeBytes { try VipsPicture.rgba($0, width: 2, height: 2, stride: 8) }
        let png = try picture.pngData(text: [("Thumb::URI", "file:///a%20b.png"), ("Thumb::MTime", "42")])
        #expect(TestPNG.text(png) == ["Thumb::URI": "file:///a%20b.png", "Thumb::MTime": "42"])
        #expect(TestPNG.chunks(png).map(\.type) == ["IHDR", "tEXt", "tEXt", "pHYs", "IDAT", "IEND"])
        // libvips' own reader sees them too.
        #expect(StillImage.pngText(png) == ["Thumb::URI": "file:///a%20b.png", "Thumb::MTime": "42"])
    }

    @Test func aVideoGetsAThumbnailWithItsLength() async throws {
        let dir = Fixture.dir()
        let video = "\(dir)/clip.mp4"
        try await Fixture.video(video, seconds: 3)
        let cache = ThumbnailCache(base: "\(dir)/cache", version: "t")
        let start = Date()
        let path = try await cache.thumbnail(for: video, mimeType: "video/mp4", size: .normal)
        // A hang guard, not a timing: the 3 s video timeout ends it, after this suite's other
        // decodes have had the shared gate (17 s was seen beside a release build on 2 cores).
        #expect(Date().timeIntervalSince(start) < 60)
        let png = try Fixture.bytes(path)
        #expect(TestPNG.header(png) == .init(width: 128, height: 96, bitDepth: 8, colorType: 6, interlace: 0))
        #expect(TestPNG.text(png)["Thumb::Movie::Length"] == "3")
        #expect(TestPNG.text(png)["Thumb::Mimetype"] == "video/mp4")
        #expect(Fixture.meanLuma(try await Fixture.rgb(path)) > 60)
    }

    @Test func aVideoThatOpensInBlackGetsAFrameThatIsNot() async throws {
        let dir = Fixture.dir()
        let video = "\(dir)/intro.mp4"
        try await Fixture.blackThenBars(video)
        let poster = try await VideoFrames.poster(path: video, box: .square(256))
        #expect(poster.meanLuma > VideoFrames.blackLuma)
        #expect((poster.position ?? 0) >= 1.9)
        // Through the cache, checked on the written PNG by GStreamer's decoder.
        let cache = ThumbnailCache(base: "\(dir)/cache", version: "t")
        let path = try await cache.thumbnail(for: video, mimeType: nil, size: .large)
        let img = try await Fixture.rgb(path)
        #expect((img.width, img.height) == (256, 192))
        #expect(Fixture.meanLuma(img) > 60)
    }

    @Test func aPhoneVideoIsTurnedUprightAndSparseKeyframesStillGiveAThird() async throws {
        let dir = Fixture.dir()
        // One keyframe only (at 0): the frame must still come from about a third of the way in.
        let video = "\(dir)/portrait.mp4"
        try await Fixture.tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=6",
                                                   "-c:v", "libx264", "-g", "1000", "-pix_fmt", "yuv420p", video])
        // The container says: turn it 90° to show it (as phones record portrait).
        try await ExifTool.check(["-q", "-overwrite_original", "-Rotation=90", video])
        let poster = try await VideoFrames.poster(path: video, box: .square(128))
        #expect((poster.picture.width, poster.picture.height) == (96, 128))
        #expect(abs((poster.position ?? 0) - 2) < 0.5, "frame at \(poster.position ?? -1) s")
        #expect(poster.duration == 6)
    }

    @Test func aBrokenVideoFailsInTimeWithOneLine() async throws {
        let dir = Fixture.dir()
        let video = "\(dir)/broken.mp4"
        try await Fixture.video(video, seconds: 1)
        let bytes = try Fixture.bytes(video)
        try Fixture.write(Array(bytes.prefix(bytes.count / 3)), to: video)
        let cache = ThumbnailCache(base: "\(dir)/cache", version: "t", videoTimeout: 3)
        let start = Date()
        do {
            _ = try await cache.thumbnail(for: video, mimeType: "video/mp4", size: .normal)
            Issue.record("a truncated MP4 was thumbnailed")
        } catch {
            #expect(error.message.hasPrefix("cannot read \(video)") || error.message.hasPrefix(video), "\(error.message)")
            #expect(!error.message.contains("\n") && !error.message.contains("gst"), "\(error.message)")
        }
        // A hang guard, not a timing: the 3 s video timeout ends it, after this suite's other
        // decodes have had the shared gate (17 s was seen beside a release build on 2 cores).
        #expect(Date().timeIntervalSince(start) < 60)
        #expect(FileManager.default.fileExists(atPath: cache.failPath(for: video)))
    }
}
