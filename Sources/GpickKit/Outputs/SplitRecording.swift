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
/// one encoder runs outside that second. One task drives the parts (`run`); `requestStop` only
/// fires a signal and forwards to the parts.
public final class SplitRecording: Sendable {
    public let output: OutputPath
    /// The session, for the next part: weak, and checked (a split recording may outlive it).
    private weak let session: CaptureSession?
    private let settings: RecordingSettings
    private let partLength: UInt64
    private let total: UInt64?
    private let state: Locked<State>
    private let stopRequested = Signal()

    /// Read and written only under `state`'s lock.
    private struct State: ~Copyable {
        var current: MovieRecording
        var next: MovieRecording?
        var done: [RecordingResult] = []
        var outcome: Result<SplitRecordingResult, GpickError>?
        var waiters: [CheckedContinuation<Result<SplitRecordingResult, GpickError>, Never>] = []
        var partWritten: (@Sendable (RecordingResult) -> Void)?
    }

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
        Task { await split.run() }  // waits (for signals and the parts) only: nothing blocks the pool
        return split
    }

    private init(session: CaptureSession, output: OutputPath, settings: RecordingSettings,
                 partLength: UInt64, total: UInt64?, first: MovieRecording) {
        self.session = session
        self.output = output
        self.settings = settings
        self.partLength = partLength
        self.total = total
        self.state = Locked(State(current: first))
    }

    /// Told (on the recording's task) when each part is complete on disk.
    public func onPartWritten(_ handler: @escaping @Sendable (RecordingResult) -> Void) {
        state.withLock { $0.partWritten = handler }
    }

    /// Ends the recording now: the part being written keeps every frame up to this moment.
    public func requestStop() {
        stopRequested.fire()
        let parts = state.withLock { [$0.current] + ($0.next.map { [$0] } ?? []) }
        for p in parts { p.requestStop() }
    }

    /// Frames in the finished parts and the current one; bytes on disk likewise.
    public var progress: (frames: Int, bytes: Int64) {
        let (finished, cur) = state.withLock { ($0.done, $0.current) }
        let p = cur.progress
        return (finished.reduce(0) { $0 + $1.frames } + p.frames, finished.reduce(0) { $0 + $1.bytes } + p.bytes)
    }

    /// Waits for the last part. Throws the first part's failure (the parts before it are kept).
    public func finished() async throws(GpickError) -> SplitRecordingResult {
        try await withCheckedContinuation { c in
            let now = state.withLock { s -> Result<SplitRecordingResult, GpickError>? in
                if let o = s.outcome { return o }
                s.waiters.append(c)
                return nil
            }
            if let now { c.resume(returning: now) }
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
        let ws = state.withLock { s -> [CheckedContinuation<Result<SplitRecordingResult, GpickError>, Never>] in
            s.outcome = result
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for w in ws { w.resume(returning: result) }
    }

    private func drive() async throws(GpickError) -> SplitRecordingResult {
        // Part 1's first frame fixes every boundary: t0 + k × part length.
        let t0 = await state.withLock({ $0.current }).firstFrameTime()
        let end = t0.flatMap { t in total.map { t + $0 } }
        var index = 1
        var boundary = t0.map { $0 + partLength }
        while true {
            let part = state.withLock { $0.current }
            if let b = boundary, let e = end, b >= e { boundary = nil }
            if let b = boundary { part.end(before: b) } else if let e = end { part.end(before: e) }
            var following: MovieRecording?
            if let b = boundary {
                let stop = end.map { min($0, b + partLength) } ?? b + partLength
                following = try await startNext(index: index + 1, at: b, until: stop, whileWriting: part)
            }
            do throws(GpickError) {
                let r = try await part.finished()
                state.withLock { s in s.done.append(r); return s.partWritten }?(r)
            } catch {
                // A part that never got a frame: the recording ended at its boundary (a stop, a
                // lost or ended source). Anything else is the recording's failure.
                if part.progress.frames == 0, !state.withLock({ $0.done.isEmpty }) { break }
                if let f = following { f.requestStop(); _ = try? await f.finished() }
                throw error
            }
            guard let f = following, let b = boundary else { break }
            state.withLock { s in
                s.current = f
                s.next = nil
            }
            index += 1
            boundary = b + partLength
        }
        return SplitRecordingResult(parts: state.withLock { $0.done })
    }

    /// Attaches part `index` a second before `start` (it drops earlier frames), unless the
    /// recording is stopping or the current part ends early.
    private func startNext(index: Int, at start: UInt64, until stop: UInt64,
                           whileWriting part: MovieRecording) async throws(GpickError) -> MovieRecording? {
        let lead: UInt64 = 1_000_000_000
        guard let session, let now = session.pipeline?.runningTime else { return nil }
        if now + lead < start {
            // Woken by a stop, or by the part ending early; else when the lead time comes.
            if await Signal.any([stopRequested, part.done], timeout: Double(start - lead - now) / 1e9) { return nil }
        }
        if stopRequested.isFired || part.done.isFired { return nil }
        var s = settings
        s.startAt = start
        s.stopAt = stop
        let f = try await MovieRecording.start(in: session, to: output.numbered(index, of: index), settings: s)
        state.withLock { $0.next = f }
        if stopRequested.isFired { f.requestStop() }
        return f
    }
}
