import CExif
import FoundationEssentials
import GpickBase
import Glibc

/// The camera a still came from, as EXIF's Make and Model name it.
public struct CameraIdentity: Sendable, Equatable, Codable {
    public var make: String
    public var model: String

    public init(make: String, model: String) {
        self.make = make
        self.model = model
    }
}

/// The EXIF block every still gpick writes carries, so that photo managers (Shotwell, digiKam,
/// GNOME Photos, Immich) date it by when it was taken rather than by a file time that a copy or a
/// sync changes: the date with sub-seconds and UTC offset, the camera, the software, upright
/// orientation and the pixel size. Written by libexif.
public struct StillExif: Sendable, Equatable {
    public var camera: CameraIdentity
    public var software: String
    /// When the frame was taken: seconds since the Unix epoch, with its fraction.
    public var takenAt: Double
    /// The UTC offset of the local time (seconds east); nil: the machine's own, at `takenAt`.
    public var utcOffset: Int?
    public var width: Int
    public var height: Int
    /// An Apple MakerNote (a Live Photo's still carries its pairing UUID in one).
    public var makerNote: [UInt8]?

    public init(camera: CameraIdentity, software: String, takenAt: Double, utcOffset: Int? = nil,
                width: Int, height: Int, makerNote: [UInt8]? = nil) {
        self.camera = camera
        self.software = software
        self.takenAt = takenAt
        self.utcOffset = utcOffset
        self.width = width
        self.height = height
        self.makerNote = makerNote
    }

    /// The wall-clock time now, for a still taken now.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// "2026:11:25 22:14:07", the milliseconds ("042") and "+01:00", in the local time zone
    /// (or at `utcOffset`).
    func dateFields() -> (date: String, subSeconds: String, offset: String) {
        var seconds = time_t(floor(takenAt))
        let millis = min(999, Int(((takenAt - floor(takenAt)) * 1000).rounded()))
        var t = tm()
        let offset: Int
        if let utcOffset {
            var shifted = seconds + time_t(utcOffset)
            gmtime_r(&shifted, &t)
            offset = utcOffset
        } else {
            localtime_r(&seconds, &t)
            offset = Int(t.tm_gmtoff)
        }
        let date = cFormat("%04d:%02d:%02d %02d:%02d:%02d", Int(t.tm_year) + 1900, Int(t.tm_mon) + 1, Int(t.tm_mday),
                           Int(t.tm_hour), Int(t.tm_min), Int(t.tm_sec))
        let off = (offset < 0 ? "-" : "+") + cFormat("%02d:%02d", abs(offset) / 3600, abs(offset) % 3600 / 60)
        return (date, cFormat("%03d", millis), off)
    }

