import Dispatch
import Foundation
import GRDB
import GpickBase
import Synchronization

/// What a scan did, for its summary line and its `finished` event.
public struct ScanSummary: Sendable, Codable, Equatable {
    public var found = 0
    public var added = 0
    public var updated = 0
    public var moved = 0
    public var removed = 0
    public var unchanged = 0
    public var unreadable = 0
    public var livePairs = 0
    public var motionPhotos = 0
    public var bursts = 0
    public var unreadableFolders: [String] = []
    public var linksLeavingRoots = 0
}

/// What a scan reports as it goes.
public enum ScanEvent: Sendable {
    /// A root or a folder in it could not be read: its indexed files are kept as they were.
    case folderUnreadable(path: String, reason: String)
    /// The walk is done: `total` files have to be read.
    case walked(found: Int, toRead: Int)
    case progress(done: Int, total: Int)
    case fileUnreadable(path: String, reason: String)
}

/// Brings the index in line with the roots: incremental by inode, size and mtime. Files that
/// are gone leave the index, except under a folder that could not be read this time. Reads
/// files, never writes them.
public struct LibraryScanner: Sendable {
    public let index: LibraryIndex
    public let roots: MediaRoots

    public init(index: LibraryIndex, roots: MediaRoots) {
        self.index = index
        self.roots = roots
    }

    /// Walks the roots and brings the whole index in line. Blocking (file system and SQLite):
    /// call it off Swift's cooperative pool.
    public func scan(_ report: @Sendable (ScanEvent) -> Void = { _ in }) throws(GpickError) -> ScanSummary {
        // The index's rows are read on another thread while this one walks the tree: a rescan of
        // an unchanged tree is those two and little else.
        let loading = Loading { () throws(GpickError) in try knownRows(roots.containsScanningByDate) }
        var walker = FileWalker(roots: roots)
        walker.walk()
        return try finish(walker, known: loading.value(), report)
    }

    /// The same for the index at `path`, opened (then `opened` is told) while the walk has
    /// already begun: opening it (the WAL, the schema's version) need not come first either.
    public static func scan(indexAt path: String, roots: MediaRoots, opened: @escaping @Sendable (LibraryIndex) -> Void,
                            _ report: @Sendable (ScanEvent) -> Void = { _ in }) throws(GpickError) -> ScanSummary {
        let loading = Loading { () throws(GpickError) -> (LibraryScanner, [String: Known]) in
            let scanner = LibraryScanner(index: try LibraryIndex.open(path: path), roots: roots)
            opened(scanner.index)
            // Kept off the path index: every row is under the roots, and reading the table in
            // order beats a seek into it for each entry of the index.
            return (scanner, try scanner.knownRows(roots.containsScanningByDate))
        }
        var walker = FileWalker(roots: roots)
        walker.walk()
        let (scanner, known) = try loading.value()
        return try scanner.finish(walker, known: known, report)
    }

    private func finish(_ walker: FileWalker, known: [String: Known], _ report: @Sendable (ScanEvent) -> Void) throws(GpickError) -> ScanSummary {
        var summary = ScanSummary()
        summary.linksLeavingRoots = walker.linksLeavingRoots.count
        summary.unreadableFolders = walker.unreadableFolders.map(\.path)
        for f in walker.unreadableFolders { report(.folderUnreadable(path: f.path, reason: f.reason)) }
        let blocked = walker.unreadableFolders.map { $0.path.hasSuffix("/") ? $0.path : $0.path + "/" }
        // Rows under a folder that could not be read are kept: not seen is not deleted.
        let scope = blocked.isEmpty ? known : known.filter { path, _ in !blocked.contains { path.hasPrefix($0) || path + "/" == $0 } }
        // The rows are every row under the roots: if nothing changes, the summary's counts are theirs.
        try reconcile(found: walker.files, known: known, scope: scope, summary: &summary, countsIfUnchanged: Self.counts(known), report)
        return summary
    }

