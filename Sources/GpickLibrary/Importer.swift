import CGpickBase
import Foundation
import GRDB
import GpickBase
import GpickFormats
import Glibc

/// What an import reports as it goes.
public enum ImportEvent: Sendable {
    /// `source` is in the library now, at `path` (`moved`: renamed or copied, then the source
    /// removed), and indexed: `asset` is its row in the index, with its id. Reported once the
    /// index has it (files are indexed a few at a time); nil only when the index could not take
    /// it (the error that follows says why) or the file left before it was indexed.
    case imported(source: String, path: String, bytes: Int64, moved: Bool, asset: Asset?)
    /// `source`'s content is in the library already, at `existing`: nothing was written.
    case duplicate(source: String, existing: String)
    /// `source` could not be imported: one line naming it. The others are still imported.
    case failed(source: String, error: GpickError)
    /// Files done of all, and bytes (copies of large files report within the file too).
    case progress(done: Int, total: Int, bytes: Int64, totalBytes: Int64)
}

/// What an import did, for its summary and exit status.
public struct ImportSummary: Sendable, Codable, Equatable {
    public var imported = 0
    public var duplicates = 0
    public var failed = 0
    /// Bytes of the files imported.
    public var bytes: Int64 = 0
    /// The kind of the first failure (what the exit status says), nil when none failed.
    public var firstFailure: GpickError.Kind?

    public init() {}
}

/// `gpick library import`: copies (or moves) photos and videos into `ROOT/YYYY/MM/` by the date
/// they were taken, de-duplicated by content (SHA-256), atomically (a hidden temp file renamed
/// into place, never over an existing file), and indexes each at once. Sources are only read,
/// except that `move` removes each one once its copy is durable. Blocking (file system, SQLite):
/// call `run` off Swift's cooperative pool.
public struct Importer: Sendable {
    public let index: LibraryIndex
    public let roots: MediaRoots
    public let move: Bool

    public init(index: LibraryIndex, roots: MediaRoots, move: Bool = false) {
        self.index = index
        self.roots = roots
        self.move = move
    }

    /// A source as first seen: what decides its place and its turn.
    struct Probe {
        var source: String
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var mtime: timespec
        var isVideo: Bool
        var takenAt: Int64
        var container: MediaMetadata.Container
        var mimeType: String
        var contentIdentifier: String?
    }

    /// Imports `sources` (as the user named them); errors of one file are reported and counted,
    /// the rest still imported. Throws only when nothing can be imported at all (no library
    /// folder, the index unusable).
    public func run(_ sources: [String], _ report: @Sendable (ImportEvent) -> Void = { _ in }) throws(GpickError) -> ImportSummary {
        guard let first = roots.paths.first else { throw GpickError(.usage, "no library folder to import into") }
        var summary = ImportSummary()
        func fail(_ source: String, _ e: GpickError) {
            summary.failed += 1
            if summary.firstFailure == nil { summary.firstFailure = e.kind }
            report(.failed(source: source, error: e))
        }

        // Everything is looked at first: photos go before videos, so that the movie of an Apple
        // pair can follow its photo into the same folder.
        var probes: [Probe] = []
        for s in sources {
            do throws(GpickError) { probes.append(try Self.probe(s)) } catch { fail(s, error) }
        }
        probes = probes.filter { !$0.isVideo } + probes.filter(\.isVideo)
        let total = sources.count
        let totalBytes = probes.reduce(Int64(0)) { $0 + $1.size }
        var done = sources.count - probes.count
        var bytesDone: Int64 = 0
        guard !probes.isEmpty else { return summary }

        let create = roots.videosFolder != nil  // user-dirs' folders are made when missing
        let photoRoot = try ImportPlacement.ensureRoot(first, create: create)
        let videoRoot = try roots.videosFolder.map { v throws(GpickError) in try ImportPlacement.ensureRoot(v, create: create) } ?? photoRoot
        // Canonical again, now that every root we write into exists (a Videos folder made just
        // now, which the roots left out while it was missing, among them).
        let scanner = LibraryScanner(index: index, roots: MediaRoots(paths: roots.paths + [photoRoot, videoRoot]))
        var state = RunState()

        for p in probes {
            let base = bytesDone
            do throws(GpickError) {
                let outcome = try importOne(p, photoRoot: photoRoot, videoRoot: videoRoot, state: &state) { n in
                    report(.progress(done: done, total: total, bytes: base + n, totalBytes: totalBytes))
                }
                switch outcome {
                case .imported(let path, let moved):
                    summary.imported += 1
                    summary.bytes += p.size
                    // Reported when indexed (`flush`), with its row.
                    if let at = state.pending.lastIndex(where: { $0.path == path }) {
                        state.pending[at].imported = (p.source, p.size, moved)
                    }
                case .duplicate(let existing):
                    summary.duplicates += 1
                    report(.duplicate(source: p.source, existing: existing))
                }
            } catch {
                fail(p.source, error)
            }
            done += 1
            bytesDone += p.size
            report(.progress(done: done, total: total, bytes: bytesDone, totalBytes: totalBytes))
            // Indexed as we go, a few at a time (each refresh links pairs over the whole index).
            if state.pending.count >= 32 || state.lastFlush.duration(to: .now) > .seconds(1) {
                try flush(&state, scanner, report)
            }
        }
        try flush(&state, scanner, report)
        return summary
    }

