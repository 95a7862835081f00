import FoundationEssentials
import GpickBase

/// Camera RAW files: the sensor image's size, the camera's EXIF, and the largest JPEG preview the
/// camera stored beside the sensor data, which is what digiKam and tumbler show for RAW files
/// (gpick decodes no sensor data). Most RAW formats are TIFF structures (DNG, CR2, NEF, ARW, PEF,
/// and with their own magic ORF and RW2); RAF and CR3 have their own containers.
enum RawReader {
    /// A still's bytes inside another source (an embedded JPEG).
    struct Slice: ByteSource {
        let base: any ByteSource
        let range: ByteRange
        var size: Int { range.length }
        func read(at offset: Int, count: Int) throws(GpickError) -> [UInt8] {
            guard offset >= 0, count > 0, offset < range.length else { return [] }
            return try base.read(at: range.offset + offset, count: min(count, range.length - offset))
        }
    }

    /// TIFF-structured RAW, or nil when the TIFF holds no sensor data (then it is a plain TIFF).
    static func readTIFF(_ src: some ByteSource) throws(GpickError) -> MediaMetadata? {
        guard let r = try ExifReader(source: src, base: 0, rawMagic: true) else { return nil }
        let ifds = try IFDWalk(r).ifds
        let isDNG = ifds.contains { $0.dngVersion }
        let sensor = ifds.filter(\.holdsSensorData).max { $0.pixels < $1.pixels }
        guard isDNG || sensor != nil || r.magic != 42 else { return nil }
        var meta = MediaMetadata(container: .raw, mimeType: mimeType(r.magic, isDNG: isDNG, src))
        let facts = try r.facts()
        JPEGReader.apply(facts, to: &meta)
        meta.width = sensor?.width ?? facts.pixelWidth
        meta.height = sensor?.height ?? facts.pixelHeight
        var previews: [EmbeddedImage] = []
        for ifd in ifds {
            for range in ifd.jpegCandidates where range.offset <= src.size - range.length {
                if let p = try preview(src, range) { previews.append(p) }
            }
        }
        finish(&meta, previews: previews)
        return meta
    }

    /// Fujifilm RAF: a header naming the offset and length of a JPEG (with the camera's EXIF).
    static func readRAF(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        let h = ByteView(try src.read(at: 84, count: 8))
        guard let offset = h.u32(0), let length = h.u32(4), offset > 0, length > 0, offset <= src.size - length else {
            throw GpickError(.input, "damaged Fujifilm RAF image: its header names no preview inside the file")
        }
        let range = ByteRange(offset: offset, length: length)
        var meta = MediaMetadata(container: .raw, mimeType: "image/x-fuji-raf")
        var facts: ExifFacts?
        let jpeg = try JPEGReader.read(Slice(base: src, range: range), exif: &facts)
        meta.takenAt = jpeg.takenAt
        meta.make = jpeg.make
        meta.model = jpeg.model
        meta.software = jpeg.software
        meta.orientation = jpeg.orientation
        // The preview is smaller than the sensor image; the EXIF's pixel dimensions are the photo's.
        meta.width = facts?.pixelWidth ?? jpeg.width
        meta.height = facts?.pixelHeight ?? jpeg.height
        finish(&meta, previews: [EmbeddedImage(role: .preview, width: jpeg.width, height: jpeg.height, mimeType: "image/jpeg", bytes: range)])
        return meta
    }

    /// Canon CR3 (ISO BMFF): CMT1 (IFD0) and CMT2 (the Exif IFD) in moov's Canon uuid box, a
    /// small THMB there, and the PRVW preview in a top-level uuid box.
    static func readCR3(_ src: some ByteSource, top: [Box]) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: .raw, mimeType: "image/x-canon-cr3")
        var previews: [EmbeddedImage] = []
        if let moov = top.first(where: { $0.type == "moov" }), let v = try Box.load(moov, from: src, limit: 4 << 20),
           let canon = Box.children(v, in: span(8, v.count)).first(where: { $0.type == "uuid" && v.u32($0.payload.lowerBound) == 0x85C0_B687 }) {
            for box in Box.children(v, in: span(canon.payload.lowerBound + 16, canon.payload.upperBound)) {
                guard let bytes = v.slice(box.payload.lowerBound, box.payload.count) else { continue }
                switch box.type {
                case "CMT1", "CMT2":
                    if let e = try ExifReader.facts(source: MemoryBytes(Array(bytes)), base: 0) {
                        JPEGReader.apply(e, to: &meta)
                        if box.type == "CMT1", let w = e.width, let h = e.height { (meta.width, meta.height) = (w, h) }
                    }
                case "THMB":
                    if let at = bytes.firstIndex(of: [0xFF, 0xD8, 0xFF]) {
                        let range = ByteRange(offset: moov.offset + at, length: box.payload.upperBound - at)
                        if let p = try preview(src, range) { previews.append(p) }
                    }
                default: break
                }
            }
        }
        for uuid in top where uuid.type == "uuid" {
            let head = try src.read(at: uuid.payload.lowerBound, count: 16 + 8 + 64)
            guard let prvw = head.firstIndex(of: Array("PRVW".utf8)), prvw >= 4, let jpeg = head.firstIndex(of: [0xFF, 0xD8, 0xFF]),
                  let boxSize = ByteView(head).u32(prvw - 4) else { continue }
            let boxEnd = uuid.payload.lowerBound + prvw - 4 + boxSize
            let start = uuid.payload.lowerBound + jpeg
            guard boxEnd <= src.size, boxEnd > start else { continue }
            if let p = try preview(src, ByteRange(offset: start, length: boxEnd - start)) { previews.append(p) }
        }
        finish(&meta, previews: previews)
        return meta
    }

    /// A JPEG at `range`, with its size from its own frame header; nil when none is there.
    static func preview(_ src: some ByteSource, _ range: ByteRange) throws(GpickError) -> EmbeddedImage? {
        guard range.length > 4, range.offset >= 0, range.offset <= src.size - range.length else { return nil }
        let head = try src.read(at: range.offset, count: 3)
        guard head == [0xFF, 0xD8, 0xFF] else { return nil }
        guard let jpeg = try? JPEGReader.read(Slice(base: src, range: range)), let w = jpeg.width, let h = jpeg.height else { return nil }
        return EmbeddedImage(role: .preview, width: w, height: h, mimeType: "image/jpeg", bytes: range)
    }

    /// The sensor image first (it is the photo, though gpick does not decode it), then the
    /// previews, largest first; the smallest of several is the thumbnail.
    static func finish(_ meta: inout MediaMetadata, previews: [EmbeddedImage]) {
        var seen = Set<Int>()
        var list = previews.filter { seen.insert($0.bytes?.offset ?? -1).inserted }
            .sorted { ($0.width ?? 0) * ($0.height ?? 0) > ($1.width ?? 0) * ($1.height ?? 0) }
        if list.count > 1 { list[list.count - 1].role = .thumbnail }
        // The smallest is the cheap stand-in a picker shows first, as an EXIF thumbnail is.
        meta.exifThumbnail = list.last?.bytes
        meta.images = [EmbeddedImage(role: .primary, width: meta.width, height: meta.height, mimeType: meta.mimeType)] + list
    }

    static func mimeType(_ magic: Int, isDNG: Bool, _ src: some ByteSource) -> String {
        if isDNG { return "image/x-adobe-dng" }
        switch magic {
        case 0x4F52, 0x5352: return "image/x-olympus-orf"
        case 0x55: return "image/x-panasonic-rw2"
        default: break
        }
        if let h = try? src.read(at: 8, count: 2), h == Array("CR".utf8) { return "image/x-canon-cr2" }
        return "image/x-raw"
    }
}

