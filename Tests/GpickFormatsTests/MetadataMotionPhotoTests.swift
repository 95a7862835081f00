import Foundation
import GpickTestSupport
import Testing
@testable import GpickFormats

/// Motion photos whose XMP exiftool wrote (elements, its own prefixes), made by concatenation
/// with an MP4 GStreamer wrote; the video must be found exactly, and only when it is there.
@Suite struct MetadataMotionPhotoTests {
    /// The range holds the very MP4 that was appended.
    func expectVideo(_ f: MediaFixtures, _ name: String, _ info: MotionPhotoInfo) throws {
        let file = try f.bytes(name), mp4 = try f.bytes("v.mp4")
        #expect(info.video.length == mp4.count, "\(name)")
        #expect(info.video.offset >= 0 && info.video.offset + info.video.length <= file.count)
        #expect(Array(file[info.video.offset..<(info.video.offset + info.video.length)]) == mp4, "\(name)")
    }

    @Test func googleV1WrittenByExiftool() async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path("google.jpg"))
        let info = try #require(m.motionPhoto, "\(m.motionPhotoProblem ?? "")")
        #expect(info.kind == .google && info.presentationUs == 500_000)
        try expectVideo(f, "google.jpg", info)
        #expect(m.motionPhotoProblem == nil)
        #expect(m.width == 640 && m.height == 480)
        // exiftool reads the same fields (through the config that taught it to write them).
        #expect(f.number("google.jpg", "MotionPhoto") == 1)
        #expect(f.number("google.jpg", "MotionPhotoPresentationTimestampUs") == 500_000)
        let lengths = f.tag("google.jpg", "DirectoryItemLength") as? [Any]
        #expect(lengths.map { "\($0)" } == "[0, \(info.video.length)]")
    }

    /// An editor cut the video and kept the XMP: a plain photo, with the reason said.
    @Test func strippedMotionPhotoIsFlaggedNotTrusted() async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path("stripped.jpg"))
        #expect(m.motionPhoto == nil)
        #expect(m.motionPhotoProblem == "MotionPhoto=1 but no video at the Container offset (stripped by an editor?)")
        #expect(f.number("stripped.jpg", "MotionPhoto") == 1, "exiftool still sees the flag")
    }

    @Test func microVideoV1() async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path("micro.jpg"))
        let info = try #require(m.motionPhoto, "\(m.motionPhotoProblem ?? "")")
        #expect(info.kind == .microVideo && info.presentationUs == 250_000)
        #expect(Double(info.video.length) == f.number("micro.jpg", "MicroVideoOffset"))
        try expectVideo(f, "micro.jpg", info)
    }

    /// Immich #30654: the flag, no MotionPhoto item; the video is found after the image.
    @Test func flagWithoutItemFindsTheVideoAfterTheImage() async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path("noitem.jpg"))
        let info = try #require(m.motionPhoto, "\(m.motionPhotoProblem ?? "")")
        #expect(info.kind == .google && info.presentationUs == nil)
        try expectVideo(f, "noitem.jpg", info)
    }

    /// Samsung's SEF trailer, which exiftool recognises, wins over Google XMP with wrong numbers.
    @Test func samsungTrailerWinsOverWrongXMP() async throws {
        let f = try await MediaFixtures.get()
        #expect(f.string("samsung.jpg", "EmbeddedVideoType") == "MotionPhoto_Data")
        let m = try MetadataReader.read(path: f.path("samsung.jpg"))
        let info = try #require(m.motionPhoto, "\(m.motionPhotoProblem ?? "")")
        #expect(info.kind == .samsung)
        try expectVideo(f, "samsung.jpg", info)
        #expect(m.motionPhotoProblem == nil)
    }

    /// Without any XMP flag the trailer is looked for on Samsung's files only (the EXIF Make): on
    /// every other photo the tail would cost a second disk read in a cold scan.
    @Test func samsungTrailerWithoutXMP() async throws {
        let f = try await MediaFixtures.get()
        #expect(f.string("samsung-old.jpg", "EmbeddedVideoType") == "MotionPhoto_Data")
        let m = try MetadataReader.read(path: f.path("samsung-old.jpg"))
        let info = try #require(m.motionPhoto)
        #expect(info.kind == .samsung && info.presentationUs == nil)
        try expectVideo(f, "samsung-old.jpg", info)
        let anonymous = MediaFixtures.samsungTrailer(still: try f.bytes("a.jpg"), mp4: try f.bytes("v.mp4"))
        #expect(try MetadataReader.read(MemoryBytes(anonymous)).motionPhoto == nil)
    }

    /// gpick's own writer: attributes on rdf:Description; and the same packet with the `Camera:`
    /// prefix some phones use.
    @Test func attributeStyleXMPWithEitherPrefix() async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(MemoryBytes(try f.bytes("gpick.MP.jpg")))
        let info = try #require(m.motionPhoto)
        #expect(info.kind == .google && info.presentationUs == 733_333)
        try expectVideo(f, "gpick.MP.jpg", info)
        #expect(f.number("gpick.MP.jpg", "MotionPhotoPresentationTimestampUs") == 733_333)

        let jpeg = try f.bytes("a.jpg"), mp4 = try f.bytes("v.mp4")
        let xmp = MotionPhoto.xmp(videoLength: mp4.count, presentationUs: 42).replacing("GCamera", with: "Camera")
        let payload = MotionPhoto.xmpHeader + Array(xmp.utf8)
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let other = try MetadataReader.read(MemoryBytes(Array(jpeg[..<2]) + app1 + Array(jpeg[2...]) + mp4))
        #expect(other.motionPhoto?.kind == .google && other.motionPhoto?.presentationUs == 42)
        #expect(other.motionPhoto?.video == ByteRange(offset: jpeg.count + app1.count, length: mp4.count))
    }

    /// Hand-built XMP packets the scanner must read the same way.
    @Test func xmpScannerReadsAttributesElementsAndAnyPrefix() {
        let elements = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:Camera='http://ns.google.com/photos/1.0/camera/' xmlns:C="http://ns.google.com/photos/1.0/container/"
          xmlns:I="http://ns.google.com/photos/1.0/container/item/" xmlns:GPano="http://ns.google.com/photos/1.0/panorama/">
        <Camera:MotionPhoto>1</Camera:MotionPhoto><Camera:MotionPhotoPresentationTimestampUs>-1</Camera:MotionPhotoPresentationTimestampUs>
        <GPano:UsePanoramaViewer>True</GPano:UsePanoramaViewer>
        <C:Directory><rdf:Seq>
          <rdf:li rdf:parseType="Resource"><C:Item I:Semantic="Primary" I:Mime="image/jpeg"/></rdf:li>
          <rdf:li rdf:parseType="Resource"><C:Item rdf:parseType="Resource"><I:Mime>video/mp4</I:Mime>
            <I:Semantic>MotionPhoto</I:Semantic><I:Length>1234</I:Length><I:Padding>16</I:Padding></C:Item></rdf:li>
        </rdf:Seq></C:Directory></rdf:Description></rdf:RDF></x:xmpmeta>
        """
        let x = XMPFacts(Array(elements.utf8))
        #expect(x.motionPhoto && x.hasVideoItem && x.itemLength == 1234 && x.itemPadding == 16)
        #expect(x.presentationUs == nil, "-1 means unknown")
        #expect(x.isPanorama)
        // A prefix bound to another URI is not Google's, and MotionPhoto=0 is no motion photo.
        let impostor = #"<rdf:Description xmlns:GCamera="http://example.com/" GCamera:MotionPhoto="1"/>"#
        #expect(!XMPFacts(Array(impostor.utf8)).motionPhoto)
        let off = #"<rdf:Description xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MotionPhoto="0"/>"#
        #expect(!XMPFacts(Array(off.utf8)).motionPhoto)
        // A longer name sharing the prefix is not the property.
        let longer = #"<d xmlns:G="http://ns.google.com/photos/1.0/camera/" G:MotionPhotoVersion="1"/>"#
        #expect(!XMPFacts(Array(longer.utf8)).motionPhoto)
    }
}
