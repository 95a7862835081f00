import Foundation
import GRDB

/// One photo or video in the library: a row of the index. The movie of an Apple live pair is
/// indexed too (so a rescan knows it), but as its photo's companion, never as an asset of its own.
public struct Asset: Codable, Sendable, Equatable, Identifiable, FetchableRecord, MutablePersistableRecord {
    public enum Kind: String, Codable, Sendable, CaseIterable { case photo, video }

    public var id: Int64?
    /// Canonical absolute path (symlinks resolved), inside `root`.
    public var path: String
    public var root: String
    // What a rescan compares.
    public var device: Int64
    public var inode: Int64
    public var size: Int64
    public var mtimeNs: Int64

    public var kind: Kind
    public var mimeType: String
    /// Pixel size as shown (a HEIF's clean aperture, else as stored), before `orientation` is applied.
    public var width: Int?
    public var height: Int?
    /// EXIF orientation 1…8 (videos: from the track matrix).
    public var orientation: Int?
    /// Seconds, for videos.
    public var duration: Double?
    /// Unix seconds: EXIF DateTimeOriginal or the QuickTime creation date, else mtime.
    public var takenAt: Int64
    /// Unix seconds: when the file arrived (birth time, else mtime; the time of an import).
    public var addedAt: Int64

    // Subtypes.
    public var live: Bool = false
    public var burst: Bool = false
    public var panorama: Bool = false
    public var screenshot: Bool = false

    /// Apple's pairing key (MakerNote ContentIdentifier / QuickTime content.identifier).
    public var contentIdentifier: String?
    /// The movie of an Apple pair, on the photo.
    public var pairedMovie: String?
    /// On an Apple pair's movie (and a RAW+JPEG pair's RAW file): its photo's id. Such rows are
    /// not listed.
    public var companionOf: Int64?
    /// Motion Photo: which kind, and where the embedded video is.
    public var motionKind: String?
    public var motionVideoOffset: Int64?
    public var motionVideoLength: Int64?
    /// Bursts: Apple's BurstUUID ("apple:UUID") or gpick's numbered names ("gpick:DIR/STEM").
    public var burstKey: String?
    /// The one member a listing shows for the whole burst.
    public var burstLead: Bool = false
    /// Why the file could not be read, when it could not: it stays indexed, as unreadable.
    public var unreadable: String?
    /// SHA-256 of the content, computed when an import needs it.
    public var contentHash: String?
    /// Photos: the folder and the name without its extension, lower-cased. A camera's RAW file and
    /// the JPEG it wrote of the same shot share it (IMG_0042.CR2 and IMG_0042.JPG).
    public var pairKey: String? = nil
    /// The RAW file of a RAW+JPEG pair, on the photo shown (the RAW is its companion).
    public var pairedRaw: String? = nil

    public static let databaseTableName = "asset"

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Width and height as shown, with the orientation applied.
    public var displaySize: (width: Int, height: Int)? {
        guard let w = width, let h = height else { return nil }
        return (orientation ?? 1) >= 5 ? (h, w) : (w, h)
    }

    public var subtypes: [String] {
        var s: [String] = []
        if live { s.append("live") }
        if burst { s.append("burst") }
        if panorama { s.append("panorama") }
        if screenshot { s.append("screenshot") }
        if pairedRaw != nil { s.append("raw") }
        return s
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let path = Column(CodingKeys.path)
        public static let root = Column(CodingKeys.root)
        public static let kind = Column(CodingKeys.kind)
        public static let addedAt = Column(CodingKeys.addedAt)
        public static let live = Column(CodingKeys.live)
        public static let burst = Column(CodingKeys.burst)
        public static let burstLead = Column(CodingKeys.burstLead)
        public static let burstKey = Column(CodingKeys.burstKey)
        public static let panorama = Column(CodingKeys.panorama)
        public static let screenshot = Column(CodingKeys.screenshot)
        public static let companionOf = Column(CodingKeys.companionOf)
        public static let contentIdentifier = Column(CodingKeys.contentIdentifier)
        public static let unreadable = Column(CodingKeys.unreadable)
        public static let size = Column(CodingKeys.size)
        public static let contentHash = Column(CodingKeys.contentHash)
    }
}