/// The IFDs of a TIFF-structured RAW file: IFD0 and the IFDs chained after it, and each one's
/// SubIFDs (where DNG, NEF and ARW keep the sensor data and the previews), bounded in count.
struct IFDWalk {
    struct IFD {
        var subfileType: Int?, width: Int?, height: Int?, compression: Int?, photometric: Int?
        var stripOffset: Int?, stripLength: Int?, stripCount = 0
        var jpegOffset: Int?, jpegLength: Int?
        var rw2JPEG: ByteRange?
        var dngVersion = false

        var pixels: Int { (width ?? 0) * (height ?? 0) }

        /// CFA or linear raw data, or a compression only RAW formats use (NEF, ARW, PEF, Kodak).
        var holdsSensorData: Bool {
            photometric == 32803 || photometric == 34892 || [34713, 32767, 65000, 32769, 34316, 65535].contains(compression ?? 0)
        }

        /// Where a whole JPEG is: JPEGInterchangeFormat, a single JPEG strip of an RGB/YCbCr
        /// image (CR2's IFD0, DNG's previews), or RW2's JpgFromRaw.
        var jpegCandidates: [ByteRange] {
            var out: [ByteRange] = []
            if let o = jpegOffset, let n = jpegLength, o > 0, n > 0 { out.append(ByteRange(offset: o, length: n)) }
            if [6, 7].contains(compression ?? 0), !holdsSensorData, stripCount == 1, let o = stripOffset, let n = stripLength, o > 0, n > 0 {
                out.append(ByteRange(offset: o, length: n))
            }
            if let r = rw2JPEG { out.append(r) }
            return out
        }
    }

    var ifds: [IFD] = []
    static let maxIFDs = 16

    init(_ r: ExifReader) throws(GpickError) {
        let header = ByteView(try r.source.read(at: r.base, count: 8), littleEndian: r.littleEndian)
        var queue = header.u32(4).map { [$0] } ?? []
        var seen = Set<Int>()
        while let offset = queue.first, ifds.count < Self.maxIFDs {
            queue.removeFirst()
            guard seen.insert(offset).inserted, let (entries, next) = try r.entries(at: offset) else { continue }
            var ifd = IFD()
            for e in entries {
                switch e.tag {
                case 0x002E where r.magic == 0x55:
                    if let o = ByteView(Array(e.raw), littleEndian: r.littleEndian).u32(0), e.count > 0 {
                        ifd.rw2JPEG = ByteRange(offset: r.base + o, length: e.count)
                    }
                case 0x00FE: ifd.subfileType = r.int(e)
                case 0x0100: ifd.width = r.int(e)
                case 0x0101: ifd.height = r.int(e)
                case 0x0103: ifd.compression = r.int(e)
                case 0x0106: ifd.photometric = r.int(e)
                case 0x0111:
                    ifd.stripOffset = r.int(e).map { r.base + $0 }
                    ifd.stripCount = e.count
                case 0x0117: ifd.stripLength = r.int(e)
                case 0x0201: ifd.jpegOffset = r.int(e).map { r.base + $0 }
                case 0x0202: ifd.jpegLength = r.int(e)
                case 0xC612: ifd.dngVersion = true
                case 0x014A:
                    if e.count == 1, let o = r.int(e) { queue.append(o) }
                    else if e.count <= 8, let bytes = try r.value(e) {
                        let v = ByteView(bytes, littleEndian: r.littleEndian)
                        queue += (0..<e.count).compactMap { v.u32(4 * $0) }
                    }
                default: break
                }
            }
            ifds.append(ifd)
            if let next, next != 0 { queue.append(next) }
        }
    }
}
