import Foundation
import GpickTestSupport
import Testing
@testable import GpickFormats

/// The EXIF block gpick writes into its stills (libexif), read back by exiftool and by gpick's
/// own reader, in JPEG (APP1) and PNG (eXIf).
@Suite struct StillExifTests {
    /// 2023-11-14 22:13:20.25 UTC, shown at UTC+01:00.
    static let exif = StillExif(camera: CameraIdentity(make: "Acme", model: "Webcam HD 3000"), software: "gpick 9.9",
                                takenAt: 1_700_000_000.25, utcOffset: 3600, width: 640, height: 480)

    func exiftool(_ path: String) async throws -> [String: Any] {
        let r = try await ExifTool.run(["-j", "-a", "-G1", "-all", "-validate", path])
        return try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.first)
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = TestEnvironment.tempDir() + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func fieldsAreFormattedAtTheOffset() {
        let (date, sub, offset) = Self.exif.dateFields()
        #expect(date == "2023:11:14 23:13:20" && sub == "250" && offset == "+01:00")
        var west = Self.exif
        west.utcOffset = -(5 * 3600 + 30 * 60)
        #expect(west.dateFields().date == "2023:11:14 16:43:20" && west.dateFields().offset == "-05:30")
    }

    @Test func jpegIsReadByExiftoolAndByGpick() async throws {
        let f = try await MediaFixtures.get()
        let path = try write(try Self.exif.insert(into: try f.bytes("a.jpg")), "x.jpg")
        let t = try await exiftool(path)
        #expect(t["ExifIFD:DateTimeOriginal"] as? String == "2023:11:14 23:13:20")
        #expect("\(t["ExifIFD:SubSecTimeOriginal"] ?? "")" == "250")
        #expect(t["ExifIFD:OffsetTimeOriginal"] as? String == "+01:00")
        #expect(t["IFD0:Make"] as? String == "Acme" && t["IFD0:Model"] as? String == "Webcam HD 3000")
        #expect(t["IFD0:Software"] as? String == "gpick 9.9")
        #expect(t["IFD0:Orientation"] as? String == "Horizontal (normal)")
        #expect("\(t["ExifIFD:ExifImageWidth"] ?? "")" == "640" && "\(t["ExifIFD:ExifImageHeight"] ?? "")" == "480")
        #expect(t["ExifTool:Validate"] as? String == "OK", "\(t)")
        let m = try MetadataReader.read(path: path)
        #expect(m.takenAt == TakenDate(year: 2023, month: 11, day: 14, hour: 23, minute: 13, second: 20, offsetSeconds: 3600, subsecond: "250"))
        #expect(m.make == "Acme" && m.model == "Webcam HD 3000" && m.orientation == 1 && m.width == 640)
    }

    /// An EXIF block already there (exiftool's) is replaced, not doubled.
    @Test func existingExifIsReplaced() async throws {
        let f = try await MediaFixtures.get()
        let stamped = try Self.exif.insert(into: try f.bytes("exif.jpg"))
        let app1Exif = (0..<(stamped.count - 10)).filter { i in
            stamped[i] == 0xFF && stamped[i + 1] == 0xE1 && Array(stamped[(i + 4)..<(i + 10)]) == Array("Exif".utf8) + [0, 0]
        }
        #expect(app1Exif.count == 1)
        let path = try write(stamped, "y.jpg")
        #expect(try MetadataReader.read(path: path).make == "Acme")
        #expect((try await exiftool(path))["ExifIFD:DateTimeOriginal"] as? String == "2023:11:14 23:13:20")
    }

    /// The PNG's eXIf chunk: every chunk's CRC checked by zlib (Python's), and exiftool reads it.
    @Test func pngChunkIsValid() async throws {
        let f = try await MediaFixtures.get()
        let path = try write(try Self.exif.insertPNG(try f.bytes("p.png")), "z.png")
        let check = """
            import struct, sys, zlib
            d = open(sys.argv[1], 'rb').read(); i = 8; names = []
            while i < len(d):
                n, = struct.unpack('>I', d[i:i+4]); t = d[i+4:i+8]
                crc, = struct.unpack('>I', d[i+8+n:i+12+n])
                assert zlib.crc32(t + d[i+8:i+8+n]) & 0xffffffff == crc, t
                names.append(t.decode()); i += 12 + n
            print(' '.join(names))
            """
        let r = try await Subprocess.run("/usr/bin/python3", ["-c", check, path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("IHDR eXIf "), "\(r.stdout)")
        let t = try await exiftool(path)
        #expect(t["ExifIFD:DateTimeOriginal"] as? String == "2023:11:14 23:13:20" && t["IFD0:Make"] as? String == "Acme", "\(t)")
        #expect(try MetadataReader.read(path: path).model == "Webcam HD 3000")
    }

    /// A Live Photo's still keeps Apple's MakerNote beside the rest.
    @Test func makerNoteRidesAlong() async throws {
        let f = try await MediaFixtures.get()
        var exif = Self.exif
        exif.makerNote = AppleMakerNote.makerNote(uuid: MediaFixtures.appleUUID)
        let stamped = try exif.insert(into: try f.bytes("a.jpg"))
        #expect(AppleMakerNote.contentIdentifier(in: stamped) == MediaFixtures.appleUUID)
        let path = try write(stamped, "apple.jpg")
        #expect(try MetadataReader.read(path: path).contentIdentifier == MediaFixtures.appleUUID)
        let t = try await exiftool(path)
        #expect((t["Apple:MediaGroupUUID"] ?? t["Apple:ContentIdentifier"]) as? String == MediaFixtures.appleUUID, "\(t)")
        #expect(t["IFD0:Make"] as? String == "Acme")
    }
}

extension StillExif {
    func insertPNG(_ png: [UInt8]) throws -> [UInt8] { try insert(intoPNG: png) }
}
