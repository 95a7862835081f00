import Foundation
import GpickBase
import GpickImages
import GpickKit
import GpickLibrary
import GpickTestSupport
import Testing

/// The ImageSource rules (seed 003), source by source: `best` gives exactly one final picture,
/// `progressive` a degraded one first when there is a cheap one, `fit` stays inside the box,
/// `fill` covers it exactly without distortion. Pictures are decoded back by GStreamer.
@Suite struct ImageSourceTests {
    // MARK: - Helpers

    /// Every result of `results`, in order.
    static func collect(_ results: ImageResults) async throws -> [ImageResult] {
        var all: [ImageResult] = []
        for try await r in results { all.append(r) }
        return all
    }

    /// The picture as packed RGB, through a PNG decoded by GStreamer (not libvips).
    static func rgb(_ picture: VipsPicture, _ dir: String) async throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let path = "\(dir)/\(UUID().uuidString).png"
        try Fixture.write(try picture.encoded(as: .png), to: path)
        return try await Fixture.rgb(path)
    }

    /// A 640×480 JPEG: red on the left half, blue to three quarters, green on the rest. A fill
    /// into a square puts the blue/green edge at 5/6 of the width; a squashed picture at 3/4.
    static func stripes(_ path: String, width: Int = 640, height: Int = 480) async throws {
        try await Fixture.tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-y",
                                                   "-f", "lavfi", "-i", "color=c=red:s=\(width / 2)x\(height)",
                                                   "-f", "lavfi", "-i", "color=c=blue:s=\(width / 4)x\(height)",
                                                   "-f", "lavfi", "-i", "color=c=lime:s=\(width / 4)x\(height)",
                                                   "-filter_complex", "[0:v][1:v][2:v]hstack=inputs=3", "-frames:v", "1",
                                                   "-q:v", "2", path])
    }

    enum Colour { case red, blue, green, other }

    static func colour(_ p: (Int, Int, Int)) -> Colour {
        if p.0 > 150, p.1 < 90, p.2 < 90 { return .red }
        if p.2 > 150, p.0 < 90, p.1 < 90 { return .blue }
        if p.1 > 150, p.0 < 90, p.2 < 90 { return .green }
        return .other
    }

    /// The x of the first pixel of `colour` on row `y`.
    static func firstX(_ img: (width: Int, height: Int, pixels: [UInt8]), y: Int, _ c: Colour) -> Int? {
        (0..<img.width).first { colour(Media.pixel(img, $0, y)) == c }
    }

    static func cache(_ dir: String) -> ThumbnailCache { ThumbnailCache(base: "\(dir)/thumbnails", version: "test") }

    // MARK: - Files

    @Test func bestGivesExactlyOneFinalPictureAndFitAndFillKeepTheRules() async throws {
        let dir = Fixture.dir()
        let path = "\(dir)/stripes.jpg"
        try await Self.stripes(path)
        let source = FileImageSource(path: path, thumbnails: Self.cache(dir))
        #expect(try await source.size() == PixelSize(width: 640, height: 480))

        let fit = try await Self.collect(source.image(ImageRequest(size: .fit(width: 120, height: 120))))
        #expect(fit.count == 1 && fit[0].degraded == false)
        let f = try await Self.rgb(fit[0].picture, dir)
        #expect(f.width == 120 && f.height == 90, "fit keeps 4:3 inside the box")
        #expect(abs((Self.firstX(f, y: 45, .blue) ?? -1) - 60) <= 2)
        #expect(abs((Self.firstX(f, y: 45, .green) ?? -1) - 90) <= 2)

        let fill = try await Self.collect(source.image(ImageRequest(size: .fill(width: 120, height: 120))))
        #expect(fill.count == 1 && fill[0].degraded == false)
        let c = try await Self.rgb(fill[0].picture, dir)
        #expect(c.width == 120 && c.height == 120, "fill is the box exactly")
        // Scaled to 160×120 and cropped by 20 on each side: the edges at 60 and 100 (squashed: 60, 90).
        #expect(abs((Self.firstX(c, y: 60, .blue) ?? -1) - 60) <= 2)
        #expect(abs((Self.firstX(c, y: 60, .green) ?? -1) - 100) <= 2, "not distorted")

        let full = try await Self.collect(source.image(ImageRequest(size: .fullResolution)))
        #expect(full.count == 1 && full[0].picture.width == 640 && full[0].picture.height == 480)
        #expect(try await source.fullResolutionData() == (try Fixture.bytes(path)))
    }

    @Test func progressiveGivesTheUprightExifThumbnailFirstShapedAsTheFinalPicture() async throws {
        let dir = Fixture.dir()
        let path = "\(dir)/photo.jpg", small = "\(dir)/small.jpg"
        try await Self.stripes(path, width: 1280, height: 960)
        try await Self.stripes(small, width: 160, height: 120)
        // Stored sideways: shown upright, the red stripe is at the top.
        try await ExifTool.check(["-q", "-overwrite_original", "-ThumbnailImage<=\(small)", "-Orientation#=6", path])
        let source = FileImageSource(path: path, thumbnails: Self.cache(dir))
        #expect(try await source.size() == PixelSize(width: 960, height: 1280))

        let results = try await Self.collect(source.image(ImageRequest(size: .fit(width: 200, height: 200), delivery: .progressive)))
        try #require(results.count == 2)
        #expect(results[0].degraded && results[0].origin == .exifThumbnail)
        #expect(!results[1].degraded && results[1].origin == .decoded)
        // The 160×120 thumbnail is not enlarged: upright at its own 120×160, the final's 3:4.
        for (r, size) in zip(results, [(120, 160), (150, 200)]) {
            let img = try await Self.rgb(r.picture, dir)
            #expect(img.width == size.0 && img.height == size.1, "\(r.origin): \(img.width)×\(img.height)")
            #expect(Self.colour(Media.pixel(img, img.width / 2, img.height / 10)) == .red, "\(r.origin): red at the top")
            #expect(Self.colour(Media.pixel(img, img.width / 2, img.height * 85 / 100)) == .green, "\(r.origin): green at the bottom")
        }
        // best: the stand-in is never delivered.
        let best = try await Self.collect(source.image(ImageRequest(size: .fit(width: 200, height: 200), delivery: .best)))
        #expect(best.count == 1 && !best[0].degraded)
    }

    @Test func withNoCheapPictureProgressiveGivesOnlyTheFinalOne() async throws {
        let dir = Fixture.dir()
        let path = "\(dir)/plain.jpg"
        try await Self.stripes(path)
        let results = try await Self.collect(FileImageSource(path: path, thumbnails: Self.cache(dir))
            .image(ImageRequest(size: .fit(width: 64, height: 64), delivery: .progressive)))
        #expect(results.map(\.degraded) == [false])
    }

    @Test func aVideoFileGivesAFrame() async throws {
        let dir = Fixture.dir()
        let path = "\(dir)/clip.mp4"
        try await Fixture.video(path, seconds: 2)
        let source = FileImageSource(path: path, thumbnails: Self.cache(dir))
        #expect(try await source.size() == PixelSize(width: 320, height: 240))
        let results = try await Self.collect(source.image(ImageRequest(size: .fill(width: 100, height: 50))))
        #expect(results.count == 1 && results[0].origin == .videoFrame)
        #expect(results[0].picture.width == 100 && results[0].picture.height == 50)
    }

    @Test func decompressionBombsAreRefusedFromTheirHeaders() async throws {
        let dir = Fixture.dir()
        let png = "\(dir)/bomb.png", jpeg = "\(dir)/bomb.jpg"
        try Fixture.write(TestPNG.bomb(width: 100_000, height: 100_000), to: png)
        try await Fixture.jpeg(jpeg, width: 64, height: 48)
        try Fixture.write(try ImageBombs.claimingSize(try Fixture.bytes(jpeg), width: 65500, height: 65500), to: jpeg)
        for path in [png, jpeg] {
            let source = FileImageSource(path: path, thumbnails: Self.cache(dir))
            for delivery in [ImageRequest.Delivery.best, .progressive] {
                let error = await #expect(throws: GpickError.self) {
                    _ = try await Self.collect(source.image(ImageRequest(size: .fit(width: 256, height: 256), delivery: delivery)))
                }
                #expect(error?.message.contains("image too large") == true, "\(path): \(error?.message ?? "")")
                #expect(error?.message.contains("\n") == false)
            }
        }
    }

    // MARK: - Assets

    @Test func anAssetTakesItsSizeFromTheIndexAndItsPicturesFromTheSharedCache() async throws {
        let dir = Fixture.dir()
        let root = "\(dir)/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let path = "\(root)/stripes.jpg"
        try await Self.stripes(path)
        let index = try LibraryIndex.open(path: "\(dir)/library.sqlite")
        let roots = MediaRoots(paths: [root])
        _ = try await OffPool.run { () throws(GpickError) in try LibraryScanner(index: index, roots: roots).scan() }
        let id = try #require(try index.list(AssetQuery()).first?.asset.id)
        let cache = Self.cache(dir)
        let source = try await AssetImageSource.open(id: id, index: index, thumbnails: cache)
        #expect(try await source.size() == PixelSize(width: 640, height: 480))

        // The first picture makes the shared thumbnail (large, 256); a smaller request is its stand-in later.
        let first = try await Self.collect(source.image(ImageRequest(size: .fill(width: 200, height: 100), delivery: .progressive)))
        #expect(first.map(\.degraded) == [false], "nothing cached yet and no EXIF thumbnail")
        #expect(cache.existing(for: path, size: .large) != nil)
        let c = try await Self.rgb(first[0].picture, dir)
        #expect(c.width == 200 && c.height == 100)
        // 640×480 covers 200×100 at 200×150: nothing cropped across, the edges at 100 and 150.
        #expect(abs((Self.firstX(c, y: 50, .blue) ?? -1) - 100) <= 2)
        #expect(abs((Self.firstX(c, y: 50, .green) ?? -1) - 150) <= 2)

        let bigger = try await Self.collect(source.image(ImageRequest(size: .fit(width: 400, height: 400), delivery: .progressive)))
        #expect(bigger.map(\.degraded) == [true, false])
        #expect(bigger.first?.origin == .cachedThumbnail)
        // The 256 px thumbnail stands in at its own size, the final picture at the size asked.
        #expect(bigger.map { [$0.picture.width, $0.picture.height] } == [[256, 192], [400, 300]])
        #expect(cache.existing(for: path, size: .xLarge) != nil)
        // Nothing of the user's changed.
        #expect(try Fixture.bytes(path) == (try Fixture.bytes(path)))
    }

    // MARK: - The camera

    @Test func theCameraGivesItsNewestFrameFittedOrFilled() async throws {
        var configuration = SessionConfiguration()
        configuration.source = try SourceSpec.parse("test")
        let session = CaptureSession(configuration)
        try await session.start()
        defer { Task { await session.stop() } }
        let dir = Fixture.dir()
        let source = CameraImageSource(session: session)
        #expect(try await source.size() == PixelSize(width: 1280, height: 720))

        let fit = try await Self.collect(source.image(ImageRequest(size: .fit(width: 100, height: 100), delivery: .progressive)))
        #expect(fit.count == 1 && !fit[0].degraded && fit[0].origin == .cameraFrame)
        let f = try await Self.rgb(fit[0].picture, dir)
        #expect(f.width == 100 && f.height == 56)

        let fill = try await Self.collect(source.image(ImageRequest(size: .fill(width: 100, height: 100))))
        let c = try await Self.rgb(fill[0].picture, dir)
        #expect(c.width == 100 && c.height == 100)
        // SMPTE bars: seven columns. Covering 100×100, 1280×720 is 178 wide: a column is ~25 px
        // (squashed into 100 it would be 14).
        let green = (0..<c.width).filter { Self.colour(Media.pixel(c, $0, 40)) == .green }.count
        #expect((22...28).contains(green), "green column \(green) px wide")
        let jpeg = try await source.fullResolutionData()
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        await session.stop()
    }
}
