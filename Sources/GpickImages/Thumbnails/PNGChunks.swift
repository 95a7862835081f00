/// PNG's chunk layer (signature, then length, type, data, CRC-32 per chunk): enough to add text
/// chunks to what libvips wrote and to read the keys of a thumbnail another program wrote. Bytes
/// only; pixels stay libvips' business.
enum PNGChunks {
    static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    struct Chunk {
        var type: String
        var data: ArraySlice<UInt8>
    }

    /// Every chunk, or nil unless it is a whole PNG: the signature, IHDR first, the CRC of every
    /// chunk but the pixel data right (whoever shows the thumbnail checks those), and IEND last
    /// (a file cut short by a crashed writer is not a thumbnail).
    static func parse(_ bytes: [UInt8]) -> [Chunk]? {
        guard bytes.count >= 8 + 12, Array(bytes[0..<8]) == signature else { return nil }
        var chunks: [Chunk] = []
        var at = 8
        while at + 12 <= bytes.count {
            let length = Int(be32(bytes, at))
            guard length <= bytes.count - at - 12 else { return nil }
            let typeBytes = bytes[(at + 4)..<(at + 8)]
            let data = bytes[(at + 8)..<(at + 8 + length)]
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard type == "IDAT" || be32(bytes, at + 8 + length) == crc32(typeBytes, data) else { return nil }
            chunks.append(Chunk(type: type, data: data))
            at += 12 + length
            if type == "IEND" { break }
        }
        guard chunks.first?.type == "IHDR", chunks.last?.type == "IEND" else { return nil }
        return chunks
    }

    /// Width and height from IHDR.
    static func size(_ chunks: [Chunk]) -> (width: Int, height: Int)? {
        guard let ihdr = chunks.first, ihdr.type == "IHDR", ihdr.data.count >= 8 else { return nil }
        let d = Array(ihdr.data)
        return (Int(be32(d, 0)), Int(be32(d, 4)))
    }

    /// The PNG with text chunks right after IHDR (where readers that stop at the first IDAT see
    /// them). ASCII values go in tEXt; anything else in an uncompressed iTXt (UTF-8).
    static func inserting(text: [(key: String, value: String)], into png: [UInt8]) -> [UInt8]? {
        guard png.count >= 8 + 12 + 13, Array(png[0..<8]) == signature,
              String(decoding: png[12..<16], as: UTF8.self) == "IHDR" else { return nil }
        let afterIHDR = 8 + 12 + Int(be32(png, 8))
        guard afterIHDR <= png.count else { return nil }
        var out = Array(png[0..<afterIHDR])
        for (key, value) in text {
            if value.utf8.allSatisfy({ $0 < 0x80 }) {
                out += chunk("tEXt", Array(key.utf8) + [0] + Array(value.utf8))
            } else {
                out += chunk("iTXt", Array(key.utf8) + [0, 0, 0, 0, 0] + Array(value.utf8))
            }
        }
        out += png[afterIHDR...]
        return out
    }

    /// The text keys: tEXt (Latin-1) and uncompressed iTXt (UTF-8). `compressed` says whether
    /// a zTXt or compressed iTXt was left unread.
    static func text(in chunks: [Chunk]) -> (values: [String: String], compressed: Bool) {
        var values: [String: String] = [:]
        var compressed = false
        for c in chunks {
            switch c.type {
            case "tEXt":
                guard let nul = c.data.firstIndex(of: 0) else { continue }
                values[latin1(c.data[c.data.startIndex..<nul])] = latin1(c.data[(nul + 1)...])
            case "iTXt":
                guard let nul = c.data.firstIndex(of: 0), nul + 2 < c.data.endIndex else { continue }
                if c.data[nul + 1] != 0 { compressed = true; continue }
                // language tag, then translated keyword, each NUL-terminated.
                guard let langEnd = c.data[(nul + 3)...].firstIndex(of: 0),
                      let transEnd = c.data[(langEnd + 1)...].firstIndex(of: 0) else { continue }
                values[latin1(c.data[c.data.startIndex..<nul])] = String(decoding: c.data[(transEnd + 1)...], as: UTF8.self)
            case "zTXt":
                compressed = true
            default:
                continue
            }
        }
        return (values, compressed)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32Bytes(UInt32(data.count)) + typeBytes + data + be32Bytes(crc32(typeBytes[...], data[...]))
    }

    private static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func be32Bytes(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// CRC-32 (ISO 3309, as PNG specifies) over the chunk type then its data.
    static func crc32(_ type: ArraySlice<UInt8>, _ data: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in type { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        for byte in data { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
