import Foundation
import GpickTestSupport
import Testing
@testable import GpickFormats

/// A HEIF's clean aperture (`clap`): the crop viewers show. An iPhone's photo (a turned 4032×3024
/// grid) given clean apertures centred, off the centre and with fractions, each read by gpick
/// and by libheif through libvips (`vipsheader`, what Debian's viewers show): the same size,
/// and the coded size kept as the stored size.
@Suite(.enabled(if: RealFiles.verified.contains("iphone8plus-rotated.heic"), "needs the real-file corpus (RealFiles)"))
struct MetadataCleanApertureTests {
    typealias F = HEIFCleanAperture.Fraction

    @Test(arguments: [
        ((4031, 1), (3023, 1), (0, 1), (0, 1)),        // one pixel off each side's end, as iPhones crop
        ((2000, 1), (1500, 1), (-500, 1), (300, 1)),   // off the centre
        ((4063, 2), (3001, 3), (-1, 2), (1, 3)),       // fractions, rounded
    ] as [(F, F, F, F)])
    func theShownSizeIsLibheifs(clap: (F, F, F, F)) async throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: RealFiles.path("iphone8plus-rotated.heic"))))
        let edited = try HEIFCleanAperture.adding(to: original, width: clap.0, height: clap.1, horizontalOffset: clap.2, verticalOffset: clap.3)
        let path = TestEnvironment.tempDir() + "/clap.heic"
        try Data(edited).write(to: URL(fileURLWithPath: path))
        let header = try await Subprocess.run("/usr/bin/vipsheader", [path])
        #expect(header.status == 0, "\(header.stderr)")
        // "path: 1500x2000 uchar, 3 bands, srgb, heifload"
        let shown = header.stdout.split(separator: " ").dropFirst().first.map(String.init) ?? ""

        let m = try MetadataReader.read(path: path)
        #expect(m.width == 4032 && m.height == 3024, "stored \(m.width ?? 0)x\(m.height ?? 0)")
        let upright = try #require(m.uprightSize)
        #expect("\(upright.width)x\(upright.height)" == shown, "gpick \(upright), libheif \(shown); \(String(describing: m.cleanAperture))")
        #expect(m.orientation == 6)
    }

    /// Without a clean aperture nothing changes, and the file gpick edited still reads as before.
    @Test func noCleanApertureNoCrop() throws {
        let m = try MetadataReader.read(path: RealFiles.path("iphone8plus-rotated.heic"))
        #expect(m.cleanAperture == nil && m.uprightSize.map { "\($0.width)x\($0.height)" } == "3024x4032")
    }

    /// The rounding, case by case (libheif 1.15's): sizes half up, the left edge down, the top
    /// half up, inside the picture.
    @Test func roundingAsLibheif() {
        #expect(CleanAperture.from([4031, 1, 3023, 1, 0, 1, 0, 1], codedWidth: 4032, codedHeight: 3024)
            == CleanAperture(left: 0, top: 1, width: 4031, height: 3023))
        #expect(CleanAperture.from([4032, 1, 3024, 1, 0, 1, 0, 1], codedWidth: 4032, codedHeight: 3024) == nil)
        #expect(CleanAperture.from([100, 0, 3024, 1, 0, 1, 0, 1], codedWidth: 4032, codedHeight: 3024) == nil)
        #expect(CleanAperture.from([9000, 1, 9000, 1, 0, 1, 0, 1], codedWidth: 4032, codedHeight: 3024) == nil)
    }
}
