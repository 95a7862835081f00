import FoundationEssentials
import GpickBase
import Glibc

/// The still of an Apple Live Photo carries its pairing UUID in an Apple MakerNote (Exif 0x927C),
/// tag 0x0011 (17) as ASCII. exiftool cannot create a MakerNote, so gpick writes the Exif APP1.
public enum AppleMakerNote {
    static let header: [UInt8] = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8)  // 14 bytes

    /// The MakerNote body: header, a one-entry IFD (tag 17, ASCII), the string. Offsets inside are
    /// relative to the MakerNote's start, as Apple's are.
    public static func makerNote(uuid: String) -> [UInt8] {
        let text = Array(uuid.utf8) + [0]
        var b = header
        b += be16(1)                                   // entry count
        let valueOffset = header.count + 2 + 12 + 4    // after the IFD and its next-IFD link
        b += be16(0x0011) + be16(2) + be32(UInt32(text.count)) + be32(UInt32(valueOffset))
        b += be32(0)                                   // no next IFD
        b += text
        return b
    }

    /// An Exif APP1 segment (big-endian TIFF) with IFD0 → ExifIFD → MakerNote.
    static func exifSegment(uuid: String) -> [UInt8] {
        let note = makerNote(uuid: uuid)
        var tiff: [UInt8] = Array("MM".utf8) + be16(42) + be32(8)
        // IFD0 at 8: one entry, ExifIFDPointer.
        let exifIFDOffset = 8 + 2 + 12 + 4
        tiff += be16(1) + be16(0x8769) + be16(4) + be32(1) + be32(UInt32(exifIFDOffset)) + be32(0)
        // ExifIFD: one entry, MakerNote (UNDEFINED), data right after this IFD.
        let noteOffset = exifIFDOffset + 2 + 12 + 4
        tiff += be16(1) + be16(0x927C) + be16(7) + be32(UInt32(note.count)) + be32(UInt32(noteOffset)) + be32(0)
        tiff += note
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// The JPEG with the Exif APP1 after SOI (and after APP0 when jpegenc wrote one).
    public static func insert(uuid: String, into jpeg: [UInt8]) throws(GpickError) -> [UInt8] {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw GpickError(.runtime, "the still is not a JPEG") }
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        return Array(jpeg[..<at]) + exifSegment(uuid: uuid) + Array(jpeg[at...])
    }

    /// Reads tag 17 back from a JPEG's Apple MakerNote (for `gpick inspect`).
    public static func contentIdentifier(in jpeg: [UInt8]) -> String? {
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
            let len = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            guard len >= 2, i + 2 + len <= jpeg.count else { return nil }
            if jpeg[i + 1] == 0xE1, len > 8, Array(jpeg[(i + 4)..<(i + 10)]) == Array("Exif".utf8) + [0, 0] {
                if let id = fromTIFF(Array(jpeg[(i + 10)..<(i + 2 + len)])) { return id }
            }
            i += 2 + len
        }
        return nil
    }

    private static func fromTIFF(_ t: [UInt8]) -> String? {
        guard t.count > 8, t[0] == 0x4D, t[1] == 0x4D else { return nil }  // big-endian only (ours)
        func u16(_ o: Int) -> Int { o + 2 <= t.count ? Int(t[o]) << 8 | Int(t[o + 1]) : 0 }
        func u32(_ o: Int) -> Int { o + 4 <= t.count ? Int(t[o]) << 24 | Int(t[o + 1]) << 16 | Int(t[o + 2]) << 8 | Int(t[o + 3]) : 0 }
        func find(_ ifd: Int, _ tag: Int) -> (count: Int, offset: Int)? {
            let n = u16(ifd)
            for k in 0..<n {
                let e = ifd + 2 + 12 * k
                if u16(e) == tag { return (u32(e + 4), u32(e + 8)) }
            }
            return nil
        }
        guard let exif = find(u32(4), 0x8769), let note = find(exif.offset, 0x927C) else { return nil }
        let m = note.offset
        guard m + header.count <= t.count, Array(t[m..<(m + 9)]) == Array("Apple iOS".utf8) else { return nil }
        let n = u16(m + header.count)
        for k in 0..<n {
            let e = m + header.count + 2 + 12 * k
            if u16(e) == 0x0011 {
                let count = u32(e + 4), off = m + u32(e + 8)
                guard off + count <= t.count, count > 0 else { return nil }
                return String(decoding: t[off..<(off + count - 1)], as: UTF8.self)
            }
        }
        return nil
    }
}

func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }
