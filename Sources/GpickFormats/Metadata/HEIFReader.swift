import FoundationEssentials
import GpickBase

/// HEIF and AVIF stills: the primary item's `ispe` (size) and `irot` (rotation) from
/// meta/iprp, and its Exif item (dates, Apple's content identifier) located through iinf/iloc.
enum HEIFReader {
    static let maxMeta = 4 * 1024 * 1024
    static let maxExif = 256 * 1024

    static func read(_ src: some ByteSource, container: MediaMetadata.Container, top: [Box]) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: container)
        let name = container == .avif ? "AVIF" : "HEIF"
        guard let metaBox = top.first(where: { $0.type == "meta" }) else { throw GpickError(.input, "truncated \(name) image: no meta box") }
        guard let v = try Box.load(metaBox, from: src, limit: maxMeta) else { return meta }
        let kids = Box.children(v, in: span(metaBox.headerSize + 4, v.count))  // meta is a full box here
        let primary = kids.first { $0.type == "pitm" }.flatMap { p in
            v.u8(p.payload.lowerBound) == 0 ? v.u16(p.payload.lowerBound + 4) : v.u32(p.payload.lowerBound + 4)
        }
        var rotation: Int?
        if let iprp = kids.first(where: { $0.type == "iprp" }) {
            let props = Box.children(v, in: iprp.payload)
            if let ipco = props.first(where: { $0.type == "ipco" }) {
                let list = Box.children(v, in: ipco.payload)
                var chosen: [Box] = []
                if let primary, let ipma = props.first(where: { $0.type == "ipma" }) {
                    chosen = associations(v, ipma, item: primary).compactMap { $0 >= 1 && $0 <= list.count ? list[$0 - 1] : nil }
                }
                // Without a usable ipma, the largest ispe is the image (the others are thumbnails and tiles).
                let sizes = (chosen.isEmpty ? list : chosen).filter { $0.type == "ispe" }.compactMap { b -> (Int, Int)? in
                    guard let w = v.u32(b.payload.lowerBound + 4), let h = v.u32(b.payload.lowerBound + 8) else { return nil }
                    return (w, h)
                }
                if let best = sizes.max(by: { Double($0.0) * Double($0.1) < Double($1.0) * Double($1.1) }) {
                    meta.width = best.0
                    meta.height = best.1
                }
                if let irot = chosen.first(where: { $0.type == "irot" }), let angle = v.u8(irot.payload.lowerBound) {
                    rotation = [1, 8, 3, 6][angle & 3]  // counter-clockwise quarter turns
                }
            }
        }
        if let exif = try exifItem(src, v, kids, metaBox: metaBox),
           let e = try ExifReader.facts(source: MemoryBytes(exif), base: 0) {
            JPEGReader.apply(e, to: &meta)
        }
        // HEIF decoders apply irot and ignore EXIF's orientation: reporting EXIF's would turn twice.
        meta.orientation = rotation
        return meta
    }

    /// The property indices (1-based) ipma associates with `item`.
    static func associations(_ v: ByteView, _ ipma: Box, item: Int) -> [Int] {
        let p = ipma.payload.lowerBound
        guard let version = v.u8(p), let flags = v.u8(p + 3), let count = v.u32(p + 4) else { return [] }
        let wide = flags & 1 == 1
        var i = p + 8
        for _ in 0..<min(count, 65_536) {
            guard let id = version < 1 ? v.u16(i) : v.u32(i) else { return [] }
            i += version < 1 ? 2 : 4
            guard let n = v.u8(i) else { return [] }
            i += 1
            var out: [Int] = []
            for _ in 0..<n {
                guard let a = wide ? v.u16(i) : v.u8(i) else { return [] }
                out.append(wide ? a & 0x7FFF : a & 0x7F)
                i += wide ? 2 : 1
            }
            if id == item { return out }
            if i >= ipma.payload.upperBound { break }
        }
        return []
    }

    /// The first Exif item's TIFF bytes (after its 4-byte header offset).
    static func exifItem(_ src: some ByteSource, _ v: ByteView, _ kids: [Box], metaBox: Box) throws(GpickError) -> [UInt8]? {
        guard let iinf = kids.first(where: { $0.type == "iinf" }), let iloc = kids.first(where: { $0.type == "iloc" }) else { return nil }
        let ip = iinf.payload.lowerBound
        let entriesStart = ip + (v.u8(ip) == 0 ? 6 : 8)
        var exifID: Int?
        for infe in Box.children(v, in: span(entriesStart, iinf.payload.upperBound)) where infe.type == "infe" {
            let q = infe.payload.lowerBound
            guard let version = v.u8(q), version >= 2 else { continue }
            let typeAt = q + 4 + (version == 2 ? 2 : 4) + 2
            if v.fourCC(typeAt) == "Exif" { exifID = version == 2 ? v.u16(q + 4) : v.u32(q + 4); break }
        }
        guard let exifID, let (method, offset, length) = location(v, iloc, item: exifID) else { return nil }
        var bytes: [UInt8]
        switch method {
        case 0:  // in the file
            guard offset >= 0, length >= 8, length <= maxExif, offset <= src.size - length else { return nil }
            bytes = try src.read(at: offset, count: length)
        case 1:  // in the meta box's idat
            guard let idat = kids.first(where: { $0.type == "idat" }), offset >= 0, length >= 8,
                  let s = v.slice(idat.payload.lowerBound + offset, min(length, maxExif)) else { return nil }
            bytes = Array(s)
        default: return nil
        }
        guard let skip = ByteView(bytes).u32(0), skip <= bytes.count - 4 - 8 else { return nil }
        bytes.removeFirst(4 + skip)
        return bytes
    }

    /// iloc's first extent of `item`: construction method, offset, length.
    static func location(_ v: ByteView, _ iloc: Box, item: Int) -> (Int, Int, Int)? {
        let p = iloc.payload.lowerBound
        guard let version = v.u8(p), version <= 2, let s1 = v.u8(p + 4), let s2 = v.u8(p + 5) else { return nil }
        let offsetSize = s1 >> 4, lengthSize = s1 & 15, baseSize = s2 >> 4, indexSize = version >= 1 ? s2 & 15 : 0
        // Every extent must take bytes, so a hostile count cannot spin in place.
        guard offsetSize + lengthSize > 0 else { return nil }
        func sized(_ at: Int, _ n: Int) -> Int? {
            switch n {
            case 0: 0
            case 4: v.u32(at)
            case 8: v.u64(at)
            default: nil
            }
        }
        var i = p + 6
        guard let count = version < 2 ? v.u16(i) : v.u32(i) else { return nil }
        i += version < 2 ? 2 : 4
        for _ in 0..<min(count, 65_536) {
            guard let id = version < 2 ? v.u16(i) : v.u32(i) else { return nil }
            i += version < 2 ? 2 : 4
            var method = 0
            if version >= 1 {
                guard let m = v.u16(i) else { return nil }
                method = m & 15
                i += 2
            }
            i += 2  // data_reference_index
            guard let base = sized(i, baseSize) else { return nil }
            i += baseSize
            guard let extents = v.u16(i) else { return nil }
            i += 2
            var first: (Int, Int)?
            for _ in 0..<extents {
                i += indexSize
                guard let o = sized(i, offsetSize), let l = sized(i + offsetSize, lengthSize) else { return nil }
                i += offsetSize + lengthSize
                if first == nil { first = (o, l) }
            }
            if id == item, let (o, l) = first, base < 1 << 48, o < 1 << 48 { return (method, base + o, l) }
            if i >= iloc.payload.upperBound { break }
        }
        return nil
    }
}
