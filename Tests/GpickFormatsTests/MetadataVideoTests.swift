import Foundation
import GpickTestSupport
import Testing
@testable import GpickFormats

/// Movies GStreamer and ffmpeg wrote (exiftool adding QuickTime keys), read back and
/// cross-checked against exiftool.
@Suite struct MetadataVideoTests {
    @Test(arguments: [
        ("v.mp4", MediaMetadata.Container.mp4), ("q.mov", .quicktime), ("keys.mov", .quicktime), ("apple.mov", .quicktime),
        ("v.mkv", .matroska), ("v.webm", .webm), ("v.avi", .avi),
    ])
    func containerSizeAndDurationAgreeWithExiftool(name: String, container: MediaMetadata.Container) async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path(name))
        #expect(m.container == container && m.isVideo)
        #expect(m.mimeType == f.string(name, "MIMEType"), "\(name)")
        #expect(m.width.map(Double.init) == f.number(name, "ImageWidth"), "\(name)")
        #expect(m.height.map(Double.init) == f.number(name, "ImageHeight"), "\(name)")
        // exiftool prints Matroska's duration as text; 1 s was asked of every clip.
        let expected = f.number(name, "Duration") ?? 1
        #expect(abs((m.duration ?? -1) - expected) < 0.05, "\(name): \(String(describing: m.duration)) vs \(expected)")
    }

    /// mvhd's creation time is UTC; exiftool prints it without a zone (QuickTimeUTC is implied).
    @Test func mp4CreationTimeIsUTC() async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path("v.mp4"))
        let t = try #require(m.takenAt)
        let text = String(format: "%04d:%02d:%02d %02d:%02d:%02d", t.year, t.month, t.day, t.hour, t.minute, t.second)
        #expect(text == f.string("v.mp4", "CreateDate") && t.offsetSeconds == 0)
        #expect(m.orientation == 1)
    }

    @Test func quickTimeKeysWrittenByExiftool() async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path("keys.mov"))
        #expect(m.contentIdentifier == MediaFixtures.appleUUID)
        #expect(m.contentIdentifier == f.string("keys.mov", "ContentIdentifier"))
        #expect(m.takenAt == TakenDate(year: 2024, month: 5, day: 1, hour: 12, minute: 34, second: 56, offsetSeconds: 7200))
        #expect(f.string("keys.mov", "CreationDate") == "2024:05:01 12:34:56+02:00")
    }

    /// The movie half of an Apple pair written by gpick's patcher; exiftool reads the same UUID.
    @Test func applePatchedMovie() async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path("apple.mov"))
        #expect(m.contentIdentifier == MediaFixtures.movieUUID)
        #expect(f.string("apple.mov", "ContentIdentifier") == MediaFixtures.movieUUID)
        #expect(m.width == 320 && m.height == 240, "the metadata track is not the video track")
    }

    /// ffmpeg's rotate tag becomes the track matrix; orientation follows exiftool's Rotation.
    @Test(arguments: ["r90.mp4", "r180.mp4", "r270.mp4", "v.mp4"])
    func matrixRotationAgreesWithExiftool(name: String) async throws {
        let f = try await MediaFixtures.get()
        let m = try MetadataReader.read(path: f.path(name))
        let rotation = try #require(f.number(name, "Rotation"))
        let expected = [0: 1, 90: 6, 180: 3, 270: 8][Int(rotation)]
        #expect(m.orientation == expected, "\(name): exiftool Rotation \(rotation)")
        #expect(m.width == 320 && m.height == 240, "stored size, before rotation")
    }

    @Test func matrixOrientationTable() {
        let one = 0x10000
        #expect(MovieReader.orientation(a: one, b: 0, c: 0, d: one) == 1)
        #expect(MovieReader.orientation(a: 0, b: one, c: -one, d: 0) == 6)
        #expect(MovieReader.orientation(a: -one, b: 0, c: 0, d: -one) == 3)
        #expect(MovieReader.orientation(a: 0, b: -one, c: one, d: 0) == 8)
        #expect(MovieReader.orientation(a: 0, b: 0, c: 0, d: 0) == nil)
    }

    @Test func dateParsing() {
        #expect(TakenDate.parse("2024-05-01T12:34:56+0200")?.offsetSeconds == 7200)
        #expect(TakenDate.parse("2024-05-01T12:34:56.123-05:30")?.offsetSeconds == -19_800)
        #expect(TakenDate.parse("2024-05-01T12:34:56Z")?.offsetSeconds == 0)
        #expect(TakenDate.parse("2024:05:01 12:34:56") == TakenDate(year: 2024, month: 5, day: 1, hour: 12, minute: 34, second: 56))
        #expect(TakenDate.parse("0000:00:00 00:00:00") == nil)
        #expect(TakenDate.parse("    :  :     :  :  ") == nil)
        #expect(TakenDate.parse("2024:13:01 12:34:56") == nil)
        #expect(TakenDate.fromMacEpoch(0) == nil)
        // 2001-01-01 00:00:00 UTC is 3,061,152,000 s after 1904-01-01.
        #expect(TakenDate.fromMacEpoch(3_061_152_000) == TakenDate(year: 2001, month: 1, day: 1, hour: 0, minute: 0, second: 0, offsetSeconds: 0))
        #expect(TakenDate.fromMacEpoch(3_791_394_896)?.year == 2024)
    }
}
