import CZlib
import GpickBase
import GpickFormats

/// A PNG's chunk checksums, checked before libvips decodes it. libvips takes a CRC mismatch for
/// a warning, and notices damaged pixel data (zlib's checksum at the stream's end) only if its
/// read gets there before the pipeline ends: the same damaged file was thumbnailed in 9 runs of
/// 40 and refused in the others. libpng, the reference decoder, refuses it; so does gpick, always.
enum PNGChecksums {
    static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    /// Throws an input error, in the user's terms, for a critical chunk whose CRC does not match,
    /// a chunk that runs past the end, or a file that ends before IEND. Not a PNG: nothing read
    /// past its first 8 bytes.
    static func verify(fd: Int32, name: String) throws(GpickError) {
        try verify(FileBytes(fd: fd, path: name), name: name)
    }

    static func verify(data: [UInt8], name: String) throws(GpickError) {
        try verify(MemoryBytes(data), name: name)
    }

    static func verify(_ file: some ByteSource, name: String) throws(GpickError) {
        guard try file.read(at: 0, count: 8) == signature else { return }
        func damaged(_ why: String) -> GpickError {
            GpickError(.input, "cannot read \(name): the file is truncated or damaged (\(why))")
        }
        var offset = 8
        while offset + 12 <= file.size {
            let head = try file.read(at: offset, count: 8)
            let length = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            let letters = head[4..<8].allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7a }
            let type = letters ? String(decoding: head[4..<8], as: UTF8.self) : "unnamed"
            guard length <= file.size - offset - 12 else { throw damaged("its \(type) chunk runs past the end") }
            var crc = head[4..<8].withUnsafeBufferPointer { crc32(0, $0.baseAddress, 4) }
            var at = offset + 8
            while at < offset + 8 + length {
                let piece = try file.read(at: at, count: min(1 << 20, offset + 8 + length - at))
                guard !piece.isEmpty else { throw damaged("it changed while being read") }
                crc = piece.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, UInt32($0.count)) }
                at += piece.count
            }
            let stored = try file.read(at: at, count: 4)
            let expected = UInt(stored[0]) << 24 | UInt(stored[1]) << 16 | UInt(stored[2]) << 8 | UInt(stored[3])
            // As libpng: a critical chunk (upper-case first letter) must match; an ancillary
            // one (a text, a colour profile) that does not is only ignored by the decoder.
            let critical = head[4] & 0x20 == 0
            guard UInt(crc) == expected || !critical else { throw damaged("its \(type) chunk's checksum does not match") }
            if type == "IEND" { return }
            offset = at + 4
        }
        throw damaged("it ends before its IEND chunk")
    }
}
