import CGpickBase
import Foundation
import GRDB
import GpickBase
import Glibc
import Synchronization

/// What a watch reports.
public enum WatchEvent: Sendable {
    /// The first scan is done and `folders` folders are watched: changes are indexed from now on.
    case ready(ScanSummary, folders: Int)
    /// A scan (the first, or after an overflow) is reading files.
    case scanning(done: Int, total: Int)
    /// A file was indexed: new, or changed.
    case indexed(path: String, id: Int64)
    /// A file left the index (deleted, or moved out of the library).
    case removed(path: String)
    /// A file moved within the library: same row, same id.
    case moved(from: String, to: String, id: Int64)
    /// A file is indexed, but could not be read (it stays, as unreadable).
    case unreadable(path: String, reason: String)
    /// A folder could not be read or watched: its files stay in the index as they were.
    case folderUnreadable(path: String, reason: String)
    /// The kernel's event queue overflowed (or too much changed at once): the roots were scanned anew.
    case rescanned(ScanSummary, reason: String)
    /// Something the user should know that does not stop the watch (a limit, a retried error).
    case notice(String)
}

/// `gpick library watch`: keeps the index live with inotify. A first scan, then every change
/// under the roots is indexed once it has settled (a file being written is read once complete,
/// on IN_CLOSE_WRITE), through `LibraryScanner.refresh(paths:)`. Folders that appear are watched
/// as they appear; hidden folders are not, and links are never followed (a folder linked from
/// elsewhere in the roots is watched where it is). When the kernel's queue overflows, or more
/// changes pile up than a refresh should take, the roots are scanned anew: memory stays bounded
/// however many events come.
public final class LibraryWatcher: Sendable {
    public let index: LibraryIndex
    public let roots: MediaRoots
    /// Quiet time after the last event before a batch is indexed.
    public let settle: Duration
    /// The longest a change waits while events keep coming.
    public let maxDelay: Duration
    /// More changed paths than this at once, and a scan is cheaper (and bounded).
    public let maxPending: Int

    /// The self-pipe `stop` writes to, which the blocking loop polls beside inotify.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopped = Atomic<Bool>(false)

    public init(index: LibraryIndex, roots: MediaRoots, settle: Duration = .milliseconds(200),
                maxDelay: Duration = .seconds(2), maxPending: Int = 200) throws(GpickError) {
        self.index = index
        self.roots = roots
        self.settle = settle
        self.maxDelay = maxDelay
        self.maxPending = maxPending
        var fds: [Int32] = [-1, -1]
        try sys("create a pipe for", "the watch", kind: .runtime) { pipe(&fds) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Ends `run` (from any thread, at any time, before or during it).
    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    public var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    /// Watches until `stop`. Blocking: run it on a thread of its own, never on Swift's pool.
    /// Throws when the watch cannot start (no inotify, the index unusable); later failures of
    /// the index are reported and retried.
    public func run(_ report: @escaping @Sendable (WatchEvent) -> Void) throws(GpickError) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            let why = errno == EMFILE ? "too many inotify instances (raise fs.inotify.max_user_instances)" : String(cString: strerror(errno))
            throw GpickError(.runtime, "cannot watch the library: \(why)")
        }
        defer { close(fd) }
        var loop = WatchLoop(fd: fd, watcher: self, report: report)
        // Watches first, then the scan: nothing that changes meanwhile is missed.
        for root in roots.paths { _ = loop.watches.addTree(root) }
        let summary = try LibraryScanner(index: index, roots: roots).scan { e in WatchLoop.forward(e, report, first: true) }
        guard !isStopped else { return }
        report(.ready(summary, folders: loop.watches.count))
        try loop.run()
    }

    fileprivate func drainWake() {
        var buf = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buf, buf.count) > 0 {}
    }

    fileprivate var wakeFD: Int32 { wakeRead }
}

// MARK: - The loop

/// The blocking loop: inotify and the stop pipe polled together; events batched by path until
/// they settle, then indexed.
struct WatchLoop {
    let fd: Int32
    let watcher: LibraryWatcher
    let report: @Sendable (WatchEvent) -> Void
    var watches: Watches
    let scanner: LibraryScanner