    enum Outcome { case imported(path: String, moved: Bool), duplicate(String) }

    struct Pending {
        var path: String
        var hash: String
        var addedAt: Int64?
        var imported: (source: String, bytes: Int64, moved: Bool)?
    }

    /// What one run remembers between files.
    struct RunState {
        /// Content imported (or found) in this run, by hash: not yet in the index, maybe.
        var hashes: [String: String] = [:]
        /// Where the photo of each content identifier went (or already was): its movie follows.
        var pairFolders: [String: String] = [:]
        /// Placed files to index: path, hash, the time of the import (nil: found, not imported),
        /// and what to report of an imported one once it is indexed.
        var pending: [Pending] = []
        var lastFlush = ContinuousClock.now
        /// Folders cleared of dead imports' temp files in this run.
        var swept = Set<String>()
    }

    // MARK: - One file

    static func probe(_ source: String) throws(GpickError) -> Probe {
        guard !source.isEmpty else { throw GpickError(.usage, "an empty file name was given") }
        let fd = try ContentHash.openForReading(source)
        defer { close(fd) }
        let st = try regularFile(fd, source)
        let meta: MediaMetadata
        do {
            meta = try MetadataReader.read(FileBytes(fd: fd, path: source))
        } catch {
            throw GpickError(.input, "\(source) is not a photo or video (\(AssetReader.reason(error, path: source)))")
        }
        let mtime = Int64(st.st_mtim.tv_sec)
        return Probe(source: source, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                     mtime: st.st_mtim, isVideo: meta.isVideo,
                     takenAt: meta.takenAt.flatMap(AssetReader.unixSeconds) ?? mtime,
                     container: meta.container, mimeType: meta.mimeType, contentIdentifier: meta.contentIdentifier?.uppercased())
    }

