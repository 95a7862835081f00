import Foundation
import GpickTestSupport
import Testing
@testable import GpickFormats

/// HEIF Motion Photos (Google's Motion Photo format 1.0 for HEIF, Samsung One UI 6 and later):
/// the MP4 in a top-level `mpvd` box after the image. Built here from a HEIC libheif wrote and an
/// MP4 GStreamer wrote, in the layouts real phones use: an 8-byte box header (Samsung) or a
/// 64-bit one (Google's sample), a Samsung `sefd` box after it. The video must be found exactly,
/// and never where the box does not really hold an MP4.
@Suite struct MetadataHEIFMotionTests {
    static func box(_ type: String, _ payload: [UInt8], large: Bool = false) -> [UInt8] { ISOBox.box(type, payload, large: large) }

    func read(_ bytes: [UInt8]) throws -> MediaMetadata { try MetadataReader.read(MemoryBytes(bytes)) }

    @Test(arguments: [false, true]) func mpvdBoxAfterTheImageIsTheVideo(large: Bool) async throws {
        let f = try await MediaFixtures.get()
        let heic = try f.bytes("i.heic"), mp4 = try f.bytes("v.mp4")
        let file = heic + Self.box("mpvd", mp4, large: large)
        let m = try read(file)
        #expect(m.container == .heif && m.width == 120 && m.height == 80)
        let info = try #require(m.motionPhoto, "\(m.motionPhotoProblem ?? "")")
        #expect(info.kind == .google)
        #expect(info.video == ByteRange(offset: heic.count + (large ? 16 : 8), length: mp4.count))
        #expect(Array(file[info.video.offset..<(info.video.offset + info.video.length)]) == mp4)
    }

    /// Samsung's layout: `mpvd`, then an `sefd` box holding the SEF trailer to the file's end.
    @Test func samsungSefdAfterTheVideo() async throws {
        let f = try await MediaFixtures.get()
        let heic = try f.bytes("i.heic"), mp4 = try f.bytes("v.mp4")
        let sef = Array("MotionPhoto_Data".utf8) + Array("mpv2".utf8) + Array("SEFH".utf8) + [0, 0, 0, 0] + Array("SEFT".utf8)
        let file = heic + Self.box("mpvd", mp4) + Self.box("sefd", sef)
        let info = try #require(try read(file).motionPhoto)
        #expect(info.video == ByteRange(offset: heic.count + 8, length: mp4.count))
    }

    /// A box that claims more than the file has (a cut download), or that holds no MP4, is not
    /// a video; the photo stays a photo.
    @Test func truncatedOrForeignMpvdIsNotAVideo() async throws {
        let f = try await MediaFixtures.get()
        let heic = try f.bytes("i.heic"), mp4 = try f.bytes("v.mp4")
        let cut = Array((heic + Self.box("mpvd", mp4)).dropLast(mp4.count / 2))
        #expect(try read(cut).motionPhoto == nil)
        let foreign = heic + Self.box("mpvd", Array(repeating: 0x41, count: 4096))
        #expect(try read(foreign).motionPhoto == nil)
        #expect(try read(heic).motionPhoto == nil)
    }

    /// libheif's HEIC, as exiftool reads it: the primary image and its size.
    @Test func primaryImageIsListed() async throws {
        let f = try await MediaFixtures.get()
        let m = try read(try f.bytes("i.heic"))
        #expect(m.images.first == EmbeddedImage(role: .primary, width: 120, height: 80, mimeType: "image/heic"))
        #expect(f.number("i.heic", "ImageWidth") == 120 && f.number("i.heic", "ImageHeight") == 80)
    }
}
