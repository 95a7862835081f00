import Foundation
import GpickBase
import Testing
@testable import GpickFormats
import GpickTestSupport

/// The byte-level containers, tested as bytes: no GStreamer in this process. What they write is
/// read back by exiftool (other software), and what they read includes files ffmpeg wrote.
@Suite struct FormatTests {
    /// A program's stdout, waited for off the cooperative pool (the web tests' servers in this
    /// process answer from that pool).
    static func run(_ exe: String, _ args: [String]) async throws -> String {
        try await OffPool.run { () throws -> String in String(decoding: try Spawn.run(exe, args, keepStdout: true).stdout, as: UTF8.self) }
    }

    static func temp(_ name: String) -> String {
        let dir = "/tmp/gpick-tests/formats-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return "\(dir)/\(name)"
    }

    /// A real JPEG (SOI, APP0 JFIF, image data), written by ffmpeg.
    static func ffmpegJPEG() async throws -> [UInt8] {
        let path = temp("f.jpg")
        _ = try await run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=64x48", "-frames:v", "1", path])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A real MP4 or MOV with one H.264 track, written by ffmpeg.
    static func ffmpegMovie(_ ext: String) async throws -> [UInt8] {
        let path = temp("m.\(ext)")
        _ = try await run("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=64x48:r=30:d=1",
                                         "-c:v", "libx264", "-pix_fmt", "yuv420p", path])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func atomsAreSizedBigEndianAndNest() {
        let inner = QTAtom.atom("free", [1, 2, 3])
        #expect(inner == [0, 0, 0, 11] + Array("free".utf8) + [1, 2, 3])
        let full = QTAtom.fullAtom("mvhd", version: 1, flags: 0x000102, [9])
        #expect(full == [0, 0, 0, 13] + Array("mvhd".utf8) + [1, 0, 1, 2, 9])
        let outer = QTAtom.atom("moov", inner + full)
        let kids = QTAtom.children(outer, in: 8..<outer.count)
        #expect(kids.map(\.type) == ["free", "mvhd"])
        #expect(kids.map(\.offset) == [8, 19] && kids.map(\.size) == [11, 13])
        #expect(kids[1].payload == 27..<32)
    }

    @Test func atomWalkStopsAtBrokenSizes() {
        // A child claiming more bytes than there are, and one claiming fewer than its header.
        let lying = [0, 0, 0, 200] + Array("trak".utf8) + [0, 0, 0, 0]
        #expect(QTAtom.children(lying, in: 0..<lying.count).isEmpty)
        let tiny = [0, 0, 0, 3] + Array("trak".utf8)
        #expect(QTAtom.children(tiny, in: 0..<tiny.count).isEmpty)
        #expect(QTAtom.children([], in: 0..<0).isEmpty)
    }

    @Test func makerNoteRoundTripsAndExiftoolReadsIt() async throws {
        let uuid = "8A7E4C52-9C3B-4E5F-A1B2-C3D4E5F60718"
        let jpeg = try await Self.ffmpegJPEG()
        #expect(AppleMakerNote.contentIdentifier(in: jpeg) == nil)
        let tagged = try AppleMakerNote.insert(uuid: uuid, into: jpeg)
        #expect(AppleMakerNote.contentIdentifier(in: tagged) == uuid)
        // After SOI and the APP0 JFIF segment, before the rest of the original file.
        let app0 = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        #expect(Array(tagged[..<app0]) == Array(jpeg[..<app0]))
        #expect(tagged[app0] == 0xFF && tagged[app0 + 1] == 0xE1)
        #expect(Array(tagged[(app0 + 4)..<(app0 + 10)]) == Array("Exif".utf8) + [0, 0])
        #expect(tagged.suffix(jpeg.count - app0) == jpeg.suffix(jpeg.count - app0))
        let path = Self.temp("tagged.jpg")
        try Data(tagged).write(to: URL(fileURLWithPath: path))
        // exiftool 12.57 calls Apple's tag 17 MediaGroupUUID (later versions: ContentIdentifier).
        let read = try await ExifTool.check(["-s3", "-MakerNotes:MediaGroupUUID", "-MakerNotes:ContentIdentifier", path]).stdout
        #expect(read.trimmingCharacters(in: .whitespacesAndNewlines) == uuid)
    }

    @Test func makerNoteRefusesWhatIsNotAJPEG() {
        #expect(throws: (any Error).self) { try AppleMakerNote.insert(uuid: "X", into: [0x89, 0x50, 0x4E, 0x47]) }
        #expect(AppleMakerNote.contentIdentifier(in: [0xFF, 0xD8, 0xFF, 0xE1, 0x00]) == nil)
    }

    @Test func motionPhotoComposesParsesAndExiftoolAgrees() async throws {
        let jpeg = try await Self.ffmpegJPEG(), mp4 = try await Self.ffmpegMovie("mp4")
        let file = try MotionPhoto.compose(jpeg: jpeg, mp4: mp4, presentationUs: 733_333)
        #expect(Array(file.suffix(mp4.count)) == mp4, "the MP4 is the file's last bytes")
        let parsed = try #require(MotionPhoto.parse(file))
        #expect(parsed.problems.isEmpty, "\(parsed.problems)")
        #expect(parsed.videoLength == mp4.count && parsed.presentationUs == 733_333)
        let path = Self.temp("x.MP.jpg")
        try Data(file).write(to: URL(fileURLWithPath: path))
        let tags = try await ExifTool.check(["-s", "-XMP-GCamera:all", "-XMP-Container:all", path]).stdout
        #expect(tags.contains("MotionPhoto") && tags.contains(": 1"), "\(tags)")
        #expect(tags.contains("MotionPhotoPresentationTimestampUs: 733333"), "\(tags)")
        #expect(tags.contains("\(mp4.count)"), "the directory's Length: \(tags)")
    }

    /// An editor that strips the video but keeps the XMP: the file is flagged, not trusted.
    @Test func motionPhotoWithoutItsVideoIsFlagged() async throws {
        let jpeg = try await Self.ffmpegJPEG(), mp4 = try await Self.ffmpegMovie("mp4")
        let file = try MotionPhoto.compose(jpeg: jpeg, mp4: mp4, presentationUs: 0)
        let stripped = Array(file.dropLast(mp4.count))
        let parsed = try #require(MotionPhoto.parse(stripped))
        #expect(!parsed.problems.isEmpty)
        #expect(MotionPhoto.parse(jpeg) == nil, "a plain JPEG is no Motion Photo")
    }

    @Test func applePatchOnAMovieFfmpegWrote() async throws {
        let mov = try await Self.ffmpegMovie("mov")
        #expect(AppleLivePhoto.read(mov: mov).uuid == nil)
        let uuid = "0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0"
        let patched = try AppleLivePhoto.patch(mov: mov, uuid: uuid, stillTime: 0.5)
        let read = AppleLivePhoto.read(mov: patched)
        #expect(read.uuid == uuid && read.hasStillTrack)
        #expect(abs((read.stillTime ?? -1) - 0.5) < 0.04)
        let path = Self.temp("x.mov")
        try Data(patched).write(to: URL(fileURLWithPath: path))
        let tags = try await ExifTool.check(["-s3", "-Keys:ContentIdentifier", path]).stdout
        #expect(tags.trimmingCharacters(in: .whitespacesAndNewlines) == uuid)
        // ffprobe (FFmpeg's own reader) still opens it, with the metadata track beside the video.
        let probe = try await Self.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", path])
        #expect(probe.contains("video") && probe.contains("data"), "\(probe)")
    }
}