    static func regularFile(_ fd: Int32, _ source: String) throws(GpickError) -> stat {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ContentHash.readError(errno, source) }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return st
        case S_IFDIR: throw GpickError(.input, "\(source) is a folder, not a photo or video")
        default: throw GpickError(.input, "\(source) is not a regular file, not a photo or video")
        }
    }

    func importOne(_ p: Probe, photoRoot: String, videoRoot: String, state: inout RunState,
                   progress: (Int64) -> Void) throws(GpickError) -> Outcome {
        let fd = try ContentHash.openForReading(p.source)
        defer { close(fd) }
        let st = try Self.regularFile(fd, p.source)
        guard UInt64(st.st_dev) == p.device, UInt64(st.st_ino) == p.inode, Int64(st.st_size) == p.size,
              st.st_mtim.tv_sec == p.mtime.tv_sec, st.st_mtim.tv_nsec == p.mtime.tv_nsec else {
            throw GpickError(.input, "\(p.source) changed while it was being imported; nothing was written")
        }
        let hash = try ContentHash.sha256(fd: fd, path: p.source)
        if let existing = try existingCopy(hash: hash, size: p.size, state: state) {
            if !p.isVideo, let id = p.contentIdentifier { state.pairFolders[id] = parent(existing) }
            return .duplicate(existing)
        }

        // The folder: a pair's movie beside its photo; else ROOT/YYYY/MM by the date taken.
        let folder: String
        if p.isVideo, let id = p.contentIdentifier, let beside = try photoFolder(contentIdentifier: id, state: state) {
            folder = beside
        } else {
            let root = p.isVideo ? videoRoot : photoRoot
            folder = try ImportPlacement.ensureFolder(ImportPlacement.monthFolder(p.takenAt), in: root)
        }
        let folderFD = try ImportPlacement.openFolder(folder)
        defer { close(folderFD) }
        if state.swept.insert(folder).inserted { ImportPlacement.sweepLeftovers(folderFD) }

        let name = ImportPlacement.importName(p.source, container: p.container, mimeType: p.mimeType)
        var moved = false
        var placed: String?
        // --move on one file system: a rename, and the file is the same file.
        if move, isPlainFile(p.source) {
            switch try place(name, in: folder, folderFD: folderFD, hash: hash, size: p.size, state: &state, {
                to throws(GpickError) in ImportPlacement.renameWithoutReplacing(AT_FDCWD, p.source, folderFD, to)
            }) {
            case .placed(let path):
                placed = path
                moved = true
            case .duplicate(let existing):
                return .duplicate(existing)
            case .otherFileSystem:
                break
            }
        }
        if placed == nil {
            let temp = try ImportPlacement.copyToTemp(sourceFD: fd, source: p.source, sourceStat: st, folderFD: folderFD,
                                                      folder: folder, name: name, expectedHash: hash, progress: progress)
            let result: Placement
            do throws(GpickError) {
                result = try place(name, in: folder, folderFD: folderFD, hash: hash, size: p.size, state: &state) { to in
                    ImportPlacement.renameWithoutReplacing(folderFD, temp, folderFD, to)
                }
            } catch {
                _ = unlinkat(folderFD, temp, 0)
                throw error
            }
            switch result {
            case .placed(let path): placed = path
            case .duplicate(let existing):
                _ = unlinkat(folderFD, temp, 0)
                return .duplicate(existing)
            case .otherFileSystem:
                _ = unlinkat(folderFD, temp, 0)
                throw GpickError(.output, "cannot rename into \(folder)")
            }
        }
        guard let path = placed else { throw GpickError(.runtime, "\(p.source) was not placed") }
        // The new name is durable before anything else happens (the source's removal above all).
        try sys("write", folder) { fsync(folderFD) }
        state.hashes[hash] = path
        state.pending.append(Pending(path: path, hash: hash, addedAt: Int64(Date().timeIntervalSince1970)))
        if !p.isVideo, let id = p.contentIdentifier { state.pairFolders[id] = folder }
        if move && !moved {
            var code: Int32 = 0
            repeat { code = unlink(p.source) == 0 ? 0 : errno } while code == EINTR
            guard code == 0 || code == ENOENT else {
                throw GpickError(.output, "\(p.source) was copied to \(path) but cannot be removed: \(String(cString: strerror(code)))")
            }
            moved = true
        }
        return .imported(path: path, moved: moved)
    }

    enum Placement { case placed(String), duplicate(String), otherFileSystem }

    /// Tries `NAME`, `NAME (1)`… with `rename` (which must never replace) until one is free. An
    /// existing file there with the same content makes the source a duplicate of it.
    func place(_ name: String, in folder: String, folderFD: Int32, hash: String, size: Int64, state: inout RunState,
               _ rename: (String) throws(GpickError) -> Int32) throws(GpickError) -> Placement {
        for i in 0..<10_000 {
            let candidate = ImportPlacement.candidate(name, i)
            var st = stat()
            if fstatat(folderFD, candidate, &st, AT_SYMLINK_NOFOLLOW) == 0 {
                if st.st_mode & S_IFMT == S_IFREG, Int64(st.st_size) == size,
                   (try? ContentHash.sha256(path: folder + "/" + candidate)) == hash {
                    let existing = folder + "/" + candidate
                    state.pending.append(Pending(path: existing, hash: hash))  // there but perhaps not indexed
                    state.hashes[hash] = existing
                    return .duplicate(existing)
                }
                continue
            }
            switch try rename(candidate) {
            case 0: return .placed(folder + "/" + candidate)
            case EEXIST: continue  // taken meanwhile
            case EXDEV: return .otherFileSystem
            case let code: throw SyscallError.error(errno: code, "rename into", folder + "/" + candidate)
            }
        }
        throw GpickError(.output, "no free name for \(name) in \(folder)")
    }

    /// A regular file itself, not a link to one (renaming a link would move the link).
    func isPlainFile(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    func parent(_ path: String) -> String { (path as NSString).deletingLastPathComponent }

    // MARK: - De-duplication

    /// The library's copy of this content, if any: this run's imports, then indexed assets of
    /// the same size under the roots, whose hashes are computed (and stored) as needed.
    func existingCopy(hash: String, size: Int64, state: RunState) throws(GpickError) -> String? {
        if let path = state.hashes[hash] { return path }
        let roots = roots
        let rows = try index.read { db in
            try Row.fetchAll(db, Asset.select(sql: "id, path, contentHash, mtimeNs").filter(Asset.Columns.size == size).filter(roots.contains))
        }
        for row in rows {
            let id: Int64 = row[0], path: String = row[1], known: String? = row[2], mtimeNs: Int64 = row[3]
            if let known {
                if known == hash { return path }
                continue
            }
            // Hashed now; kept when the file is still what the row says (else a scan will tell).
            guard let fd = try? ContentHash.openForReading(path) else { continue }
            defer { close(fd) }
            var st = stat()
            guard fstat(fd, &st) == 0, Int64(st.st_size) == size, let theirs = try? ContentHash.sha256(fd: fd, path: path) else { continue }
            var after = stat()
            let unchanged = fstat(fd, &after) == 0 && Self.nanoseconds(after.st_mtim) == mtimeNs && Self.nanoseconds(st.st_mtim) == mtimeNs
            if unchanged {
                try index.write { db in
                    try db.execute(sql: "UPDATE asset SET contentHash = ? WHERE id = ? AND mtimeNs = ?", arguments: [theirs, id, mtimeNs])
                }
            }
            if theirs == hash { return path }
        }
        return nil
    }

    static func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }

    /// The folder of the photo with this content identifier: imported in this run, or indexed.
    func photoFolder(contentIdentifier id: String, state: RunState) throws(GpickError) -> String? {
        if let folder = state.pairFolders[id] { return folder }
        let roots = roots
        let path = try index.read { db in
            try String.fetchOne(db, Asset.select(Asset.Columns.path)
                .filter(Asset.Columns.kind == Asset.Kind.photo.rawValue)
                .filter(Asset.Columns.contentIdentifier == id).filter(roots.contains).order(Asset.Columns.id))
        }
        guard let path, isDirectory(parent(path)) == true else { return nil }
        return parent(path)
    }

    // MARK: - Indexing

    /// Indexes what was placed, stamps the rows with their hash and the time of the import, and
    /// reports each imported file with its row. When the index fails, the files placed are still
    /// reported (they are in the library folder, and the next scan indexes them), then the error.
    func flush(_ state: inout RunState, _ scanner: LibraryScanner, _ report: (ImportEvent) -> Void) throws(GpickError) {
        state.lastFlush = .now
        guard !state.pending.isEmpty else { return }
        let placed = state.pending
        state.pending.removeAll()
        let pending = placed.map { (path: MediaRoots.canonical($0.path), hash: $0.hash, addedAt: $0.addedAt) }
        var rows: [String: Asset] = [:]
        defer {
            for (p, canonical) in zip(placed, pending) {
                guard let done = p.imported else { continue }
                report(.imported(source: done.source, path: p.path, bytes: done.bytes, moved: done.moved, asset: rows[canonical.path]))
            }
        }
        do {
            _ = try scanner.refresh(paths: pending.map(\.path))
        } catch {
            // Another process (a watch) may have indexed the same file between our read and write.
            _ = try scanner.refresh(paths: pending.map(\.path))
        }
        rows = try index.write { db in
            for p in pending {
                if let added = p.addedAt {
                    try db.execute(sql: "UPDATE asset SET contentHash = ?, addedAt = ? WHERE path = ?", arguments: [p.hash, added, p.path])
                } else {
                    try db.execute(sql: "UPDATE asset SET contentHash = ? WHERE path = ? AND contentHash IS NULL", arguments: [p.hash, p.path])
                }
            }
            let imported = pending.enumerated().filter { placed[$0.offset].imported != nil }.map(\.element.path)
            let assets = try Asset.filter(imported.contains(Asset.Columns.path)).fetchAll(db)
            return Dictionary(assets.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }
}
