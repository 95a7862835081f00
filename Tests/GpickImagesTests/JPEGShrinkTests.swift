import Foundation
import GpickBase
@testable import GpickImages
import GpickTestSupport
import Testing

/// A JPEG is shrunk by libjpeg while it decodes (an eighth for a 12 MP photo into 256 px), and the
/// thumbnail is still the one a full decode scaled by Lanczos3 gives: turned upright, cropped where
/// it should be, within a level or two.
struct JPEGShrinkTests {
    /// Decodes `path` whole and scales it into `box` with the vips command (no shrink-on-load),
    /// and compares gpick's thumbnail of it with that: their sizes and their mean difference.
    static func againstFullDecode(_ path: String, box: ImageBox, in dir: String) async throws -> (gpick: String, reference: String, difference: Double) {
        let picture = try await OffPool.run { () throws(GpickError) -> [UInt8] in
            let file = try OpenFile(path)
            return try StillImage.thumbnail(fd: file.fd, name: path, box: box, limits: DecodeLimits()).picture.encoded(as: .png)
        }
        let mine = "\(dir)/gpick.png", reference = "\(dir)/reference.png"
        try Data(picture).write(to: URL(fileURLWithPath: mine))
        var args = ["thumbnail_image", path, reference, "\(box.width)", "--height", "\(box.height)"]
        if box.mode == .fill { args += ["--crop", "centre"] }
        let made = try await Subprocess.run("/usr/bin/vips", args)
        #expect(made.status == 0, "\(made.stderr)")
        let sizes = try await Subprocess.run("/usr/bin/vipsheader", ["-f", "width", mine, reference])
        let heights = try await Subprocess.run("/usr/bin/vipsheader", ["-f", "height", mine, reference])
        let size = { (i: Int) in "\(sizes.stdoutLines[i])x\(heights.stdoutLines[i])" }
        return (size(0), size(1), try await difference(mine, reference, in: dir))
    }

    /// The mean absolute difference of two pictures of one size over their colour bands, in levels.
    static func difference(_ a: String, _ b: String, in dir: String) async throws -> Double {
        let steps = [["extract_band", a, "\(dir)/a3.v", "0", "--n", "3"], ["extract_band", b, "\(dir)/b3.v", "0", "--n", "3"],
                     ["subtract", "\(dir)/a3.v", "\(dir)/b3.v", "\(dir)/d.v"], ["abs", "\(dir)/d.v", "\(dir)/abs.v"]]
        for args in steps {
            let r = try await Subprocess.run("/usr/bin/vips", args)
            #expect(r.status == 0, "vips \(args[0]): \(r.stderr)")
        }
        let avg = try await Subprocess.run("/usr/bin/vips", ["avg", "\(dir)/abs.v"])
        return Double(avg.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity
    }

    @Test func theShrinkLeavesNearlyAFactorOfTwoForTheResize() {
        let header = { (w: Int, h: Int, o: Int) in
            ImageHeader(width: o >= 5 ? h : w, height: o >= 5 ? w : h, orientation: o, loader: "VipsForeignLoadJpegSource",
                        mimeType: "image/jpeg", storedWidth: w, storedHeight: h, bands: 3, bytesPerBand: 1, decodesWhole: false)
        }
        let decoded = { (h: ImageHeader, box: ImageBox) in
            let d = DecodeLimits.decoded(h, box: box, thumbnails: [])
            return "\(d.width)x\(d.height)"
        }
        // 12 MP phones into the 256 px "large" thumbnails: an eighth (libvips' own rule: a quarter).
        #expect(decoded(header(4032, 3024, 1), .square(256)) == "504x378")
        #expect(decoded(header(4000, 3000, 6), .square(256)) == "500x375")
        #expect(decoded(header(3072, 4080, 1), .square(256)) == "384x510")
        // Less than 15/8 left after an eighth: a quarter. Filling a square scales by the short side.
        #expect(decoded(header(3840, 2160, 1), .square(256)) == "480x270")
        #expect(decoded(header(3800, 2000, 1), .square(256)) == "950x500")
        #expect(decoded(header(4032, 3024, 1), .square(256, mode: .fill)) == "1008x756")
        // 128 px thumbnails of the same photos: an eighth either way; a small photo: none.
        #expect(decoded(header(4032, 3024, 1), .square(128)) == "504x378")
        #expect(decoded(header(640, 480, 1), .square(256)) == "640x480")
    }

    @Test(.enabled(if: RealFiles.verified.contains("pixel3axl-motion.MP.jpg"), "needs the real-file corpus (RealFiles)"))
    func aPhonePhotoShrunkAnEighthMatchesItsFullDecode() async throws {
        let dir = TestEnvironment.tempDir()
        let got = try await Self.againstFullDecode(RealFiles.path("pixel3axl-motion.MP.jpg"), box: .square(256), in: dir)
        #expect(got.gpick == "256x192" && got.reference == "256x192", "\(got)")
        #expect(got.difference < 1.5, "mean difference \(got.difference) levels")
    }

    @Test(arguments: [ImageBox.Mode.fit, .fill])
    func aRotatedPhotoIsTurnedAndCroppedAsItsFullDecode(mode: ImageBox.Mode) async throws {
        let dir = TestEnvironment.tempDir()
        let path = "\(dir)/sideways.jpg"
        try await Fixture.jpeg(path, width: 4032, height: 3024, orientation: 6)
        let got = try await Self.againstFullDecode(path, box: .square(256, mode: mode), in: dir)
        let expected = mode == .fit ? "192x256" : "256x256"
        #expect(got.gpick == expected && got.reference == expected, "\(got)")
        #expect(got.difference < 2, "mean difference \(got.difference) levels")
    }
}
