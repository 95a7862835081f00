import Foundation
import GpickTestSupport
import Testing
@testable import GpickFormats

/// Camera RAW files as TIFF structures in the layouts cameras write (DNG: a thumbnail in IFD0 and
/// the sensor data in a SubIFD; CR2: a full-size JPEG as IFD0's strip), built around a JPEG
/// GStreamer wrote; and JPEG XL codestreams libvips wrote.
@Suite struct MetadataRawJXLTests {
    func read(_ bytes: [UInt8]) throws -> MediaMetadata { try MetadataReader.read(MemoryBytes(bytes)) }

    /// A DNG: IFD0 holds the camera and a JPEG preview (JPEGInterchangeFormat), its SubIFD the
    /// CFA sensor data; the photo's size is the sensor's, and the preview is listed with its bytes.
    @Test func dngSensorSizeAndPreview() async throws {
        let f = try await MediaFixtures.get()
        let jpeg = try f.bytes("a.jpg")
        let file = TIFFBuilder.dng(preview: jpeg)
        let m = try read(file)
        #expect(m.container == .raw && m.mimeType == "image/x-adobe-dng")
        #expect(m.width == 4000 && m.height == 3000 && m.orientation == 6)
        #expect(m.make == "Testcam" && m.model == "T-1 Pro")
        #expect(m.uprightSize.map { [$0.width, $0.height] } == [3000, 4000])
        #expect(m.images.map(\.role) == [.primary, .preview])
        let preview = try #require(m.images.last?.bytes)
        #expect(Array(file[preview.offset..<(preview.offset + preview.length)]) == jpeg)
        #expect(m.images.last?.width == 640 && m.images.last?.height == 480)
        #expect(m.exifThumbnail == preview, "the preview is the picker's cheap stand-in too")
    }

    /// CR2: "CR" after the TIFF header, a full-size JPEG as IFD0's single strip (compression 6),
    /// the sensor data in IFD3 with Canon's own compression.
    @Test func cr2FullSizeJPEGStrip() async throws {
        let f = try await MediaFixtures.get()
        let jpeg = try f.bytes("a.jpg")
        let file = TIFFBuilder.build(extra: Array("CR".utf8) + [2, 0, 0, 0, 0, 0], chain: true, ifds: [
            [(0x0100, .long(640)), (0x0101, .long(480)), (0x0103, .short(6)), (0x010F, .ascii("Canon")),
             (0x0111, .long(-1)), (0x0112, .short(1)), (0x0117, .long(jpeg.count))],
            [(0x0100, .long(5472)), (0x0101, .long(3648)), (0x0103, .short(6)), (0x0106, .short(32803))],
        ], blob: jpeg)
        let m = try read(file)
        #expect(m.mimeType == "image/x-canon-cr2" && m.width == 5472 && m.height == 3648)
        let preview = try #require(m.images.first { $0.role == .preview })
        #expect(preview.width == 640 && preview.bytes?.length == jpeg.count)
    }

    /// A TIFF with no sensor data is a TIFF, not a RAW.
    @Test func plainTIFFStaysTIFF() async throws {
        let f = try await MediaFixtures.get()
        #expect(try MetadataReader.read(path: f.path("i.tiff")).container == .tiff)
    }

    /// Sizes from the codestream header: the 8-multiple form and the U32 form with odd sizes.
    @Test(arguments: [("i.jxl", 120, 80), ("odd.jxl", 3001, 1999)])
    func jpegXLSize(name: String, width: Int, height: Int) async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path(name))
        #expect(m.container == .jxl && m.mimeType == "image/jxl" && !m.isVideo)
        #expect(m.width == width && m.height == height && m.orientation == 1)
    }

    /// The header's bits written by hand: 8-multiple height, a 3:2 ratio, and an orientation.
    @Test func jpegXLHeaderBits() {
        var bits: [Bool] = []
        func put(_ v: Int, _ n: Int) { for k in 0..<n { bits.append((v >> k) & 1 == 1) } }
        put(1, 1); put(31, 5)        // small: height (31 + 1) × 8 = 256
        put(4, 3)                    // ratio 4: 3:2 → width 384
        put(0, 1); put(1, 1); put(5, 3)  // not all default; extra fields; orientation 5 + 1
        var bytes: [UInt8] = [0xFF, 0x0A] + Array(repeating: 0, count: 8)
        for (i, b) in bits.enumerated() where b { bytes[2 + i / 8] |= 1 << UInt8(i % 8) }
        let h = JXLReader.header(bytes)
        #expect(h?.width == 384 && h?.height == 256 && h?.orientation == 6)
    }
}
