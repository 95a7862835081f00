import FoundationEssentials
import GpickBase

/// PNG: IHDR's size, and the text, XMP and eXIf chunks that come before the image data (IDAT),
/// where the scan stops.
enum PNGReader {
    static let maxChunks = 512
    static let maxTextChunk = XMPScanner.maxBytes

    static func read(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: .png)
        let ihdr = ByteView(try src.read(at: 8, count: 16))
        guard ihdr.matches(4, "IHDR"), let w = ihdr.u32(8), let h = ihdr.u32(12) else {
            throw GpickError(.input, "not a PNG image: no IHDR chunk at the start")
        }
        meta.width = w
        meta.height = h
        var at = 8, chunks = 0
        var exif: ExifFacts?, comment: String?, description: String?
        while chunks < maxChunks, at <= src.size - 12 {
            chunks += 1
            let head = ByteView(try src.read(at: at, count: 8))
            guard let length = head.u32(0), let type = head.fourCC(4), length <= src.size - at - 12 else { break }
            if type == "IDAT" || type == "IEND" { break }
            let data = at + 8
            if ["tEXt", "iTXt", "eXIf"].contains(type), length <= maxTextChunk {
                let body = try src.read(at: data, count: length)
                switch type {
                case "eXIf":
                    let tiff = body.starts(with: JPEGReader.exifHeader) ? Array(body.dropFirst(6)) : body
                    if exif == nil { exif = try ExifReader.facts(source: MemoryBytes(tiff), base: 0) }
                default:
                    guard let (key, value) = text(type, body) else { break }
                    switch key {
                    case "Software": meta.software = meta.software ?? cleanText(value) ?? latin1Text(value)
                    case "Comment": comment = comment ?? decodeText(type, value)
                    case "Description": description = description ?? decodeText(type, value)
                    case "XML:com.adobe.xmp": meta.isPanorama = meta.isPanorama || XMPFacts(value).isPanorama
                    default: break
                    }
                }
            }
            at = data + length + 4  // the CRC
        }
        meta.userComment = comment ?? description
        if let exif { JPEGReader.apply(exif, to: &meta) }
        return meta
    }

    /// tEXt: keyword NUL Latin-1 text. iTXt: keyword NUL compression-flag method language NUL
    /// translated-keyword NUL UTF-8 text (compressed iTXt is skipped: no zlib here).
    static func text(_ type: String, _ body: [UInt8]) -> (String, ArraySlice<UInt8>)? {
        guard let nul = body.prefix(80).firstIndex(of: 0) else { return nil }
        let key = String(decoding: body[..<nul], as: UTF8.self)
        if type == "tEXt" { return (key, body[(nul + 1)...]) }
        guard nul + 3 <= body.count, body[nul + 1] == 0 else { return nil }
        var i = nul + 3
        for _ in 0..<2 {
            guard let end = body[i...].firstIndex(of: 0) else { return nil }
            i = end + 1
        }
        return (key, body[i...])
    }

    static func decodeText(_ type: String, _ value: ArraySlice<UInt8>) -> String? {
        type == "tEXt" ? latin1Text(value) : cleanText(value)
    }
}

/// GIF: the logical screen size.
enum GIFReader {
    static func read(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        let h = ByteView(try src.read(at: 0, count: 10))
        guard let w = h.u16le(6), let height = h.u16le(8) else { throw GpickError(.input, "truncated GIF image: no screen descriptor") }
        return MediaMetadata(container: .gif, width: w, height: height)
    }
}

/// WebP: the size from the first chunk (VP8, VP8L or VP8X), and EXIF/XMP chunks when VP8X
/// says there are some.
enum WebPReader {
    static func read(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: .webp)
        let h = ByteView(try src.read(at: 12, count: 18))
        guard let kind = h.fourCC(0) else { throw GpickError(.input, "truncated WebP image: no image chunk") }
        switch kind {
        case "VP8 ":
            // Frame tag (3 bytes), the start code 9D 01 2A, then 14-bit width and height.
            if h.u8(11) == 0x9D, h.u8(12) == 0x01, h.u8(13) == 0x2A,
               let w = h.u16le(14), let height = h.u16le(16) {
                meta.width = w & 0x3FFF
                meta.height = height & 0x3FFF
            }
        case "VP8L":
            if h.u8(8) == 0x2F, let bits = h.u32le(9) {
                meta.width = (bits & 0x3FFF) + 1
                meta.height = (bits >> 14 & 0x3FFF) + 1
            }
        case "VP8X":
            guard let flags = h.u8(8), let w = h.u24le(12), let height = h.u24le(15) else { break }
            meta.width = w + 1
            meta.height = height + 1
            if flags & 0x0C != 0 { try readChunks(src, into: &meta) }
        default:
            throw GpickError(.input, "not a WebP image: unknown first chunk")
        }
        return meta
    }

    /// Walks the RIFF chunks (headers only) for EXIF and XMP.
    static func readChunks(_ src: some ByteSource, into meta: inout MediaMetadata) throws(GpickError) {
        var at = 12, chunks = 0
        while chunks < 256, at <= src.size - 8 {
            chunks += 1
            let head = ByteView(try src.read(at: at, count: 8), littleEndian: true)
            guard let type = head.fourCC(0), let length = head.u32(4), length <= src.size - at - 8 else { break }
            if length <= XMPScanner.maxBytes, type == "EXIF" || type == "XMP " {
                let body = try src.read(at: at + 8, count: length)
                if type == "XMP " {
                    meta.isPanorama = XMPFacts(body).isPanorama
                } else {
                    let tiff = body.starts(with: JPEGReader.exifHeader) ? Array(body.dropFirst(6)) : body
                    if let e = try ExifReader.facts(source: MemoryBytes(tiff), base: 0) { JPEGReader.apply(e, to: &meta) }
                }
            }
            at += 8 + length + (length & 1)  // chunks are padded to even sizes
        }
    }
}

/// TIFF: IFD0's size and orientation, and the EXIF facts, read in place with small reads.
enum TIFFReader {
    static func read(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: .tiff)
        guard let e = try ExifReader.facts(source: src, base: 0) else {
            throw GpickError(.input, "unsupported TIFF image: only classic TIFF (not BigTIFF) is read")
        }
        meta.width = e.width
        meta.height = e.height
        JPEGReader.apply(e, to: &meta)
        // IFD offsets count from the file's start here, so IFD1's thumbnail range is absolute.
        if let o = e.thumbnailOffset, let n = e.thumbnailLength, o <= src.size, n <= src.size - o {
            meta.exifThumbnail = ByteRange(offset: o, length: n)
        }
        return meta
    }
}
