import Foundation
import GRDB
import GpickBase

/// The SQLite index of the library, through GRDB: schema migrations, and every failure of the
/// database turned into one line about the index file (locked, damaged, unwritable).
public final class LibraryIndex: Sendable {
    public let path: String
    let pool: DatabasePool

    /// The index at `path`, opened once per process and shared after: GRDB's rule is one
    /// DatabasePool per database file in a process (a pool serialises its own writes; two pools
    /// would wait on each other's SQLite locks instead, and each keeps its own caches).
    /// Opening creates the file (its folder 0700) and migrates it to the current schema.
    public static func open(path: String) throws(GpickError) -> LibraryIndex {
        let key = canonical(path)
        return try opened.withLock { (indexes: inout [String: LibraryIndex]) throws(GpickError) -> LibraryIndex in
            if let index = indexes[key] { return index }
            let index = try LibraryIndex(path: path)
            indexes[key] = index
            return index
        }
    }

    /// The indexes this process has open, by canonical path; kept for the process's life.
    private static let opened = Locked<[String: LibraryIndex]>([:])

    /// The path with `.`, `..` and the symbolic links of its existing part resolved.
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    private init(path: String) throws(GpickError) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if isDirectory(folder) != true {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw GpickError(.output, "cannot create the library index folder \(folder): \(Self.reason(error))")
            }
        }
        var config = Configuration()
        // Another gpick (a watch, a picker) may be writing: wait a little, then say so.
        config.busyMode = .timeout(3)
        config.label = "gpick.library"
        // Reads through a memory map rather than a pread per page: a rescan reads every row.
        // synchronous=NORMAL, as SQLite advises for WAL: a commit no longer waits for an fsync
        // (a cold scan made 6, each its own wait), and the file still cannot be damaged by a
        // crash or a power cut; such a cut may lose the last commits, which the index can afford:
        // it describes files that stay on disk, and the next scan finds them again.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA mmap_size = 268435456; PRAGMA synchronous = NORMAL") }
        do {
            pool = try DatabasePool(path: path, configuration: config)
            try Self.migrator.migrate(pool)
        } catch {
            throw Self.failure(error, path: path)
        }
    }

    /// Moves a damaged index aside (`library.sqlite.damaged`, with its WAL files) so that a
    /// new one can be built; returns where it went.
    public static func setAside(path: String) throws(GpickError) -> String? {
        guard fileStatus(path) != nil else { return nil }
        // This process opens a new index there next, not the one moved aside.
        _ = opened.withLock { $0.removeValue(forKey: canonical(path)) }
        let aside = path + ".damaged"
        for suffix in ["", "-wal", "-shm"] where fileStatus(path + suffix) != nil {
            try sys("move aside", path + suffix) { rename(path + suffix, aside + suffix) }
        }
        return aside
    }

    /// The schema, as one migration that merges the three it grew by (GRDB's merged migrations):
    /// a new index is made in one transaction (a cold scan spent 4 ms of its 22 on three), and an
    /// index made by an earlier gpick gets the steps it lacks, as before.
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        // No foreign keys: nothing for deferred checks to check.
        m.registerMigration("v3: RAW+JPEG pairs", foreignKeyChecks: .immediate,
                            merging: ["v1: assets", "v2: listing by kind and subtype"]) { db, applied in
            if !applied.contains("v1: assets") { try createAssets(db) }
            if !applied.contains("v2: listing by kind and subtype") { try createKindIndexes(db) }
            try addRawPairs(db, fillExisting: applied.contains("v1: assets"))
        }
        return m
    }

    private static func createAssets(_ db: Database) throws {
        try db.create(table: "asset") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("path", .text).notNull().unique()
            t.column("root", .text).notNull()
            t.column("device", .integer).notNull()
            t.column("inode", .integer).notNull()
            t.column("size", .integer).notNull()
            t.column("mtimeNs", .integer).notNull()
            t.column("kind", .text).notNull()
            t.column("mimeType", .text).notNull()
            t.column("width", .integer)
            t.column("height", .integer)
            t.column("orientation", .integer)
            t.column("duration", .double)
            t.column("takenAt", .integer).notNull()
            t.column("addedAt", .integer).notNull().indexed()
            t.column("live", .boolean).notNull().defaults(to: false)
            t.column("burst", .boolean).notNull().defaults(to: false)
            t.column("panorama", .boolean).notNull().defaults(to: false)
            t.column("screenshot", .boolean).notNull().defaults(to: false)
            t.column("contentIdentifier", .text).indexed()
            t.column("pairedMovie", .text)
            t.column("companionOf", .integer)
            t.column("motionKind", .text)
            t.column("motionVideoOffset", .integer)
            t.column("motionVideoLength", .integer)
            t.column("burstKey", .text).indexed()
            t.column("burstLead", .boolean).notNull().defaults(to: false)
            t.column("unreadable", .text)
            t.column("contentHash", .text)
        }
        try db.create(index: "asset_size", on: "asset", columns: ["size"])
    }

    /// A custom fetch (live photos only, videos only) newest first: without these, SQLite walks
    /// the addedAt index through every other asset to find 1000 (29 ms of 100,000 for live).
    /// The partial indexes say `= 1`, as GRDB writes `== true`: SQLite then knows they apply.
    private static func createKindIndexes(_ db: Database) throws {
        try db.create(index: "asset_kind_added", on: "asset", columns: ["kind", "addedAt"])
        for subtype in ["live", "burst", "panorama", "screenshot"] {
            try db.execute(sql: "CREATE INDEX asset_\(subtype)_added ON asset(addedAt) WHERE \(subtype) = 1")
        }
    }

    /// RAW+JPEG pairs: a photo's folder and stem. Rows an earlier gpick wrote get theirs here, as
    /// a scan would give them (unchanged files are not read again).
    private static func addRawPairs(_ db: Database, fillExisting: Bool) throws {
        try db.alter(table: "asset") { t in
            t.add(column: "pairKey", .text).indexed()
            t.add(column: "pairedRaw", .text)
        }
        guard fillExisting else { return }
        let photos = try Row.fetchAll(db, sql: "SELECT id, path FROM asset WHERE kind = 'photo'")
        for row in photos {
            let path: String = row["path"]
            try db.execute(sql: "UPDATE asset SET pairKey = ? WHERE id = ?", arguments: [AssetReader.pairKey(path), row["id"] as Int64])
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(GpickError) -> T {
        do { return try pool.read(body) } catch { throw Self.failure(error, path: path) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(GpickError) -> T {
        do { return try pool.write(body) } catch { throw Self.failure(error, path: path) }
    }

    /// One line about the index file, whatever SQLite said.
    static func failure(_ error: any Error, path: String) -> GpickError {
        if let e = error as? GpickError { return e }
        guard let db = error as? DatabaseError else {
            return GpickError(.runtime, "library index \(path): \(reason(error))")
        }
        switch db.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return GpickError(.runtime, "the library index \(path) is locked by another process; try again when it is done")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return GpickError(.input, "the library index \(path) is damaged (\(db.message ?? "not a database"))", remedy: .rebuildIndex)
        case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN, .SQLITE_AUTH:
            return GpickError(.output, "cannot open the library index \(path) for writing (\(db.message ?? "permission denied"))")
        case .SQLITE_FULL:
            return GpickError(.output, "no space left on device writing \(path)")
        case .SQLITE_IOERR:
            return GpickError(.output, "input/output error on the library index \(path)")
        default:
            return GpickError(.runtime, "library index \(path): \(db.message ?? "\(db.resultCode)")")
        }
    }

    static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
