import Dispatch
import FoundationEssentials
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// What a loop recording keeps of its finished parts (`record --split 60 --keep 24h`, as a
/// dashcam or Motion keeps its last hours): parts that ended at most `maxAge` seconds ago, at
/// most `maxBytes` of them together, and at least `minFree` (a fraction of the disk) left free.
/// The oldest go first; the newest finished part always stays, and the part being written is
/// never among them (it comes on top of `maxBytes`: at most one part more).
public struct PartRetention: Sendable, Equatable {
    public var maxAge: Double?
    public var maxBytes: Int64?
    public var minFree: Double?

    public init(maxAge: Double? = nil, maxBytes: Int64? = nil, minFree: Double? = nil) {
        (self.maxAge, self.maxBytes, self.minFree) = (maxAge, maxBytes, minFree)
    }

    public var keepsEverything: Bool { maxAge == nil && maxBytes == nil && minFree == nil }

    /// A finished part: its file, its size, and when it was complete.
    public struct Part: Sendable, Equatable {
        public var path: String
        public var bytes: Int64
        public var ended: Date
        public init(path: String, bytes: Int64, ended: Date) { (self.path, self.bytes, self.ended) = (path, bytes, ended) }
    }

    /// How many of `parts` (oldest first) go, at `now`, with the disk's `available` and `total`
    /// bytes (nil: not known, `minFree` not applied).
    public func expired(_ parts: [Part], now: Date, disk: (available: Int64, total: Int64)?) -> Int {
        let last = parts.count - 1  // the newest stays
        var n = 0
        if let maxAge {
            while n < last, now.timeIntervalSince(parts[n].ended) > maxAge { n += 1 }
        }
        if let maxBytes {
            var total = parts[n...].reduce(0) { $0 + $1.bytes }
            while n < last, total > maxBytes { total -= parts[n].bytes; n += 1 }
        }
        if let minFree, let disk, disk.total > 0 {
            var available = disk.available + parts[..<n].reduce(0) { $0 + $1.bytes }
            while n < last, Double(available) / Double(disk.total) < minFree { available += parts[n].bytes; n += 1 }
        }
        return max(0, n)
    }
}

/// Applies a retention to a split recording's parts as each is complete: deletes the oldest that
/// it no longer keeps, in order, off the cooperative pool (on a queue of its own), and tells
/// `deleted` each path it removed.
public final class PartKeeper: Sendable {
    private let retention: PartRetention
    private let folder: String
    private let kept = Locked<[PartRetention.Part]>([])
    private let queue = DispatchQueue(label: "gpick.part-keeper")
    private let deleted: @Sendable (String) -> Void

    /// `earlier`: parts a previous run of the same recording left (oldest first), kept or
    /// deleted by the same rule, as if this run had written them (ended when last modified).
    public init(_ retention: PartRetention, folder: String, earlier: [String] = [], deleted: @escaping @Sendable (String) -> Void) {
        self.retention = retention
        self.folder = folder
        self.deleted = deleted
        kept.withLock { parts in
            for path in earlier {
                guard let st = fileStatus(path) else { continue }
                parts.append(PartRetention.Part(path: path, bytes: Int64(st.st_size), ended: Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec))))
            }
        }
    }

    /// A part is complete: kept, and the oldest that are no longer kept deleted.
    public func written(_ result: RecordingResult) { written(path: result.path, bytes: result.bytes) }

    /// A file is complete (a part, a motion clip): kept, and the oldest no longer kept deleted.
    public func written(path: String, bytes: Int64) {
        let part = PartRetention.Part(path: path, bytes: bytes, ended: Date())
        queue.async { [self] in
            var st = statvfs()
            let disk = statvfs(folder, &st) == 0
                ? (available: Int64(st.f_bavail) * Int64(st.f_frsize), total: Int64(st.f_blocks) * Int64(st.f_frsize)) : nil
            let gone = kept.withLock { parts -> [PartRetention.Part] in
                parts.append(part)
                let n = retention.expired(parts, now: Date(), disk: disk)
                defer { parts.removeFirst(n) }
                return Array(parts.prefix(n))
            }
            for p in gone where unlink(p.path) == 0 || errno == ENOENT { deleted(p.path) }
        }
    }

    /// The disk is short of `need` bytes (`available` now): deletes the oldest finished parts, the
    /// newest too if it must (never the one being written), until it is not. Returns the space
    /// then available (read again by `space` after each deletion). Blocks: call it off the pool.
    func makeRoom(_ need: Int64, available: Int64, space: @Sendable () -> Int64?) -> Int64 {
        queue.sync {
            var available = available
            while available < need {
                guard let oldest = kept.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { break }
                if unlink(oldest.path) == 0 || errno == ENOENT { deleted(oldest.path) }
                available = space() ?? available + oldest.bytes
            }
            return available
        }
    }

    /// Waits until every deletion asked so far is done.
    public func settle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { c.resume() } }
    }
}
