import Foundation
import GpickTestSupport
import Testing
import GpickBase
@testable import GpickFormats

/// Stills made by GStreamer, ffmpeg and vips, tagged by exiftool, read back and cross-checked
/// against what exiftool itself reads.
@Suite struct MetadataStillTests {
    func read(_ f: MediaFixtures, _ name: String) throws -> MediaMetadata { try MetadataReader.read(path: f.path(name)) }

    /// Size and MIME type agree with exiftool for every still container.
    @Test(arguments: [
        ("a.jpg", MediaMetadata.Container.jpeg), ("p.png", .png), ("lossy.webp", .webp), ("lossless.webp", .webp),
        ("exif.webp", .webp), ("i.gif", .gif), ("i.tiff", .tiff), ("i.heic", .heif), ("i.avif", .avif),
    ])
    func sizeAndTypeAgreeWithExiftool(name: String, container: MediaMetadata.Container) async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, name)
        #expect(m.container == container)
        #expect(!m.isVideo)
        #expect(m.mimeType == f.string(name, "MIMEType"))
        #expect(m.width.map(Double.init) == f.number(name, "ImageWidth"), "\(name)")
        #expect(m.height.map(Double.init) == f.number(name, "ImageHeight"), "\(name)")
        #expect(m.motionPhoto == nil && m.motionPhotoProblem == nil)
    }

    @Test func plainJPEGHasNoMetadata() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, "a.jpg")
        #expect(m.width == 640 && m.height == 480)
        #expect(m.orientation == nil && m.takenAt == nil && m.software == nil && m.userComment == nil)
        #expect(m.exifThumbnail == nil && m.contentIdentifier == nil && !m.isPanorama)
    }

    @Test func jpegExifAgreesWithExiftool() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, "exif.jpg")
        #expect(m.orientation == 6 && f.number("exif.jpg", "Orientation") == 6)
        #expect(m.takenAt == TakenDate(year: 2023, month: 7, day: 14, hour: 18, minute: 5, second: 9, offsetSeconds: 7200))
        #expect(f.string("exif.jpg", "DateTimeOriginal") == "2023:07:14 18:05:09")
        #expect(m.software == "gpick test 1.0" && m.software == f.string("exif.jpg", "Software"))
        #expect(m.userComment == "Screenshot" && m.userComment == f.string("exif.jpg", "UserComment"))
        #expect(m.isPanorama, "GPano ProjectionType equirectangular")
        // The thumbnail's range is where exiftool says, and holds the JPEG it was given.
        let thumb = try #require(m.exifThumbnail)
        #expect(Double(thumb.offset) == f.number("exif.jpg", "ThumbnailOffset"))
        #expect(Double(thumb.length) == f.number("exif.jpg", "ThumbnailLength"))
        let bytes = try f.bytes("exif.jpg")
        #expect(Array(bytes[thumb.offset..<(thumb.offset + thumb.length)]) == (try f.bytes("thumb.jpg")))
    }

    @Test func createDateStandsInForDateTimeOriginal() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, "dateonly.jpg")
        #expect(m.takenAt == TakenDate(year: 2021, month: 2, day: 3, hour: 4, minute: 5, second: 6, offsetSeconds: nil))
        #expect(f.string("dateonly.jpg", "CreateDate") == "2021:02:03 04:05:06")
    }

    @Test func pngTextXMPAndExif() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, "tagged.png")
        #expect(m.software == "png soft" && m.software == f.string("tagged.png", "Software"))
        #expect(m.userComment == "a comment" && m.userComment == f.string("tagged.png", "Comment"))
        #expect(m.isPanorama, "GPano UsePanoramaViewer True in iTXt XMP")
        #expect(m.orientation == 8 && f.number("tagged.png", "Orientation") == 8)
        #expect(m.takenAt == TakenDate(year: 2022, month: 1, day: 2, hour: 3, minute: 4, second: 5))
    }

    @Test func webpExifInVP8X() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, "exif.webp")
        #expect(m.orientation == 6 && f.number("exif.webp", "Orientation") == 6)
        #expect(m.takenAt == TakenDate(year: 2023, month: 7, day: 14, hour: 18, minute: 5, second: 9, offsetSeconds: 7200))
        #expect(f.string("exif.webp", "DateTimeOriginal") == "2023:07:14 18:05:09")
    }

    @Test func tiffIFD0() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, "exif.tiff")
        #expect(m.orientation == 5 && f.number("exif.tiff", "Orientation") == 5)
        #expect(m.software == "tiff soft")
        #expect(m.width == 96 && m.height == 64)
    }

    @Test func heicExifItem() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, "exif.heic")
        #expect(m.width == 120 && m.height == 80)
        #expect(m.takenAt == TakenDate(year: 2019, month: 6, day: 7, hour: 8, minute: 9, second: 10, offsetSeconds: -18_000))
        #expect(f.string("exif.heic", "DateTimeOriginal") == "2019:06:07 08:09:10")
    }

    /// The Apple still: gpick's MakerNote writer, read by this reader and by exiftool.
    @Test func appleContentIdentifierAgreesWithExiftool() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(f, "apple.jpg")
        #expect(m.contentIdentifier == MediaFixtures.appleUUID)
        // exiftool 12.57 names Apple's tag 0x11 MediaGroupUUID; later versions ContentIdentifier.
        #expect((f.string("apple.jpg", "MediaGroupUUID") ?? f.string("apple.jpg", "ContentIdentifier")) == m.contentIdentifier)
    }

    /// An Apple MakerNote with both tags, little-endian TIFF around it (as iPhones write), and the
    /// burst UUID that exiftool also reads.
    @Test func appleBurstUUIDInLittleEndianExif() async throws {
        let f = try await MediaFixtures.get()
        let id = "11111111-2222-3333-4444-555555555555", burst = "ABCDEF01-2345-6789-ABCD-EF0123456789"
        let jpeg = try f.bytes("a.jpg")
        let file = Array(jpeg[..<2]) + Self.appleExifSegment(content: id, burst: burst) + Array(jpeg[2...])
        let path = f.path("burst-\(UUID().uuidString.prefix(6)).jpg")
        try Data(file).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let m = try MetadataReader.read(path: path)
        #expect(m.contentIdentifier == id && m.burstUUID == burst)
        let tool = try await ExifTool.run(["-s3", "-BurstUUID", path]).stdout
        #expect(tool.trimmingCharacters(in: .whitespacesAndNewlines) == burst)
    }

    /// Exif APP1: little-endian TIFF, IFD0 → ExifIFD → Apple MakerNote (big-endian inside, its
    /// offsets from its own start), tags 0x000B and 0x0011.
    static func appleExifSegment(content: String, burst: String) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v & 0xFFFF) }
        let b = Array(burst.utf8) + [0], c = Array(content.utf8) + [0]
        var note = Array("Apple iOS\0".utf8) + [0, 1] + Array("MM".utf8) + be16(2)
        let dataAt = note.count + 2 * 12 + 4
        note += be16(0x000B) + be16(2) + be32(b.count) + be32(dataAt)
        note += be16(0x0011) + be16(2) + be32(c.count) + be32(dataAt + b.count)
        note += be32(0) + b + c
        var tiff = Array("II".utf8) + le16(42) + le32(8)
        let exifIFD = 8 + 2 + 12 + 4
        tiff += le16(1) + le16(0x8769) + le16(4) + le32(1) + le32(exifIFD) + le32(0)
        let noteAt = exifIFD + 2 + 12 + 4
        tiff += le16(1) + le16(0x927C) + le16(7) + le32(note.count) + le32(noteAt) + le32(0) + note
        let payload = Array("Exif\0\0".utf8) + tiff
        return [0xFF, 0xE1] + be16(payload.count + 2) + payload
    }
}
