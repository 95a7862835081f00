import Dispatch
import FoundationEssentials
import GpickBase
import GstCore
#if canImport(Glibc)
import Glibc
#endif

/// One part of a split recording as `parts.json` lists it: its file (a name in the folder), the
/// wall-clock time of its first frame, and what it holds. A part cut short by a crash (never
/// finished, found again when the recording starts anew) has its length from the file itself and
/// its start from when it was last written to.
public struct RecordedPart: Sendable, Equatable, Codable {
    public var file: String
    public var start: Date
    public var duration: Double
    public var frames: Int
    public var bytes: Int64

    public init(file: String, start: Date, duration: Double, frames: Int, bytes: Int64) {
        (self.file, self.start, self.duration, self.frames, self.bytes) = (file, start, duration, frames, bytes)
    }

    public var end: Date { start.addingTimeInterval(duration) }

    /// A moment as the index writes it: ISO 8601 in UTC, to the nearest millisecond (the same
    /// text however often it is read and written again).
    public static func timeText(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = (ms / 1000, ms % 1000)
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle())
        return String(whole.dropLast()) + cFormat(".%03dZ", Int(fraction))
    }

    enum CodingKeys: String, CodingKey { case file, start, duration, frames, bytes }

    // The start as ISO 8601 in UTC with milliseconds: readable, and sorted as text.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        file = try c.decode(String.self, forKey: .file)
        let text = try c.decode(String.self, forKey: .start)
        guard let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                ?? Date(text, strategy: Date.ISO8601FormatStyle()) else {
            throw DecodingError.dataCorruptedError(forKey: .start, in: c, debugDescription: "\(text) is not an ISO 8601 time")
        }
        start = date
        duration = try c.decode(Double.self, forKey: .duration)
        frames = try c.decode(Int.self, forKey: .frames)
        bytes = try c.decode(Int64.self, forKey: .bytes)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(Self.timeText(start), forKey: .start)
        try c.encode(duration, forKey: .duration)
        try c.encode(frames, forKey: .frames)
        try c.encode(bytes, forKey: .bytes)
    }
}

/// What a lookup found: the part, and how far into it the moment is (seconds).
public struct PartAtTime: Sendable, Equatable {
    public var part: RecordedPart
    public var offset: Double
}

/// `parts.json` beside a split recording's parts, so "what happened at 14:05" is one lookup
/// (`gpick recordings at 14:05 DIR`). It lists every part in the folder by start time; each
/// change (a part written, a part deleted by a loop recording's retention) rewrites it whole and
/// atomically, on a queue of its own, so a reader never sees half an index. Parts of several
/// recordings in one folder share it; two gpick processes writing one folder take turns (a lock
/// beside it).
public final class PartIndex: Sendable {
    public static let fileName = "parts.json"
    public let folder: String
    private let queue = DispatchQueue(label: "gpick.part-index")
    private let failure = Locked<GpickError?>(nil)
    /// Changes whose write failed (a full disk), made again with the next one: the file is
    /// rewritten whole, so one that is written holds them all. Only touched on `queue`.
    private let unwritten = Locked<[@Sendable (inout [RecordedPart]) -> Void]>([])

    public init(folder: String) { self.folder = folder }

    private struct Document: Codable {
        var parts: [RecordedPart]
    }

    /// The index's parts in `folder`, by start time; none when there is no index.
    public static func load(folder: String) throws(GpickError) -> [RecordedPart] {
        let path = "\(folder)/\(fileName)"
        guard let bytes = FileManager.default.contents(atPath: path) else {
            if access(folder, R_OK | X_OK) != 0 { throw GpickError(.input, "\(folder) cannot be read: \(String(cString: strerror(errno)))") }
            return []
        }
        do {
            return try JSONDecoder().decode(Document.self, from: bytes).parts.sorted { $0.start < $1.start }
        } catch {
            throw GpickError(.input, "\(path) is not an index of recorded parts (its JSON does not hold a list of them)")
        }
    }

