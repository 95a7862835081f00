import Foundation
import GRDB
import GpickBase

/// A fetch of the library, as a photo picker makes one: newest added first, 1000 by default,
/// optionally one kind or subtype, optionally only what arrived since a date, optionally only
/// paths containing some text.
public struct AssetQuery: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case photo, video, live, burst, panorama, screenshot }

    public var kind: Kind?
    /// Unix seconds: assets added at or after it.
    public var since: Int64?
    public var limit: Int
    public var includeUnreadable: Bool
    /// Only assets under these roots (nil: the whole index).
    public var roots: MediaRoots?
    /// Only assets whose path inside its root (folders and name, not the root's own path, which
    /// every asset shares) contains this, ignoring case. A burst is matched by its shown photo.
    public var pathContains: String?

    public init(kind: Kind? = nil, since: Int64? = nil, limit: Int = 1000, includeUnreadable: Bool = false, roots: MediaRoots? = nil,
                pathContains: String? = nil) {
        self.roots = roots
        self.pathContains = pathContains
        self.kind = kind
        self.since = since
        self.limit = limit
        self.includeUnreadable = includeUnreadable
    }
}

/// An asset as a listing shows it: a burst stands for all its members.
public struct ListedAsset: Sendable, Equatable {
    public var asset: Asset
    /// How many photos the burst holds (1 when it is not a burst).
    public var burstCount: Int

    public init(asset: Asset, burstCount: Int = 1) {
        self.asset = asset
        self.burstCount = burstCount
    }
}

extension LibraryIndex {
    public func list(_ query: AssetQuery) throws(GpickError) -> [ListedAsset] {
        try read { db in
            typealias C = Asset.Columns
            var request = Asset.filter(C.companionOf == nil).filter(C.burst == false || C.burstLead == true)
            if !query.includeUnreadable { request = request.filter(C.unreadable == nil) }
            switch query.kind {
            case .photo?: request = request.filter(C.kind == Asset.Kind.photo.rawValue)
            case .video?: request = request.filter(C.kind == Asset.Kind.video.rawValue)
            case .live?: request = request.filter(C.live == true)
            case .burst?: request = request.filter(C.burst == true)
            case .panorama?: request = request.filter(C.panorama == true)
            case .screenshot?: request = request.filter(C.screenshot == true)
            case nil: break
            }
            if let roots = query.roots { request = request.filter(roots.containsScanningByDate) }
            if let since = query.since { request = request.filter(C.addedAt >= since) }
            if let text = query.pathContains, !text.isEmpty {
                // In SQL, before the limit. swiftLowercaseString is GRDB's, Unicode-aware (SQLite's
                // lower() folds ASCII only); instr, unlike LIKE, gives % and _ no meaning.
                request = request.filter(sql: "instr(swiftLowercaseString(substr(path, length(rtrim(root, '/')) + 2)), ?) > 0",
                                         arguments: [text.lowercased()])
            }
            let assets = try request.order(C.addedAt.desc, C.id.desc).limit(max(0, query.limit)).fetchAll(db)
            let keys = Set(assets.filter(\.burst).compactMap(\.burstKey))
            var counts: [String: Int] = [:]
            if !keys.isEmpty {
                let rows = try Row.fetchAll(db, Asset.select(C.burstKey, GRDB.count(C.id)).filter(keys.contains(C.burstKey)).filter(C.burst == true).group(C.burstKey))
                for row in rows { counts[row[0]] = row[1] }
            }
            return assets.map { ListedAsset(asset: $0, burstCount: $0.burst ? counts[$0.burstKey ?? ""] ?? 1 : 1) }
        }
    }

    public func asset(id: Int64) throws(GpickError) -> Asset? {
        try read { db in try Asset.fetchOne(db, key: id) }
    }

    /// The asset at exactly `path`, as a listing shows it (a burst with its count), by the
    /// path's unique index: what an import or a capture just put into the library.
    public func listed(path: String) throws(GpickError) -> ListedAsset? {
        try read { db in
            typealias C = Asset.Columns
            guard let asset = try Asset.filter(C.path == path).fetchOne(db) else { return nil }
            let count = asset.burst ? try Asset.filter(C.burstKey == asset.burstKey).filter(C.burst == true).fetchCount(db) : 1
            return ListedAsset(asset: asset, burstCount: count)
        }
    }

    public func count() throws(GpickError) -> Int {
        try read { db in try Asset.filter(Asset.Columns.companionOf == nil).fetchCount(db) }
    }
}
