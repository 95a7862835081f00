import FoundationEssentials
import GpickBase
import Glibc

/// Just enough QuickTime atom handling to read a MOV's moov and write atoms.
enum QTAtom {
    struct Node {
        let type: String
        let offset: Int    // of the atom header within the buffer it was read from
        let size: Int
        let headerSize: Int
        var payload: Range<Int> { (offset + headerSize)..<(offset + size) }
    }

    /// The atoms in `range` of `data` (one level).
    static func children(_ data: [UInt8], in range: Range<Int>) -> [Node] {
        var out: [Node] = [], i = range.lowerBound
        while i + 8 <= range.upperBound {
            var size = Int(u32(data, i)), header = 8
            let type = String(decoding: data[(i + 4)..<(i + 8)], as: UTF8.self)
            if size == 1, i + 16 <= range.upperBound { size = Int(u64(data, i + 8)); header = 16 }
            if size == 0 { size = range.upperBound - i }
            guard size >= header, i + size <= range.upperBound else { break }
            out.append(Node(type: type, offset: i, size: size, headerSize: header))
            i += size
        }
        return out
    }

    static func atom(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(payload.count + 8)) + Array(type.utf8) + payload
    }

    static func fullAtom(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        atom(type, [version, UInt8((flags >> 16) & 0xFF), UInt8((flags >> 8) & 0xFF), UInt8(flags & 0xFF)] + payload)
    }

    static func u32(_ d: [UInt8], _ o: Int) -> UInt32 {
        UInt32(d[o]) << 24 | UInt32(d[o + 1]) << 16 | UInt32(d[o + 2]) << 8 | UInt32(d[o + 3])
    }
    static func u64(_ d: [UInt8], _ o: Int) -> UInt64 { UInt64(u32(d, o)) << 32 | UInt64(u32(d, o + 4)) }
}