    /// Brings just these paths in line (files, or folders that were deleted or moved away):
    /// what `watch` and `import` need. Paths outside the roots are ignored.
    public func refresh(paths: [String], _ report: @Sendable (ScanEvent) -> Void = { _ in }) throws(GpickError) -> ScanSummary {
        // Each path is two terms of one SQL condition (SQLite caps its depth near 1000): past a
        // few hundred paths a whole scan is the better plan anyway.
        if paths.count > 256 { return try scan(report) }
        var found: [FoundFile] = []
        var scopeFilter: [SQLExpression] = []
        var taken = Set<String>()
        for raw in paths {
            let path = MediaRoots.canonical(raw)
            // Once each (watch can report a path twice): reconcile counts found paths as distinct.
            guard taken.insert(path).inserted, let root = roots.root(of: path),
                  !path.dropFirst(root.count).split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            scopeFilter.append(Column("path") == path)
            scopeFilter.append(MediaRoots(paths: [path]).contains)  // what was a folder there
            if let f = FileWalker.found(path, root: root) { found.append(f) }
        }
        guard !scopeFilter.isEmpty else { return ScanSummary() }
        var summary = ScanSummary()
        let known = try knownRows(scopeFilter.joined(operator: .or))
        try reconcile(found: found, known: known, scope: known, summary: &summary, report)
        return summary
    }

    struct Known {
        var id: Int64; var device: Int64; var inode: Int64; var size: Int64; var mtimeNs: Int64; var addedAt: Int64; var unreadable: String?
        /// What the summary counts: a live pair's photo, a Motion Photo, a burst's lead.
        var paired: Bool; var motion: Bool; var burstLead: Bool
    }

    func knownRows(_ filter: SQLExpression) throws(GpickError) -> [String: Known] {
        try index.read { db in
            var map: [String: Known] = [:]
            // Sized once: growing a dictionary of 10,000 paths rehashes them all several times.
            map.reserveCapacity(try Asset.filter(filter).fetchCount(db))
            let rows = try Row.fetchCursor(db, Asset.select(sql: """
                path, id, device, inode, size, mtimeNs, addedAt, unreadable, pairedMovie IS NOT NULL, motionKind IS NOT NULL, burstLead
                """).filter(filter))
            while let r = try rows.next() {
                map[r[0]] = Known(id: r[1], device: r[2], inode: r[3], size: r[4], mtimeNs: r[5], addedAt: r[6], unreadable: r[7],
                                  paired: r[8], motion: r[9], burstLead: r[10])
            }
            return map
        }
    }

    /// The summary's counts (live pairs, Motion Photos, bursts, unreadable) over `rows`.
    static func counts(_ rows: [String: Known]) -> [Int] {
        var c = [0, 0, 0, 0]
        for k in rows.values {
            if k.paired { c[0] += 1 }
            if k.motion { c[1] += 1 }
            if k.burstLead { c[2] += 1 }
            if k.unreadable != nil { c[3] += 1 }
        }
        return c
    }

