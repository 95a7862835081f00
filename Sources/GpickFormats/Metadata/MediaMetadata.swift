import FoundationEssentials
import GpickBase

/// When a photo or clip was taken, as the file says it: a wall-clock time, with the UTC offset
/// when the file gives one (nil = local time of wherever it was taken, as EXIF without
/// OffsetTimeOriginal is).
public struct TakenDate: Sendable, Equatable, Codable {
    public var year, month, day, hour, minute, second: Int
    public var offsetSeconds: Int?
    /// The digits of the fraction of the second, as EXIF's SubSecTimeOriginal gives them ("853").
    public var subsecond: String?

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offsetSeconds: Int? = nil,
                subsecond: String? = nil) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.offsetSeconds = offsetSeconds
        self.subsecond = subsecond
    }

    /// ISO 8601 as the file says it: "2024-01-12T21:38:53.853-08:00", without an offset when the
    /// file gives none (then it is the local time where it was taken).
    public var iso8601: String {
        var s = cFormat("%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
        if let subsecond, !subsecond.isEmpty { s += "." + subsecond }
        if let o = offsetSeconds {
            s += (o < 0 ? "-" : "+") + cFormat("%02d:%02d", abs(o) / 3600, abs(o) % 3600 / 60)
        }
        return s
    }
}

/// Bytes of a file: where an embedded video or thumbnail is.
public struct ByteRange: Sendable, Equatable, Codable {
    public var offset: Int
    public var length: Int

    public init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }
}

/// The video inside a still: verified to be there (an `ftyp` box at `video.offset`).
public struct MotionPhotoInfo: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case google, microVideo, samsung }
    public var kind: Kind
    public var video: ByteRange
    /// The still's time in the video (µs); nil when unknown (the XMP's −1, or absent).
    public var presentationUs: Int64?

    public init(kind: Kind, video: ByteRange, presentationUs: Int64? = nil) {
        self.kind = kind
        self.video = video
        self.presentationUs = presentationUs
    }
}

/// One picture a still holds: its main image, and the others phones and cameras store beside
/// it (thumbnails, RAW previews, an HDR gain map, a depth map).
public struct EmbeddedImage: Sendable, Equatable, Codable {
    public enum Role: String, Sendable, Codable {
        case primary, thumbnail, preview, gainMap = "gain-map", depth, alpha, auxiliary
    }
    public var role: Role
    public var width: Int?
    public var height: Int?
    public var mimeType: String?
    /// Where its bytes are, when they are one contiguous JPEG in the file (an EXIF thumbnail, a
    /// RAW file's preview).
    public var bytes: ByteRange?

    public init(role: Role, width: Int? = nil, height: Int? = nil, mimeType: String? = nil, bytes: ByteRange? = nil) {
        self.role = role
        self.width = width
        self.height = height
        self.mimeType = mimeType
        self.bytes = bytes
    }
}

/// What the media library's scanner needs of a file, read from its headers only.
public struct MediaMetadata: Sendable, Equatable, Codable {
    public enum Container: String, Sendable, Codable {
        case jpeg, png, webp, gif, heif, avif, tiff, jxl, raw, mp4, quicktime, matroska, webm, avi, unknown
    }

    public var container: Container
    public var mimeType: String
    public var isVideo: Bool
    /// Stored pixel size, before orientation.
    public var width: Int?
    public var height: Int?
    /// The part of the stored picture that is shown (HEIF and AVIF `clap`), before orientation.
    public var cleanAperture: CleanAperture?
    /// EXIF 1...8; for videos, from the video track's matrix (90° → 6, 180° → 3, 270° → 8).
    public var orientation: Int?
    /// Seconds (videos).
    public var duration: Double?
    public var takenAt: TakenDate?
    /// Apple's live-photo pairing UUID (MakerNote 0x0011, or the movie's content.identifier).
    public var contentIdentifier: String?
    public var burstUUID: String?
    /// Set only when the embedded video is really at its offset.
    public var motionPhoto: MotionPhotoInfo?
    /// Flagged as a motion photo, but the video is not there: why.
    public var motionPhotoProblem: String?
    public var isPanorama: Bool
    public var software: String?
    /// The camera, as EXIF's Make and Model say.
    public var make: String?
    public var model: String?
    public var userComment: String?
    /// The pictures the file holds, the primary image first; empty when only the primary is known.
    public var images: [EmbeddedImage] = []
    /// The EXIF (IFD1) JPEG thumbnail's bytes in the file.
    public var exifThumbnail: ByteRange?

