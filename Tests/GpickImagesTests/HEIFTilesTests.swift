import Foundation
import GpickBase
@testable import GpickImages
import GpickTestSupport
import Testing

/// A HEIF grid decoded tile by tile (libde265, shrunk as it goes) against libheif's whole decode
/// through libvips: the same picture, turned the same way, within a level or two.
@Suite(.enabled(if: RealFiles.verified.contains("iphone8plus-rotated.heic"), "needs the real-file corpus (RealFiles)"))
struct HEIFTilesTests {
    /// The mean absolute difference of two pictures of one size, in levels (vips, as a person would check).
    static func difference(_ a: String, _ b: String, in dir: String) async throws -> Double {
        for (args, _) in [(["subtract", a, b, "\(dir)/d.v"], 0), (["abs", "\(dir)/d.v", "\(dir)/a.v"], 1)] {
            let r = try await Subprocess.run("/usr/bin/vips", args)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let avg = try await Subprocess.run("/usr/bin/vips", ["avg", "\(dir)/a.v"])
        return Double(avg.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity
    }

    @Test(arguments: [512, 1024]) func tilesMatchTheWholeDecode(side: Int) async throws {
        let path = RealFiles.path("iphone8plus-rotated.heic")
        let dir = TestEnvironment.tempDir()
        let box = ImageBox.square(side)
        // Limits too small for a whole decode of 12 MP send it down the tiles.
        let small = DecodeLimits(maxWholeImageBytes: 16 << 20)
        let (tiled, whole) = try await OffPool.run { () throws(GpickError) -> ([UInt8], [UInt8]) in
            let file = try OpenFile(path)
            let t = try StillImage.thumbnail(fd: file.fd, name: path, box: box, limits: small)
            #expect(t.header.loader == "gpick HEIF tiles", "\(t.header.loader)")
            let again = try OpenFile(path)
            let w = try StillImage.thumbnail(fd: again.fd, name: path, box: box, limits: DecodeLimits())
            #expect(w.header.loader.hasPrefix("VipsForeignLoadHeif"))
            return (try t.picture.encoded(as: .png), try w.picture.encoded(as: .png))
        }
        try Data(tiled).write(to: URL(fileURLWithPath: "\(dir)/tiled.png"))
        try Data(whole).write(to: URL(fileURLWithPath: "\(dir)/whole.png"))
        let sizes = try await Subprocess.run("/usr/bin/vipsheader", ["\(dir)/tiled.png", "\(dir)/whole.png"])
        let expected = "\(side * 3 / 4)x\(side)"  // 4032×3024 turned upright: portrait
        #expect(sizes.stdoutLines.allSatisfy { $0.contains(expected) }, "\(sizes.stdout)")
        let d = try await Self.difference("\(dir)/tiled.png", "\(dir)/whole.png", in: dir)
        #expect(d < 2, "mean difference \(d) levels")
    }

    /// The same photo with a clean aperture off its centre (`clap`): the tiles are cut where
    /// libheif cuts the whole decode, before the picture is turned.
    @Test func aCleanApertureCutsTheTilesAsTheWholeDecode() async throws {
        let dir = TestEnvironment.tempDir()
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: RealFiles.path("iphone8plus-rotated.heic"))))
        let edited = try HEIFCleanAperture.adding(to: original, width: (2400, 1), height: (1600, 1),
                                                  horizontalOffset: (-600, 1), verticalOffset: (400, 1))
        let path = "\(dir)/clap.heic"
        try Data(edited).write(to: URL(fileURLWithPath: path))
        let box = ImageBox.square(512)
        let small = DecodeLimits(maxWholeImageBytes: 16 << 20)
        let (tiled, whole) = try await OffPool.run { () throws(GpickError) -> ([UInt8], [UInt8]) in
            let file = try OpenFile(path)
            let t = try StillImage.thumbnail(fd: file.fd, name: path, box: box, limits: small)
            #expect(t.header.loader == "gpick HEIF tiles" && t.header.width == 1600 && t.header.height == 2400, "\(t.header)")
            let again = try OpenFile(path)
            let w = try StillImage.thumbnail(fd: again.fd, name: path, box: box, limits: DecodeLimits())
            return (try t.picture.encoded(as: .png), try w.picture.encoded(as: .png))
        }
        try Data(tiled).write(to: URL(fileURLWithPath: "\(dir)/tiled.png"))
        try Data(whole).write(to: URL(fileURLWithPath: "\(dir)/whole.png"))
        let sizes = try await Subprocess.run("/usr/bin/vipsheader", ["\(dir)/tiled.png", "\(dir)/whole.png"])
        // 2400×1600 turned upright (portrait), fitted into 512.
        #expect(sizes.stdoutLines.count == 2 && sizes.stdoutLines.allSatisfy { $0.contains("341x512") }, "\(sizes.stdout)")
        let d = try await Self.difference("\(dir)/tiled.png", "\(dir)/whole.png", in: dir)
        #expect(d < 2, "mean difference \(d) levels")
    }
}
