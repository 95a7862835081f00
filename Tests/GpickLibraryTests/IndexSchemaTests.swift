import Foundation
import GRDB
import GpickTestSupport
import Testing
@testable import GpickLibrary

/// The index's schema: a new index has all of it, and an index an earlier gpick made (with only
/// its first migration, or its first two) is brought up to date with its rows kept.
@Suite struct IndexSchemaTests {
    static let columns = ["pairKey", "pairedRaw", "contentHash", "burstLead"]
    static let indexes = ["asset_kind_added", "asset_live_added", "asset_burst_added", "asset_panorama_added",
                          "asset_screenshot_added", "asset_on_pairKey", "asset_size"]

    func schema(_ path: String) throws -> (columns: Set<String>, indexes: Set<String>, migrations: [String]) {
        let db = try DatabaseQueue(path: path)
        return try db.read { db in
            (Set(try db.columns(in: "asset").map(\.name)), Set(try db.indexes(on: "asset").map(\.name)),
             try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"))
        }
    }

    @Test func aNewIndexHasTheWholeSchema() throws {
        let folder = TemporaryFolder("index")
        let path = folder.path + "/library.sqlite"
        _ = try LibraryIndex.open(path: path)
        let s = try schema(path)
        #expect(s.columns.isSuperset(of: Self.columns), "\(s.columns)")
        #expect(s.indexes.isSuperset(of: Self.indexes), "\(s.indexes)")
        #expect(s.migrations == ["v3: RAW+JPEG pairs"])
        #expect(try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    /// As the first gpick with a library wrote it: the asset table and the "v1: assets" mark.
    static func firstIndex(at path: String, photos: [String], marks: [String]) throws {
        let db = try DatabaseQueue(path: path)
        try db.write { db in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                CREATE TABLE asset (id INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT NOT NULL UNIQUE, root TEXT NOT NULL,
                  device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL, mtimeNs INTEGER NOT NULL,
                  kind TEXT NOT NULL, mimeType TEXT NOT NULL, width INTEGER, height INTEGER, orientation INTEGER,
                  duration DOUBLE, takenAt INTEGER NOT NULL, addedAt INTEGER NOT NULL,
                  live BOOLEAN NOT NULL DEFAULT 0, burst BOOLEAN NOT NULL DEFAULT 0, panorama BOOLEAN NOT NULL DEFAULT 0,
                  screenshot BOOLEAN NOT NULL DEFAULT 0, contentIdentifier TEXT, pairedMovie TEXT, companionOf INTEGER,
                  motionKind TEXT, motionVideoOffset INTEGER, motionVideoLength INTEGER, burstKey TEXT,
                  burstLead BOOLEAN NOT NULL DEFAULT 0, unreadable TEXT, contentHash TEXT);
                CREATE INDEX asset_on_addedAt ON asset(addedAt);
                CREATE INDEX asset_on_contentIdentifier ON asset(contentIdentifier);
                CREATE INDEX asset_on_burstKey ON asset(burstKey);
                CREATE INDEX asset_size ON asset(size);
                """)
            if marks.contains("v2: listing by kind and subtype") {
                try db.execute(sql: "CREATE INDEX asset_kind_added ON asset(kind, addedAt)")
                for subtype in ["live", "burst", "panorama", "screenshot"] {
                    try db.execute(sql: "CREATE INDEX asset_\(subtype)_added ON asset(addedAt) WHERE \(subtype) = 1")
                }
            }
            for mark in marks { try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [mark]) }
            for (n, photo) in photos.enumerated() {
                try db.execute(sql: """
                    INSERT INTO asset (path, root, device, inode, size, mtimeNs, kind, mimeType, takenAt, addedAt)
                    VALUES (?, '/p', 1, ?, 10, 0, 'photo', 'image/jpeg', 0, 0)
                    """, arguments: [photo, n + 1])
            }
        }
    }

    @Test(arguments: [["v1: assets"], ["v1: assets", "v2: listing by kind and subtype"]])
    func anEarlierIndexIsBroughtUpToDate(marks: [String]) throws {
        let folder = TemporaryFolder("index")
        let path = folder.path + "/library.sqlite"
        try Self.firstIndex(at: path, photos: ["/p/2024/IMG_0001.JPG", "/p/2024/IMG_0002.jpg"], marks: marks)
        _ = try LibraryIndex.open(path: path)
        let s = try schema(path)
        #expect(s.columns.isSuperset(of: Self.columns), "\(s.columns)")
        #expect(s.indexes.isSuperset(of: Self.indexes), "\(s.indexes)")
        #expect(s.migrations == ["v3: RAW+JPEG pairs"])
        // The same columns and indexes as a new index.
        let fresh = TemporaryFolder("index")
        _ = try LibraryIndex.open(path: fresh.path + "/library.sqlite")
        let new = try schema(fresh.path + "/library.sqlite")
        #expect(s.columns == new.columns && s.indexes == new.indexes, "\(s) \(new)")
        // The rows are kept, and each has the pair key a scan would give it.
        let keys = try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "SELECT pairKey FROM asset ORDER BY id") }
        #expect(keys == ["/p/2024/img_0001", "/p/2024/img_0002"])
    }
}