    /// The APP1 payload: "Exif\0\0" and a big-endian TIFF structure (IFD0, the Exif IFD), with
    /// the tags EXIF 2.32 requires of a JPEG (exiftool -validate finds none missing).
    public func payload(jpeg: Bool = true) throws(GpickError) -> [UInt8] {
        guard let ed = cexif_new() else { throw GpickError(.runtime, "cannot make the still's EXIF: out of memory") }
        defer { exif_data_unref(ed) }
        let (date, sub, offset) = dateFields()
        var status: Int32 = 0
        func ascii(_ ifd: ExifIfd, _ tag: ExifTag, _ text: String) { status |= cexif_add_ascii(ed, ifd, tag, text) }
        ascii(EXIF_IFD_0, EXIF_TAG_MAKE, camera.make)
        ascii(EXIF_IFD_0, EXIF_TAG_MODEL, camera.model)
        status |= cexif_add_short(ed, EXIF_IFD_0, EXIF_TAG_ORIENTATION, 1)
        status |= cexif_add_rational(ed, EXIF_IFD_0, EXIF_TAG_X_RESOLUTION, 72, 1)
        status |= cexif_add_rational(ed, EXIF_IFD_0, EXIF_TAG_Y_RESOLUTION, 72, 1)
        status |= cexif_add_short(ed, EXIF_IFD_0, EXIF_TAG_RESOLUTION_UNIT, 2)  // inches
        ascii(EXIF_IFD_0, EXIF_TAG_SOFTWARE, software)
        ascii(EXIF_IFD_0, EXIF_TAG_DATE_TIME, date)
        if jpeg { status |= cexif_add_short(ed, EXIF_IFD_0, EXIF_TAG_YCBCR_POSITIONING, 1) }  // centred
        status |= cexif_add_undefined(ed, EXIF_IFD_EXIF, EXIF_TAG_EXIF_VERSION, Array("0232".utf8), 4)
        if jpeg { status |= cexif_add_undefined(ed, EXIF_IFD_EXIF, EXIF_TAG_COMPONENTS_CONFIGURATION, [1, 2, 3, 0], 4) }  // Y Cb Cr
        status |= cexif_add_undefined(ed, EXIF_IFD_EXIF, EXIF_TAG_FLASH_PIX_VERSION, Array("0100".utf8), 4)
        ascii(EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL, date)
        ascii(EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_DIGITIZED, date)
        ascii(EXIF_IFD_EXIF, EXIF_TAG_OFFSET_TIME, offset)
        ascii(EXIF_IFD_EXIF, EXIF_TAG_OFFSET_TIME_ORIGINAL, offset)
        ascii(EXIF_IFD_EXIF, EXIF_TAG_OFFSET_TIME_DIGITIZED, offset)
        ascii(EXIF_IFD_EXIF, EXIF_TAG_SUB_SEC_TIME_ORIGINAL, sub)
        ascii(EXIF_IFD_EXIF, EXIF_TAG_SUB_SEC_TIME_DIGITIZED, sub)
        status |= cexif_add_short(ed, EXIF_IFD_EXIF, EXIF_TAG_COLOR_SPACE, 1)  // sRGB
        status |= cexif_add_long(ed, EXIF_IFD_EXIF, EXIF_TAG_PIXEL_X_DIMENSION, UInt32(clamping: width))
        status |= cexif_add_long(ed, EXIF_IFD_EXIF, EXIF_TAG_PIXEL_Y_DIMENSION, UInt32(clamping: height))
        if let note = makerNote {
            status |= note.withUnsafeBytes { cexif_add_undefined(ed, EXIF_IFD_EXIF, EXIF_TAG_MAKER_NOTE, $0.baseAddress, UInt32(note.count)) }
        }
        guard status == 0 else { throw GpickError(.runtime, "cannot make the still's EXIF: out of memory") }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var length: UInt32 = 0
        exif_data_save_data(ed, &buffer, &length)
        defer { free(buffer) }
        guard let buffer, length > 6 else { throw GpickError(.runtime, "cannot make the still's EXIF: libexif wrote nothing") }
        var bytes = Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
        // libexif writes the "Exif\0\0" header itself; older versions did not.
        if !bytes.starts(with: Self.header) { bytes = Self.header + bytes }
        return bytes
    }

    static let header = Array("Exif".utf8) + [0, 0]

    /// `jpeg` with this EXIF as an APP1 right after SOI (and after APP0 when the encoder wrote
    /// one), replacing an EXIF APP1 already there.
    public func insert(into jpeg: [UInt8]) throws(GpickError) -> [UInt8] {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw GpickError(.runtime, "the still is not a JPEG") }
        let body = try payload()
        guard body.count + 2 <= 65_535 else { throw GpickError(.runtime, "the still's EXIF is too large for one APP1 segment") }
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        var rest = at
        // An EXIF APP1 the encoder wrote goes: one block, ours.
        while rest + 10 <= jpeg.count, jpeg[rest] == 0xFF, jpeg[rest + 1] == 0xE1,
              Array(jpeg[(rest + 4)..<(rest + 10)]) == Self.header {
            rest += 2 + (Int(jpeg[rest + 2]) << 8 | Int(jpeg[rest + 3]))
        }
        guard rest <= jpeg.count else { throw GpickError(.runtime, "the still's JPEG segments are damaged") }
        let length = body.count + 2
        var out: [UInt8] = []
        out.reserveCapacity(jpeg.count + length + 2)
        out += jpeg[..<at]
        out += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
        out += body
        out += jpeg[rest...]
        return out
    }

    /// `png` with this EXIF as an eXIf chunk (PNG 1.5) right after IHDR, before any image data.
    public func insert(intoPNG png: [UInt8]) throws(GpickError) -> [UInt8] {
        guard png.count > 33, png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              Array(png[12..<16]) == Array("IHDR".utf8) else { throw GpickError(.runtime, "the still is not a PNG") }
        let tiff = Array(try payload(jpeg: false).dropFirst(Self.header.count))
        let afterIHDR = 8 + 12 + 13
        let chunk = Array("eXIf".utf8) + tiff
        var out = Array(png[..<afterIHDR])
        out += be32(UInt32(tiff.count)) + chunk + be32(CRC32.of(chunk))
        out += png[afterIHDR...]
        return out
    }
}

/// CRC-32 as PNG chunks use it (ISO 3309, the table from the PNG specification's annex).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func of(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
