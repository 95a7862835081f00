import FoundationEssentials
import Glibc
import GstCore

/// What a split recording wrote: its parts in order.
public struct SplitRecordingResult: Sendable {
    public var parts: [RecordingResult]
    public var frames: Int { parts.reduce(0) { $0 + $1.frames } }
    public var duration: Double { parts.reduce(0) { $0 + $1.duration } }
    /// Set when the source failed and the last part was finalised with what it had.
    public var sourceError: String? { parts.last?.sourceError }
}

/// A recording in parts of a fixed length: NAME-001.ext, NAME-002.ext, … Each part is a whole
/// file with its own encoder (so it starts on a keyframe and plays alone, and a crash costs at
/// most the part being written). Consecutive parts meet at one boundary in output time: a frame
/// goes to exactly one part, none is lost between them.
///
/// The next part is attached a second before its boundary and drops frames until then, so only
/// one encoder runs outside that second.
///
/// `@unchecked Sendable` invariant: mutable state is guarded by `lock`; the parts are driven by
/// one task (`run`), and `requestStop` only sets a flag and forwards to the parts.
public final class SplitRecording: @unchecked Sendable {
    public let output: OutputPath
    private unowned let session: CaptureSession
    private let settings: RecordingSettings
    private let partLength: UInt64
    private let total: UInt64?
    private let lock = Lock()
    private var current: MovieRecording
    private var next: MovieRecording?
    private var done: [RecordingResult] = []
    private var stopRequested = false
    private var outcome: Result<SplitRecordingResult, GpickError>?
    private var waiters: [CheckedContinuation<Result<SplitRecordingResult, GpickError>, Never>] = []
    private var partWritten: (@Sendable (RecordingResult) -> Void)?

    /// Starts part 1 at once. `partSeconds` is rounded to whole frames; `settings.duration`, if
    /// set, is the length of the whole recording.
    public static func start(in session: CaptureSession, to output: OutputPath, settings: RecordingSettings,
                             partSeconds: Double) async throws(GpickError) -> SplitRecording {
        guard partSeconds > 0, partSeconds.isFinite else {
            throw GpickError(.usage, "part length \(partSeconds) must be a positive number of seconds")
        }
        let format = session.format
        var partSettings = settings
        partSettings.duration = nil
        // Header space for one part (+10 %, at least 5 s), as for a recording of that length.
        if partSettings.values["reserve"] == nil {
            partSettings.values["reserve"] = "\(partSeconds + max(5, partSeconds / 10))s"
        }
        let first = try await MovieRecording.start(in: session, to: output.numbered(1, of: 1), settings: partSettings)
        let total = settings.duration.map { UInt64(format.frames(in: $0)) * format.frameDuration }
        let split = SplitRecording(session: session, output: output, settings: partSettings,
                                   partLength: UInt64(format.frames(in: partSeconds)) * format.frameDuration,
                                   total: total, first: first)
        Task { await split.run() }  // waits (sleeps and awaits) only: nothing blocks the pool
        return split
    }

    private init(session: CaptureSession, output: OutputPath, settings: RecordingSettings,
                 partLength: UInt64, total: UInt64?, first: MovieRecording) {
        self.session = session
        self.output = output
        self.settings = settings
        self.partLength = partLength
        self.total = total
        self.current = first
    }

    /// Told (on the recording's task) when each part is complete on disk.
    public func onPartWritten(_ handler: @escaping @Sendable (RecordingResult) -> Void) {
        lock.withLock { partWritten = handler }
    }

    /// Ends the recording now: the part being written keeps every frame up to this moment.
    public func requestStop() {
        let parts = lock.withLock { () -> [MovieRecording] in
            stopRequested = true
            return [current] + (next.map { [$0] } ?? [])
        }
        for p in parts { p.requestStop() }
    }

    /// Frames in the finished parts and the current one; bytes on disk likewise.
    public var progress: (frames: Int, bytes: Int64) {
        let (finished, cur) = lock.withLock { (done, current) }
        let p = cur.progress
        return (finished.reduce(0) { $0 + $1.frames } + p.frames, finished.reduce(0) { $0 + $1.bytes } + p.bytes)
    }

    /// Waits for the last part. Throws the first part's failure (the parts before it are kept).
    public func finished() async throws(GpickError) -> SplitRecordingResult {
        try await withCheckedContinuation { c in
            lock.lock()
            if let outcome { lock.unlock(); c.resume(returning: outcome) } else { waiters.append(c); lock.unlock() }
        }.get()
    }

    // MARK: driving the parts (one task)

    private func run() async {
        let result: Result<SplitRecordingResult, GpickError>
        do throws(GpickError) {
            result = .success(try await drive())
        } catch {
            result = .failure(error)
        }
        let ws = lock.withLock {
            outcome = result
            defer { waiters.removeAll() }
            return waiters
        }
        for w in ws { w.resume(returning: result) }
    }

    private func drive() async throws(GpickError) -> SplitRecordingResult {
        // Part 1's first frame fixes every boundary: t0 + k × part length.
        var t0: UInt64?
        while t0 == nil, current.finishedIfDone == nil, !lock.withLock({ stopRequested }) {
            t0 = current.firstFrameTime
            if t0 == nil { try? await Task.sleep(nanoseconds: 5_000_000) }
        }
        let end = t0.flatMap { t in total.map { t + $0 } }
        var index = 1
        var boundary = t0.map { $0 + partLength }
        while true {
            let part = lock.withLock { current }
            if let b = boundary, let e = end, b >= e { boundary = nil }
            if let b = boundary { part.end(before: b) } else if let e = end { part.end(before: e) }
            var following: MovieRecording?
            if let b = boundary {
                let stop = end.map { min($0, b + partLength) } ?? b + partLength
                following = try await startNext(index: index + 1, at: b, until: stop, whileWriting: part)
            }
            do throws(GpickError) {
                let r = try await part.finished()
                lock.withLock { done.append(r); return partWritten }?(r)
            } catch {
                // A part that never got a frame: the recording ended at its boundary (a stop, a
                // lost or ended source). Anything else is the recording's failure.
                if part.progress.frames == 0, !lock.withLock({ done.isEmpty }) { break }
                if let f = following { f.requestStop(); _ = try? await f.finished() }
                throw error
            }
            guard let f = following, let b = boundary else { break }
            lock.withLock { current = f; next = nil }
            index += 1
            boundary = b + partLength
        }
        return SplitRecordingResult(parts: lock.withLock { done })
    }

    /// Attaches part `index` a second before `start` (it drops earlier frames), unless the
    /// recording is stopping or the current part ends early.
    private func startNext(index: Int, at start: UInt64, until stop: UInt64,
                           whileWriting part: MovieRecording) async throws(GpickError) -> MovieRecording? {
        let lead: UInt64 = 1_000_000_000
        while let now = session.pipeline?.runningTime, now + lead < start {
            if lock.withLock({ stopRequested }) || part.finishedIfDone != nil { return nil }
            try? await Task.sleep(nanoseconds: min(50_000_000, start - lead - now))
        }
        if lock.withLock({ stopRequested }) || part.finishedIfDone != nil { return nil }
        var s = settings
        s.startAt = start
        s.stopAt = stop
        let f = try await MovieRecording.start(in: session, to: output.numbered(index, of: index), settings: s)
        if lock.withLock({ next = f; return stopRequested }) { f.requestStop() }
        return f
    }
}
