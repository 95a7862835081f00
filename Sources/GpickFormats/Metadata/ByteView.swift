import FoundationEssentials
import GpickBase
import Glibc

/// Bounds-checked reads of integers and text from bytes that came from a file: every read past
/// the end is nil, never a trap, because every file is assumed hostile.
struct ByteView {
    let bytes: [UInt8]
    /// TIFF data is either byte order; everything else here is big-endian unless a call says so.
    var littleEndian = false

    init(_ bytes: [UInt8], littleEndian: Bool = false) {
        self.bytes = bytes
        self.littleEndian = littleEndian
    }

    var count: Int { bytes.count }

    func has(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    func u8(_ o: Int) -> Int? { has(o, 1) ? Int(bytes[o]) : nil }

    func u16(_ o: Int) -> Int? {
        guard has(o, 2) else { return nil }
        let a = Int(bytes[o]), b = Int(bytes[o + 1])
        return littleEndian ? b << 8 | a : a << 8 | b
    }

    func u32(_ o: Int) -> Int? {
        guard has(o, 4) else { return nil }
        let a = Int(bytes[o]), b = Int(bytes[o + 1]), c = Int(bytes[o + 2]), d = Int(bytes[o + 3])
        return littleEndian ? d << 24 | c << 16 | b << 8 | a : a << 24 | b << 16 | c << 8 | d
    }

    func u24le(_ o: Int) -> Int? {
        guard has(o, 3) else { return nil }
        return Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16
    }

    func u32le(_ o: Int) -> Int? { ByteView(bytes, littleEndian: true).u32(o) }
    func u16le(_ o: Int) -> Int? { ByteView(bytes, littleEndian: true).u16(o) }

    /// A big-endian 64-bit value; nil past the end and above Int.max (no real file has it).
    func u64(_ o: Int) -> Int? {
        guard let hi = ByteView(bytes).u32(o), let lo = ByteView(bytes).u32(o + 4), hi < 0x8000_0000 else { return nil }
        return hi << 32 | lo
    }

    /// Signed 32-bit (16.16 matrix entries).
    func s32(_ o: Int) -> Int? { u32(o).map { Int(Int32(truncatingIfNeeded: $0)) } }

    func slice(_ o: Int, _ length: Int) -> ArraySlice<UInt8>? { has(o, length) ? bytes[o..<(o + length)] : nil }

    /// Four bytes as text, for box, chunk and marker types.
    func fourCC(_ o: Int) -> String? { slice(o, 4).map { String(decoding: $0, as: UTF8.self) } }

    func matches(_ o: Int, _ text: String) -> Bool {
        let t = Array(text.utf8)
        guard let s = slice(o, t.count) else { return false }
        return s.elementsEqual(t)
    }
}

extension Array where Element == UInt8 {
    /// The first index of `needle` at or after `from`, nil when absent (memchr and memcmp: this runs
    /// over XMP packets and, for motion photos without a directory, over megabytes).
    func firstIndex(of needle: [UInt8], from: Int = 0) -> Int? {
        self[...].firstIndex(of: needle, from: from)
    }
}

extension ArraySlice where Element == UInt8 {
    func firstIndex(of needle: [UInt8], from: Int? = nil) -> Int? {
        let start = Swift.max(from ?? startIndex, startIndex)
        guard let first = needle.first, start <= endIndex - needle.count else { return nil }
        let found: Int? = self[start...].withUnsafeBytes { (hay: UnsafeRawBufferPointer) -> Int? in
            needle.withUnsafeBytes { (n: UnsafeRawBufferPointer) -> Int? in
                findBytes(hay, n, first: first)
            }
        }
        return found.map { start + $0 }
    }
}

/// memchr for the first byte, memcmp for the rest.
private func findBytes(_ hay: UnsafeRawBufferPointer, _ needle: UnsafeRawBufferPointer, first: UInt8) -> Int? {
    guard let h = hay.baseAddress, let n = needle.baseAddress else { return nil }
    let last = hay.count - needle.count
    var i = 0
    while i <= last {
        guard let hit = memchr(h + i, Int32(first), last - i + 1) else { return nil }
        let at = h.distance(to: UnsafeRawPointer(hit))
        if memcmp(hit, n, needle.count) == 0 { return at }
        i = at + 1
    }
    return nil
}

/// Text from a file: NULs end it (C strings), surrounding spaces go, nothing is left → nil.
func cleanText<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
    let upToNul = bytes.prefix { $0 != 0 }
    let text = String(decoding: upToNul, as: UTF8.self).trimmed()
    return text.isEmpty ? nil : text
}

/// Latin-1 text (PNG tEXt): each byte is its own code point.
func latin1Text<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
    var s = ""
    for b in bytes.prefix(while: { $0 != 0 }) { s.unicodeScalars.append(Unicode.Scalar(b)) }
    let t = s.trimmed()
    return t.isEmpty ? nil : t
}