    /// Paths that changed since the last batch (files, and folders deleted or moved away).
    var pending = Set<String>()
    var rescan: String?
    var firstEvent: ContinuousClock.Instant?
    var lastEvent = ContinuousClock.now
    /// After a failed batch: not before then.
    var retryAt: ContinuousClock.Instant?
    var failures = 0

    init(fd: Int32, watcher: LibraryWatcher, report: @escaping @Sendable (WatchEvent) -> Void) {
        self.fd = fd
        self.watcher = watcher
        self.report = report
        watches = Watches(fd: fd, roots: watcher.roots, report: report)
        scanner = LibraryScanner(index: watcher.index, roots: watcher.roots)
    }

    mutating func run() throws(GpickError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        while !watcher.isStopped {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: watcher.wakeFD, events: Int16(POLLIN), revents: 0)]
            let r = poll(&fds, 2, timeoutMilliseconds())
            if r < 0 && errno != EINTR { throw SyscallError.error(errno: errno, "wait for changes in", "the library", kind: .runtime) }
            if fds[1].revents != 0 { watcher.drainWake() }
            if watcher.isStopped { break }
            if fds[0].revents != 0 {
                let n = read(fd, buffer.baseAddress, buffer.count)
                if n > 0 {
                    handle(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                } else if n < 0 && errno != EAGAIN && errno != EINTR {
                    throw SyscallError.error(errno: errno, "read changes in", "the library", kind: .runtime)
                }
            }
            if let due = dueAt(), due <= .now { flush() }
        }
    }

    /// When the batch is due: after `settle` of quiet, or `maxDelay` after its first event.
    func dueAt() -> ContinuousClock.Instant? {
        guard let first = firstEvent else { return nil }
        var due = min(lastEvent + watcher.settle, first + watcher.maxDelay)
        if let retryAt { due = max(due, retryAt) }
        return due
    }

    func timeoutMilliseconds() -> Int32 {
        guard let due = dueAt() else { return -1 }
        let left = ContinuousClock.now.duration(to: due)
        guard left > .zero else { return 0 }
        let (s, atto) = left.components
        return Int32(min(60_000, s * 1000 + atto / 1_000_000_000_000_000 + 1))
    }

    // MARK: Events

    mutating func handle(_ bytes: UnsafeRawBufferPointer) {
        var off = 0
        while off + 16 <= bytes.count {
            let wd = bytes.loadUnaligned(fromByteOffset: off, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: off + 4, as: UInt32.self)
            let len = Int(bytes.loadUnaligned(fromByteOffset: off + 12, as: UInt32.self))
            let end = min(bytes.count, off + 16 + len)
            let name = String(decoding: bytes[(off + 16)..<end].prefix { $0 != 0 }, as: UTF8.self)
            off = off + 16 + len
            event(wd: wd, mask: mask, name: name)
        }
    }

    mutating func event(wd: Int32, mask: UInt32, name: String) {
        let now = ContinuousClock.now
        lastEvent = now
        if mask & Inotify.queueOverflow != 0 {
            needRescan("the system's queue of file events overflowed")
            return
        }
        if mask & Inotify.ignored != 0 {
            watches.forget(wd)
            return
        }
        guard let dir = watches.paths[wd] else { return }
        if mask & (Inotify.deleteSelf | Inotify.moveSelf | Inotify.unmount) != 0 {
            // A folder's own removal is handled through its parent; a root has none.
            if watches.isRoot(dir) {
                watches.removeTree(dir)
                report(.notice("the library folder \(dir) was moved, deleted or unmounted: its files stay in the index as they were, and it is no longer watched"))
            }
            return
        }
        guard !name.isEmpty, !name.hasPrefix(".") else { return }
        let path = dir + "/" + name
        if mask & Inotify.isDir != 0 {
            if mask & (Inotify.movedFrom | Inotify.delete) != 0 {
                watches.removeTree(path)
                add(path)
            } else if mask & (Inotify.create | Inotify.movedTo) != 0 || (mask & Inotify.attrib != 0 && watches.descriptors[path] == nil) {
                // New (or newly readable): watched before it is read, so nothing written into it is missed.
                for file in watches.addTree(path) { add(file) }
            }
            return
        }
        guard FileWalker.isMedia(name) else { return }
        if mask & (Inotify.closeWrite | Inotify.movedTo | Inotify.movedFrom | Inotify.delete | Inotify.attrib) != 0 {
            add(path)
        } else if mask & Inotify.create != 0 {
            // A file being written is indexed when it is closed; a link (hard or symbolic) is complete now.
            var st = stat()
            if lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK || st.st_nlink > 1 { add(path) }
        }
    }

    mutating func add(_ path: String) {
        if firstEvent == nil { firstEvent = .now }
        guard rescan == nil else { return }
        pending.insert(path)
        if pending.count > watcher.maxPending { needRescan("\(pending.count) files changed at once") }
    }

    mutating func needRescan(_ reason: String) {
        if firstEvent == nil { firstEvent = .now }
        if rescan == nil { rescan = reason }
        pending.removeAll()
    }

    // MARK: Indexing a batch

    mutating func flush() {
        let batch = pending
        let reason = rescan
        let report = report
        do throws(GpickError) {
            if let reason {
                watches.resync()
                let before = try rows(watcher.roots.contains)
                let summary = try scanner.scan { e in WatchLoop.forward(e, report, first: false) }
                let after = try rows(watcher.roots.contains)
                report(.rescanned(summary, reason: reason))
                diff(before, after)
            } else {
                let paths = Array(batch)
                let filter = paths.map { Column("path") == $0 || MediaRoots(paths: [$0]).contains }.joined(operator: .or)
                let before = try rows(filter)
                _ = try scanner.refresh(paths: paths)
                let after = try rows(filter)
                diff(before, after)
            }
        } catch {
            // The index is busy (another process writing) or failing: keep the batch and retry,
            // less and less often.
            failures += 1
            let wait = Duration.milliseconds(min(30_000, 250 << min(failures, 7)))
            retryAt = .now + wait
            report(.notice("\(error.message); trying again in \(wait.components.seconds) s"))
            return
        }
        failures = 0
        retryAt = nil
        pending.subtract(batch)
        if reason != nil && rescan == reason { rescan = nil }
        firstEvent = pending.isEmpty && rescan == nil ? nil : .now
    }

    /// What of a scan's events a watch passes on.
    static func forward(_ e: ScanEvent, _ report: @Sendable (WatchEvent) -> Void, first: Bool) {
        switch e {
        case .folderUnreadable(let path, let why): report(.folderUnreadable(path: path, reason: why))
        case .progress(let done, let total): report(.scanning(done: done, total: total))
        case .fileUnreadable(let path, let why): if first { report(.unreadable(path: path, reason: why)) }  // later: by the diff
        case .walked: break
        }
    }

    struct RowState: Equatable {
        var id: Int64
        var device: Int64
        var inode: Int64
        var size: Int64
        var mtimeNs: Int64
        var unreadable: String?
    }

    func rows(_ filter: SQLExpression) throws(GpickError) -> [String: RowState] {
        try watcher.index.read { db in
            var map: [String: RowState] = [:]
            let cursor = try Row.fetchCursor(db, Asset.select(sql: "path, id, device, inode, size, mtimeNs, unreadable").filter(filter))
            while let r = try cursor.next() {
                map[r[0]] = RowState(id: r[1], device: r[2], inode: r[3], size: r[4], mtimeNs: r[5], unreadable: r[6])
            }
            return map
        }
    }

    /// One line per change between two states of the same rows.
    func diff(_ before: [String: RowState], _ after: [String: RowState]) {
        var beforeByID: [Int64: String] = [:]
        for (path, row) in before { beforeByID[row.id] = path }
        var movedIDs = Set<Int64>()
        for (path, row) in after.sorted(by: { $0.key < $1.key }) {
            if let old = before[path], old == row { continue }
            if before[path] == nil, let from = beforeByID[row.id], after[from] == nil {
                movedIDs.insert(row.id)
                report(.moved(from: from, to: path, id: row.id))
            } else if let why = row.unreadable {
                report(.unreadable(path: path, reason: why))
            } else {
                report(.indexed(path: path, id: row.id))
            }
        }
        for (path, row) in before.sorted(by: { $0.key < $1.key }) where after[path] == nil && !movedIDs.contains(row.id) {
            report(.removed(path: path))
        }
    }
}