    public init(container: Container, mimeType: String? = nil, isVideo: Bool? = nil, width: Int? = nil, height: Int? = nil,
                orientation: Int? = nil, duration: Double? = nil, takenAt: TakenDate? = nil,
                contentIdentifier: String? = nil, burstUUID: String? = nil, motionPhoto: MotionPhotoInfo? = nil,
                motionPhotoProblem: String? = nil, isPanorama: Bool = false, software: String? = nil,
                userComment: String? = nil, exifThumbnail: ByteRange? = nil) {
        self.container = container
        self.mimeType = mimeType ?? container.mimeType
        self.isVideo = isVideo ?? container.isVideo
        self.width = width
        self.height = height
        self.orientation = orientation
        self.duration = duration
        self.takenAt = takenAt
        self.contentIdentifier = contentIdentifier
        self.burstUUID = burstUUID
        self.motionPhoto = motionPhoto
        self.motionPhotoProblem = motionPhotoProblem
        self.isPanorama = isPanorama
        self.software = software
        self.userComment = userComment
        self.exifThumbnail = exifThumbnail
    }
}

extension MediaMetadata {
    /// The size as shown, before orientation: the clean aperture's, else the stored size.
    public var shownSize: (width: Int, height: Int)? {
        if let c = cleanAperture { return (c.width, c.height) }
        guard let width, let height else { return nil }
        return (width, height)
    }

    /// The size as shown: cropped to the clean aperture, width and height swapped when the
    /// orientation turns a quarter.
    public var uprightSize: (width: Int, height: Int)? {
        guard let (width, height) = shownSize else { return nil }
        return (orientation ?? 1) >= 5 ? (height, width) : (width, height)
    }
}

extension MediaMetadata.Container {
    /// The MIME type a file of this container is served as.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .heif: "image/heic"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .jxl: "image/jxl"
        case .raw: "image/x-raw"
        case .mp4: "video/mp4"
        case .quicktime: "video/quicktime"
        case .matroska: "video/x-matroska"
        case .webm: "video/webm"
        case .avi: "video/x-msvideo"
        case .unknown: "application/octet-stream"
        }
    }

    public var isVideo: Bool {
        switch self {
        case .mp4, .quicktime, .matroska, .webm, .avi: true
        default: false
        }
    }
}

extension TakenDate {
    /// "2024:05:01 12:34:56" (EXIF), "2024-05-01T12:34:56.5+0200" (ISO 8601, QuickTime keys), with
    /// an optional offset (Z, ±HH:MM, ±HHMM, ±HH). Blank or zero dates (cameras with no clock
    /// write "0000:00:00 00:00:00") are nil.
    static func parse(_ text: String) -> TakenDate? {
        let c = Array(text.trimmed().utf8)
        guard c.count >= 19 else { return nil }
        func num(_ at: Int, _ n: Int) -> Int? {
            var v = 0
            for k in at..<(at + n) {
                guard c[k] >= 0x30, c[k] <= 0x39 else { return nil }
                v = v * 10 + Int(c[k] - 0x30)
            }
            return v
        }
        guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
              let s = num(17, 2), c[13] == 0x3A, c[16] == 0x3A,
              c[10] == 0x54 || c[10] == 0x20 || c[10] == 0x74 else { return nil }
        var date = TakenDate(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
        guard date.isPlausible else { return nil }
        var i = 19
        if i < c.count, c[i] == 0x2E || c[i] == 0x2C { // fractional seconds: dropped
            i += 1
            while i < c.count, c[i] >= 0x30, c[i] <= 0x39 { i += 1 }
        }
        date.offsetSeconds = parseOffset(String(decoding: c[i...], as: UTF8.self))
        return date
    }

    /// "+02:00", "-0530", "+02", "Z" → seconds east of UTC; anything else nil.
    static func parseOffset(_ text: String) -> Int? {
        let c = Array(text.trimmed().utf8)
        if c == [0x5A] || c == [0x7A] { return 0 }
        guard c.count >= 3, c[0] == 0x2B || c[0] == 0x2D else { return nil }
        let digits = c.dropFirst().filter { $0 != 0x3A }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let v = digits.map { Int($0 - 0x30) }
        let hours = v[0] * 10 + v[1], minutes = v.count == 4 ? v[2] * 10 + v[3] : 0
        guard hours <= 18, minutes < 60 else { return nil }
        return (c[0] == 0x2D ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    /// A UTC time in seconds since 1904-01-01 (QuickTime's epoch); 0 means unset.
    static func fromMacEpoch(_ seconds: Int) -> TakenDate? {
        guard seconds > 0, seconds < 1 << 40 else { return nil }
        let unix = seconds - 2_082_844_800
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secs = unix - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let date = TakenDate(year: year, month: month, day: day, hour: secs / 3600, minute: secs % 3600 / 60,
                             second: secs % 60, offsetSeconds: 0)
        return date.isPlausible ? date : nil
    }

    var isPlausible: Bool {
        year >= 1800 && year <= 9999 && (1...12).contains(month) && (1...31).contains(day) && (0...23).contains(hour)
            && (0...59).contains(minute) && (0...60).contains(second)
    }
}