    /// Reads what is new or changed among `found`, deletes what of `scope` was not found,
    /// keeps moved files' rows, then links pairs and bursts again.
    func reconcile(found: [FoundFile], known: [String: Known], scope: [String: Known], summary: inout ScanSummary,
                   countsIfUnchanged: [Int]? = nil, _ report: @Sendable (ScanEvent) -> Void) throws(GpickError) {
        summary.found = found.count
        // Which files need reading: new, changed, or unreadable last time (permissions change
        // without touching mtime).
        var toRead: [FoundFile] = []
        var foundInScope = 0
        for f in found {
            if scope[f.path] != nil { foundInScope += 1 }
            if let k = known[f.path], k.device == f.device, k.inode == f.inode, k.size == f.size, k.mtimeNs == f.mtimeNs, k.unreadable == nil {
                summary.unchanged += 1
            } else {
                toRead.append(f)
            }
        }
        // Found paths are distinct (the walk meets each once): every row in scope was found
        // when as many were; only otherwise are the missing ones looked for.
        let gone = foundInScope == scope.count ? [:] : scope.filter { [seen = Set(found.map(\.path))] path, _ in !seen.contains(path) }
        report(.walked(found: found.count, toRead: toRead.count))

        // A file that moved keeps its row (and when it arrived): same inode, size and mtime.
        var goneByInode: [[Int64]: Known] = [:]
        for (_, k) in gone { goneByInode[[k.device, k.inode]] = k }

        let now = Int64(Date().timeIntervalSince1970)
        let assets = Self.readAll(toRead, now: now, report)
        var removedIDs = Set(gone.values.map(\.id))
        var writes: [Asset] = []
        writes.reserveCapacity(assets.count)
        for var a in assets {
            if let k = known[a.path], let why = k.unreadable, a.unreadable == why,
               k.device == a.device, k.inode == a.inode, k.size == a.size, k.mtimeNs == a.mtimeNs {
                summary.unchanged += 1  // read again in case its permissions changed; still the same
                continue
            }
            if let k = known[a.path] {
                a.id = k.id
                a.addedAt = k.addedAt
                summary.updated += 1
            } else if let k = goneByInode[[a.device, a.inode]], k.size == a.size, k.mtimeNs == a.mtimeNs, removedIDs.contains(k.id) {
                a.id = k.id
                a.addedAt = k.addedAt
                removedIDs.remove(k.id)
                summary.moved += 1
            } else {
                summary.added += 1
            }
            if let why = a.unreadable { report(.fileUnreadable(path: a.path, reason: why)) }
            writes.append(a)
        }
        summary.removed = removedIDs.count

        let changed = !writes.isEmpty || !removedIDs.isEmpty
        let writesDone = writes
        let removeIDs = Array(removedIDs)
        let roots = self.roots
        let count = { (db: Database) throws -> [Int] in
            let row = try Row.fetchOne(db, Asset.select(sql: """
                COUNT(pairedMovie), COUNT(motionKind), COALESCE(SUM(burstLead), 0), COUNT(unreadable)
                """).filter(roots.contains))
            return (0..<4).map { row?[$0] ?? 0 }
        }
        // Nothing changed: no write transaction (no lock taken, nothing synced to disk).
        let counts: [Int]
        if changed {
            counts = try index.write { db in
                try Asset.deleteAll(db, keys: removeIDs)
                for var a in writesDone {
                    if a.id != nil { try a.update(db) } else { try a.insert(db) }
                }
                try AssetLinker.link(db)
                return try count(db)
            }
        } else if let countsIfUnchanged {
            counts = countsIfUnchanged
        } else {
            counts = try index.read(count)
        }
        summary.livePairs = counts[0]
        summary.motionPhotos = counts[1]
        summary.bursts = counts[2]
        summary.unreadable = counts[3]
    }

    /// Reads headers on every core; results keep the input order.
    static func readAll(_ files: [FoundFile], now: Int64, _ report: @Sendable (ScanEvent) -> Void) -> [Asset] {
        guard !files.isEmpty else { return [] }
        let results = Slots<Asset>(count: files.count)
        let done = Atomic<Int>(0)
        let step = max(1, files.count / 100)
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            results.set(i, AssetReader.read(files[i], now: now))
            let n = done.add(1, ordering: .relaxed).newValue
            if n % step == 0 || n == files.count { report(.progress(done: n, total: files.count)) }
        }
        return results.values
    }
}

/// Blocking work started on a thread of its own now, its result taken later (blocking too).
/// Invariant: `result` is written once, by the work's thread, before `done` is signalled, and read
/// only after waiting for `done`.
final class Loading<T>: @unchecked Sendable {
    private var result: Result<T, GpickError>?
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () throws(GpickError) -> T) {
        Thread.detachNewThread { [self] in
            result = Result { () throws(GpickError) in try work() }
            done.signal()
        }
    }

    func value() throws(GpickError) -> T {
        done.wait()
        done.signal()  // a second value() does not wait forever
        return try result!.get()
    }
}

/// Fixed slots filled concurrently. Invariant: each index is written by exactly one iteration
/// of `concurrentPerform`, and `values` is read only after it has returned (which orders the
/// writes before the read). The buffer is allocated once, so writers never touch shared state.
final class Slots<T>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<T?>
    init(count: Int) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: nil)
    }
    deinit {
        buffer.deinitialize()
        buffer.deallocate()
    }
    func set(_ i: Int, _ value: T) { buffer[i] = value }
    var values: [T] { buffer.compactMap { $0 } }
}
