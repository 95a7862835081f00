import FoundationEssentials
import GpickBase

/// What a TIFF structure (a JPEG's Exif APP1, a TIFF file, a PNG eXIf chunk, a HEIF Exif item)
/// says that the scanner keeps.
struct ExifFacts: Equatable {
    var width: Int?, height: Int?          // IFD0 ImageWidth/ImageLength (TIFF files)
    var pixelWidth: Int?, pixelHeight: Int?  // the Exif IFD's PixelXDimension/PixelYDimension
    var subSecOriginal: String?
    var orientation: Int?
    var make: String?, model: String?
    var software: String?
    var dateTime: String?, dateTimeOriginal: String?, createDate: String?
    var offsetTime: String?, offsetTimeOriginal: String?, offsetTimeDigitized: String?
    var userComment: String?
    /// IFD1's JPEG thumbnail, relative to the TIFF header.
    var thumbnailOffset: Int?, thumbnailLength: Int?
    var contentIdentifier: String?, burstUUID: String?

    /// DateTimeOriginal with its offset, else CreateDate, else IFD0 DateTime.
    var takenAt: TakenDate? {
        // A camera keeps one time zone: without OffsetTimeOriginal, the other offsets stand in.
        let anyOffset = offsetTimeOriginal ?? offsetTimeDigitized ?? offsetTime
        let candidates = [(dateTimeOriginal, anyOffset, subSecOriginal), (createDate, offsetTimeDigitized ?? anyOffset, nil),
                          (dateTime, offsetTime ?? anyOffset, nil)]
        for case let (text?, offset, sub) in candidates {
            guard var date = TakenDate.parse(text) else { continue }
            if date.offsetSeconds == nil { date.offsetSeconds = offset.flatMap(TakenDate.parseOffset) }
            // Digits only ("853"; some cameras pad with spaces).
            if let sub = sub?.trimmed(), !sub.isEmpty, sub.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { date.subsecond = sub }
            return date
        }
        return nil
    }
}

/// A bounded reader of TIFF IFDs: IFD0, its Exif IFD and IFD1, nothing deeper (no chains to loop
/// in), entry counts capped, and values outside the data skipped.
struct ExifReader {
    let source: any ByteSource
    /// Where the TIFF header ("II*\0" / "MM\0*") starts in `source`; IFD offsets count from here.
    let base: Int
    let littleEndian: Bool
    /// 42 for TIFF; Olympus ORF (0x4F52, 0x5352) and Panasonic RW2 (0x55) use their own.
    let magic: Int

    static let maxEntries = 1000
    static let maxValueBytes = 64 * 1024

    struct Entry {
        let tag: Int, type: Int, count: Int
        let raw: ArraySlice<UInt8>   // the 4-byte value/offset field
    }

    init?(source: some ByteSource, base: Int, rawMagic: Bool = false) throws(GpickError) {
        let header = try source.read(at: base, count: 8)
        let h = ByteView(header), le: Bool
        if h.matches(0, "II") { le = true } else if h.matches(0, "MM") { le = false } else { return nil }
        // 43 is BigTIFF: not read here.
        guard let magic = ByteView(header, littleEndian: le).u16(2), magic == 42 || rawMagic && [0x4F52, 0x5352, 0x55].contains(magic) else {
            return nil
        }
        littleEndian = le
        self.magic = magic
        self.source = source
        self.base = base
    }

    /// The facts of the TIFF structure at `base`, nil when there is none there.
    static func facts(source: some ByteSource, base: Int) throws(GpickError) -> ExifFacts? {
        guard let r = try ExifReader(source: source, base: base) else { return nil }
        return try r.facts()
    }

    func facts() throws(GpickError) -> ExifFacts {
        var f = ExifFacts()
        let header = ByteView(try source.read(at: base, count: 8), littleEndian: littleEndian)
        guard let ifd0 = header.u32(4), let (entries0, next) = try entries(at: ifd0) else { return f }
        var exifIFD: Int?
        for e in entries0 {
            switch e.tag {
            case 0x0100: f.width = int(e)
            case 0x0101: f.height = int(e)
            case 0x010F: f.make = try text(e)
            case 0x0110: f.model = try text(e)
            case 0x0112: f.orientation = int(e).flatMap { (1...8).contains($0) ? $0 : nil }
            case 0x0131: f.software = try text(e)
            case 0x0132: f.dateTime = try text(e)
            case 0x8769: exifIFD = int(e)
            default: break
            }
        }
        if let exifIFD, exifIFD != ifd0, let (entries, _) = try entries(at: exifIFD) {
            for e in entries {
                switch e.tag {
                case 0x9003: f.dateTimeOriginal = try text(e)
                case 0x9291: f.subSecOriginal = try text(e)
                case 0xA002: f.pixelWidth = int(e)
                case 0xA003: f.pixelHeight = int(e)
                case 0x9004: f.createDate = try text(e)
                case 0x9010: f.offsetTime = try text(e)
                case 0x9011: f.offsetTimeOriginal = try text(e)
                case 0x9012: f.offsetTimeDigitized = try text(e)
                case 0x9286: f.userComment = try value(e).flatMap(userComment)
                case 0x927C:
                    if let note = try value(e), let apple = AppleNote(note) {
                        f.contentIdentifier = apple.contentIdentifier
                        f.burstUUID = apple.burstUUID
                    }
                default: break
                }
            }
        }
        if let next, next != 0, next != ifd0, let (entries1, _) = try entries(at: next) {
            let offset = entries1.first { $0.tag == 0x0201 }.flatMap(int)
            let length = entries1.first { $0.tag == 0x0202 }.flatMap(int)
            if let offset, let length, offset > 0, length > 0 {
                f.thumbnailOffset = offset
                f.thumbnailLength = length
            }
        }
        return f
    }