    /// The part holding the moment `at`, and where in it; nil when no part does.
    public static func part(at moment: Date, in parts: [RecordedPart]) -> PartAtTime? {
        // The last part to start at or before the moment, if it lasts past it.
        guard let part = parts.last(where: { $0.start <= moment }), moment < part.end else { return nil }
        return PartAtTime(part: part, offset: moment.timeIntervalSince(part.start))
    }

    /// A part is complete: listed with its start (wall clock) and what it holds.
    public func written(_ result: RecordingResult, start: Date) {
        let part = RecordedPart(file: Self.name(result.path), start: start, duration: result.duration, frames: result.frames, bytes: result.bytes)
        change { parts in
            parts.removeAll { $0.file == part.file }
            parts.append(part)
        }
    }

    /// A part was deleted: no longer listed.
    public func deleted(_ path: String) {
        let file = Self.name(path)
        change { $0.removeAll { $0.file == file } }
    }

    /// Parts a previous run left that the index lacks (it was killed before it could list them):
    /// listed from the files themselves, their length from the container, their start that far
    /// before they were last written to. Files that do not play are left out.
    public func adopt(_ paths: [String]) {
        queue.async { [self] in
            let listed = Set(((try? Self.load(folder: folder)) ?? []).map(\.file))
            var found: [RecordedPart] = []
            for path in paths where !listed.contains(Self.name(path)) {
                guard let st = fileStatus(path),
                      let info = try? Discoverer.discoverBlocking(path: path, timeout: 5), info.duration > 0 else { continue }
                let duration = Double(info.duration) / 1e9
                let fps = info.streams.first { $0.kind == "video" }?.framerate ?? 0
                let modified = Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
                found.append(RecordedPart(file: Self.name(path), start: modified.addingTimeInterval(-duration), duration: duration,
                                          frames: Int((duration * fps).rounded()), bytes: Int64(st.st_size)))
            }
            guard !found.isEmpty else { return }
            let adopted = found
            let adopting: @Sendable (inout [RecordedPart]) -> Void = { parts in
                for p in adopted where !parts.contains(where: { $0.file == p.file }) { parts.append(p) }
            }
            let edits = unwritten.withLock { $0 } + [adopting]
            let written = apply { parts in for e in edits { e(&parts) } }
            unwritten.withLock { $0 = written ? [] : edits }
        }
    }

    /// Waits until every change asked so far is on disk; the failure to write it, if the last
    /// write failed (a later write that succeeded holds the changes the failed ones had).
    public func settle() async -> GpickError? {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in queue.async { c.resume() } }
        return failure.withLock { $0 }
    }

    private func change(_ edit: @escaping @Sendable (inout [RecordedPart]) -> Void) {
        queue.async { [self] in
            let edits = unwritten.withLock { $0 } + [edit]
            let written = apply { parts in for e in edits { e(&parts) } }
            unwritten.withLock { $0 = written ? [] : edits }
        }
    }

    /// Read, edit and write the index whole, holding the folder's lock (flock on the folder
    /// itself: no lock file left beside the parts), on the index's queue.
    private func apply(_ edit: (inout [RecordedPart]) -> Void) -> Bool {
        let lock = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }
        defer { if lock >= 0 { close(lock) } }
        do throws(GpickError) {
            var parts = (try? Self.load(folder: folder)) ?? []
            edit(&parts)
            parts.sort { $0.start < $1.start }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let bytes: Data
            do { bytes = try encoder.encode(Document(parts: parts)) } catch {
                throw GpickError(.output, "\(folder)/\(Self.fileName) could not be written: \(error)")
            }
            try AtomicWrite.write([UInt8](bytes) + [0x0A], to: try OutputPath("\(folder)/\(Self.fileName)"))
            failure.withLock { $0 = nil }
            return true
        } catch {
            failure.withLock { $0 = error }
            return false
        }
    }

    private static func name(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
