import Foundation

/// Camera RAW files as TIFF structures, in the layouts cameras write (DNG: IFD0 and SubIFDs; CR2:
/// chained IFDs), around real JPEG bytes: the tests of the RAW reader and of the library's
/// RAW+JPEG pairs build them here rather than ship camera files. Little-endian: IFDs of (tag,
/// value), laid out in order, each IFD's out-of-line values after it.
public enum TIFFBuilder {
    public enum Value { case short(Int), long(Int), ascii(String), bytes([UInt8]), longs([Int]) }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }

    /// `ifds[0]` is IFD0; a `.longs` value of tag 0x014A points at the IFDs it names by index,
    /// 0x0201 at `blob`, and 0x0111/0x0117 (one strip) at `blob` too when asked.
    /// `chain`: each IFD links to the next (CR2's IFD0 → IFD3); else only SubIFDs reach them.
    public static func build(prefix: [UInt8] = Array("II".utf8) + [42, 0], extra: [UInt8] = [], chain: Bool = false,
                             ifds: [[(Int, Value)]], blob: [UInt8]) -> [UInt8] {
        // Sizes first: each IFD is 2 + 12n + 4 bytes, then its out-of-line data.
        func outOfLine(_ v: Value) -> [UInt8]? {
            switch v {
            case .ascii(let s): let b = Array(s.utf8) + [0]; return b.count > 4 ? b : nil
            case .bytes(let b): return b.count > 4 ? b : nil
            case .longs(let l): return l.count > 1 ? l.flatMap(le32) : nil
            default: return nil
            }
        }
        var starts: [Int] = []
        var at = 8 + extra.count
        for ifd in ifds {
            starts.append(at)
            at += 2 + 12 * ifd.count + 4 + ifd.compactMap { outOfLine($0.1) }.reduce(0) { $0 + $1.count + ($1.count & 1) }
        }
        let blobAt = at
        var out = prefix + le32(8 + extra.count) + extra
        for (k, ifd) in ifds.enumerated() {
            var data: [UInt8] = []
            let dataStart = starts[k] + 2 + 12 * ifd.count + 4
            out += le16(ifd.count)
            for (tag, value) in ifd {
                var entry = le16(tag)
                func inline(_ type: Int, _ count: Int, _ bytes: [UInt8]) {
                    entry += le16(type) + le32(count) + (bytes + [0, 0, 0, 0]).prefix(4)
                }
                func placed(_ type: Int, _ count: Int, _ bytes: [UInt8]) {
                    entry += le16(type) + le32(count) + le32(dataStart + data.count)
                    data += bytes + (bytes.count & 1 == 1 ? [0] : [])
                }
                switch value {
                case .short(let v): inline(3, 1, le16(v))
                case .long(let v):
                    // Offsets to the blob are given as -1.
                    inline(4, 1, le32(v == -1 ? blobAt : v))
                case .ascii(let s):
                    let b = Array(s.utf8) + [0]
                    if b.count > 4 { placed(2, b.count, b) } else { inline(2, b.count, b) }
                case .bytes(let b): if b.count > 4 { placed(7, b.count, b) } else { inline(1, b.count, b) }
                case .longs(let l):
                    let offsets = l.map { starts[$0] }
                    if offsets.count > 1 { placed(4, offsets.count, offsets.flatMap(le32)) } else { inline(4, 1, le32(offsets[0])) }
                }
                out += entry
            }
            out += le32(chain && k + 1 < ifds.count ? starts[k + 1] : 0) + data
        }
        return out + blob
    }
}


extension TIFFBuilder {
    /// A DNG as phones' and converters' are: the camera and a JPEG preview in IFD0, the CFA sensor
    /// data (4000×3000) in a SubIFD, turned a quarter clockwise (orientation 6).
    public static func dng(preview jpeg: [UInt8], make: String = "Testcam", model: String = "T-1 Pro") -> [UInt8] {
        build(ifds: [
            [(0x00FE, .long(1)), (0x0100, .long(160)), (0x0101, .long(120)), (0x010F, .ascii(make)), (0x0110, .ascii(model)),
             (0x0112, .short(6)), (0x014A, .longs([1])), (0x0201, .long(-1)), (0x0202, .long(jpeg.count)), (0xC612, .bytes([1, 4, 0, 0]))],
            [(0x00FE, .long(0)), (0x0100, .long(4000)), (0x0101, .long(3000)), (0x0103, .short(7)), (0x0106, .short(32803))],
        ], blob: jpeg)
    }
}