    /// An IFD's entries and the next IFD's offset; nil when the IFD is outside the data or its
    /// count is absurd (a bit flip), so the caller simply learns nothing from it.
    func entries(at offset: Int) throws(GpickError) -> ([Entry], Int?)? {
        guard offset >= 8, offset < source.size - base else { return nil }
        let countBytes = ByteView(try source.read(at: base + offset, count: 2), littleEndian: littleEndian)
        guard let n = countBytes.u16(0), n > 0, n <= Self.maxEntries else { return nil }
        let table = ByteView(try source.read(at: base + offset + 2, count: 12 * n + 4), littleEndian: littleEndian)
        var out: [Entry] = []
        out.reserveCapacity(n)
        for k in 0..<n {
            let e = 12 * k
            guard let tag = table.u16(e), let type = table.u16(e + 2), let count = table.u32(e + 4),
                  let raw = table.slice(e + 8, 4) else { break }
            out.append(Entry(tag: tag, type: type, count: count, raw: raw))
        }
        return (out, table.u32(12 * n))
    }

    static func typeSize(_ type: Int) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// The entry's bytes: inline when they fit in 4, else at the offset; nil when they lie
    /// outside the data or are larger than anything read here needs.
    func value(_ e: Entry) throws(GpickError) -> [UInt8]? {
        guard let size = Self.typeSize(e.type), e.count > 0, e.count <= Self.maxValueBytes / size else { return nil }
        let length = size * e.count
        if length <= 4 { return Array(e.raw.prefix(length)) }
        guard let offset = ByteView(Array(e.raw), littleEndian: littleEndian).u32(0),
              offset >= 8, offset <= source.size - base - length else { return nil }
        let bytes = try source.read(at: base + offset, count: length)
        return bytes.count == length ? bytes : nil
    }

    /// The first value of a SHORT, LONG or BYTE entry.
    func int(_ e: Entry) -> Int? {
        let v = ByteView(Array(e.raw), littleEndian: littleEndian)
        switch e.type {
        case 3: return v.u16(0)
        case 4, 13: return v.u32(0)
        case 1: return v.u8(0)
        default: return nil
        }
    }

    func text(_ e: Entry) throws(GpickError) -> String? {
        guard e.type == 2 || e.type == 7 || e.type == 1 else { return nil }
        return try value(e).flatMap(cleanText)
    }

    /// UserComment: an 8-byte character code, then the text ("ASCII\0\0\0Screenshot" from iOS).
    func userComment(_ b: [UInt8]) -> String? {
        guard b.count > 8 else { return cleanText(b) }
        let code = b.prefix(8), body = b.dropFirst(8)
        if code.elementsEqual(Array("UNICODE\0".utf8)) {
            var le = littleEndian
            if body.starts(with: [0xFF, 0xFE]) { le = true } else if body.starts(with: [0xFE, 0xFF]) { le = false }
            var units: [UInt16] = []
            var i = body.startIndex
            while i + 1 < body.endIndex {
                let a = UInt16(body[i]), c = UInt16(body[i + 1])
                let u = le ? c << 8 | a : a << 8 | c
                if u == 0 { break }
                if u != 0xFEFF { units.append(u) }
                i += 2
            }
            let t = String(decoding: units, as: UTF16.self).trimmed()
            return t.isEmpty ? nil : t
        }
        // "ASCII\0\0\0", "JIS\0…", all NULs (undefined): read the rest as UTF-8, as exiftool does.
        let known = code.elementsEqual(Array("ASCII\0\0\0".utf8)) || code.starts(with: Array("JIS".utf8)) || code.allSatisfy { $0 == 0 }
        return cleanText(known ? Array(body) : b)
    }
}

/// Apple's MakerNote: "Apple iOS\0", a version, "MM", then an IFD whose offsets count from the
/// MakerNote's own start.
struct AppleNote {
    var contentIdentifier: String?
    var burstUUID: String?

    init?(_ note: [UInt8]) {
        guard note.count > 16, note.starts(with: Array("Apple iOS\0".utf8)) else { return nil }
        let v: ByteView
        if note[12] == 0x4D, note[13] == 0x4D { v = ByteView(note) } else if note[12] == 0x49, note[13] == 0x49 {
            v = ByteView(note, littleEndian: true)
        } else { return nil }
        guard let n = v.u16(14), n <= ExifReader.maxEntries else { return nil }
        for k in 0..<n {
            let e = 16 + 12 * k
            guard let tag = v.u16(e), let type = v.u16(e + 2), let count = v.u32(e + 4) else { break }
            guard (tag == 0x0011 || tag == 0x000B), type == 2, count > 0 else { continue }
            let bytes: ArraySlice<UInt8>?
            if count <= 4 { bytes = v.slice(e + 8, count) } else { bytes = v.u32(e + 8).flatMap { v.slice($0, count) } }
            guard let bytes else { continue }
            if tag == 0x0011 { contentIdentifier = cleanText(bytes) } else { burstUUID = cleanText(bytes) }
        }
    }
}
