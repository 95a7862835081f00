import FoundationEssentials
import GpickBase

/// JPEG XL (ISO/IEC 18181): a bare codestream (`FF 0A`) or the box container (`JXL ` signature
/// box, then `ftyp`, `jxlc` or `jxlp` codestream boxes, and `Exif` and `xml ` boxes). The size and
/// orientation come from the codestream's SizeHeader and ImageMetadata, a few bit-packed bytes.
enum JXLReader {
    static let container: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    static func read(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: .jxl)
        let head = try src.read(at: 0, count: 16)
        var codestream: [UInt8]?
        if head.starts(with: [0xFF, 0x0A]) {
            codestream = try src.read(at: 0, count: 64)
        } else {
            let top = try Box.topLevel(src, until: [])
            for box in top {
                switch box.type {
                case "jxlc" where codestream == nil:
                    codestream = try src.read(at: box.payload.lowerBound, count: 64)
                case "jxlp" where codestream == nil:
                    codestream = try src.read(at: box.payload.lowerBound + 4, count: 64)  // after the part index
                case "Exif" where box.payload.count > 12 && box.payload.count <= HEIFReader.maxExif:
                    var bytes = try src.read(at: box.payload.lowerBound, count: box.payload.count)
                    guard let skip = ByteView(bytes).u32(0), skip <= bytes.count - 4 - 8 else { break }
                    bytes.removeFirst(4 + skip)
                    if let e = try ExifReader.facts(source: MemoryBytes(bytes), base: 0) {
                        let turned = meta.orientation
                        JPEGReader.apply(e, to: &meta)
                        meta.orientation = turned  // the codestream's orientation is the one decoders apply
                    }
                case "xml " where box.payload.count <= XMPScanner.maxBytes:
                    let xmp = XMPFacts(try src.read(at: box.payload.lowerBound, count: box.payload.count))
                    meta.isPanorama = meta.isPanorama || xmp.isPanorama
                default: break
                }
            }
        }
        guard let codestream, codestream.starts(with: [0xFF, 0x0A]), let header = header(codestream) else {
            throw GpickError(.input, "damaged JPEG XL image: no codestream header")
        }
        meta.width = header.width
        meta.height = header.height
        meta.orientation = header.orientation
        meta.images = [EmbeddedImage(role: .primary, width: header.width, height: header.height, mimeType: "image/jxl")]
        return meta
    }

    /// SizeHeader and the start of ImageMetadata (18181-1, A.2 and A.3), after the signature.
    static func header(_ bytes: [UInt8]) -> (width: Int, height: Int, orientation: Int)? {
        var r = BitReader(bytes: bytes, at: 16)
        func dimension(_ small: Bool) -> Int? {
            if small { return r.bits(5).map { ($0 + 1) * 8 } }
            guard let selector = r.bits(2), let v = r.bits([9, 13, 18, 30][selector]) else { return nil }
            return v + 1
        }
        guard let small = r.bit(), let height = dimension(small), let ratio = r.bits(3) else { return nil }
        let width: Int
        switch ratio {
        case 0: guard let w = dimension(small) else { return nil }; width = w
        case 1: width = height
        case 2: width = height * 12 / 10
        case 3: width = height * 4 / 3
        case 4: width = height * 3 / 2
        case 5: width = height * 16 / 9
        case 6: width = height * 5 / 4
        default: width = height * 2
        }
        // ImageMetadata: all_default, then extra_fields, then the orientation (3 bits, minus one).
        var orientation = 1
        if r.bit() == false, r.bit() == true, let o = r.bits(3) { orientation = o + 1 }
        return (width, height, orientation)
    }

    /// Bits least significant first, as JPEG XL packs them.
    struct BitReader {
        let bytes: [UInt8]
        var at: Int

        mutating func bit() -> Bool? { bits(1).map { $0 == 1 } }

        mutating func bits(_ n: Int) -> Int? {
            var v = 0
            for k in 0..<n {
                guard at / 8 < bytes.count else { return nil }
                v |= Int(bytes[at / 8] >> UInt8(at % 8) & 1) << k
                at += 1
            }
            return v
        }
    }
}
