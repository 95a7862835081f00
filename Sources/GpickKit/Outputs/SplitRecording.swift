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

/// A recording in parts of a fixed length: NAME-001.ext, NAME-002.ext, … (after the highest
/// number already in the folder: a recording started again goes on, never over its parts). Each part is a whole
/// file with its own encoder (so it starts on a keyframe and plays alone, and a crash costs at
/// most the part being written). Consecutive parts meet at one boundary in output time: a frame
/// goes to exactly one part, none is lost between them.
///
/// The next part is attached a second before its boundary and held until then, so only one
/// encoder runs outside that second; which part takes a frame is decided where the frame enters
/// the tee (PartHandoff), so a part attached late moves its boundary instead of losing frames.
/// One task drives the parts (`run`), and the parts are finalised in order beside it;
/// `requestStop` only fires a signal and forwards to the parts.
public final class SplitRecording: Sendable {
    public let output: OutputPath
    /// Parts already in the folder when it started: its first part is number offset + 1.
    private let offset: Int
    private let names: PartNames
    /// The session, for the next part: weak, and checked (a split recording may outlive it).
    private weak let session: CaptureSession?
    private let settings: RecordingSettings
    private let partLength: UInt64
    private let total: UInt64?
    private let state: Locked<State>
    private let handoff: PartHandoff
    private let stopRequested = Signal()
    /// A part failed: no later part is attached.
    private let failed = Signal()
    private let attaching: PartAttaching
    private let attached: (@Sendable (Int) async -> Void)?

    /// What the parts are called.
    public enum PartNames: Sendable {
        /// NAME-001.ext, NAME-002.ext, …, after the parts already there.
        case numbered
        /// NAME.ext itself, then NAME-002.ext, NAME-003.ext, …: one recording that goes on in
        /// a new file whenever its file is as long as it may be (`OpenRecording`), as cameras
        /// start a new chapter file at their file size limit.
        case continuing
    }

    /// When each next part is attached.
    enum PartAttaching: Sendable {
        /// This long before its boundary (in output time): the recording's own timing, a
        /// second ahead, so a part is ready when its boundary comes.
        case ahead(nanoseconds: UInt64)
        /// Only once a frame this many frames past its boundary has entered the tee: every part
        /// starts late, as on a machine whose encoders take longer to start than a part lasts,
        /// whatever the machine's speed (for tests).
        case after(frames: Int)
    }

    /// Read and written only under `state`'s lock.
    private struct State: ~Copyable {
        var current: MovieRecording
        /// Attached parts whose results are not in `done` yet (being written or finalised).
        var open: [MovieRecording]
        var done: [RecordingResult] = []
        var failure: GpickError?
        var outcome: Result<SplitRecordingResult, GpickError>?
        var waiters: [CheckedContinuation<Result<SplitRecordingResult, GpickError>, Never>] = []
        var partWritten: (@Sendable (RecordingResult) -> Void)?
        /// Part 1's first frame: where each part's `start` is counted from.
        var t0: UInt64?
        /// The wall-clock time of that frame.
        var wall0: Date?
        /// A stop was asked for, at this running time (nil: the pipeline had none).
        var stop: UInt64??
    }

    /// Starts part 1 at once. `partSeconds` is rounded to whole frames; `settings.duration`, if
    /// set, is the length of the whole recording.
    public static func start(in session: CaptureSession, to output: OutputPath, settings: RecordingSettings,
                             partSeconds: Double, names: PartNames = .numbered) async throws(GpickError) -> SplitRecording {
        try await start(in: session, to: output, settings: settings, partSeconds: partSeconds, names: names,
                        attaching: .ahead(nanoseconds: 1_000_000_000))
    }

    /// `attached` runs once each part is attached (given its number), before the recording
    /// goes on with it (for tests: a task that resumes late, as on a loaded machine's pool).
    static func start(in session: CaptureSession, to output: OutputPath, settings: RecordingSettings,
                      partSeconds: Double, names: PartNames = .numbered, attaching: PartAttaching,
                      attached: (@Sendable (Int) async -> Void)? = nil) async throws(GpickError) -> SplitRecording {
        guard partSeconds > 0, partSeconds.isFinite else {
            throw GpickError(.usage, "part length \(partSeconds) must be a positive number of seconds")
        }
        let format = session.format
        var partSettings = settings
        partSettings.duration = nil
        // Each part's header space is sized to it (`RecordingSettings.headerSeconds`).
        partSettings.partSeconds = partSeconds
        // Where each frame is given to one part (PartHandoff). Part 1 is handed to it before
        // its branch is attached, and held until the handoff gives it its first frame: so a
        // recording with a duration counts its frames from there, however long this task waits
        // to resume after attaching it (on a loaded machine, long enough for dozens of frames).
        guard let tee = try session.graphForOutput().videoTee else { throw GpickError(.runtime, "the session is not running") }
        let handoff = PartHandoff(tee: tee, frameDuration: format.frameDuration,
                                  limit: settings.duration.map { format.frames(in: $0) })
        var firstSettings = partSettings
        firstSettings.heldUntilHandoff = true
        let offset = names == .numbered ? output.existingParts().last?.number ?? 0 : 0
        let first: MovieRecording
        do throws(GpickError) {
            first = try await MovieRecording.start(in: session, to: part(1, of: output, names: names, offset: offset), settings: firstSettings,
                                                   beforeAttaching: { handoff.queue($0, from: 0) })
        } catch {
            handoff.finish()
            throw error
        }
        await attached?(1)
        let total = settings.duration.map { UInt64(format.frames(in: $0)) * format.frameDuration }
        let split = SplitRecording(session: session, output: output, settings: partSettings, offset: offset, names: names,
                                   partLength: UInt64(format.frames(in: partSeconds)) * format.frameDuration,
                                   total: total, first: first, attaching: attaching, handoff: handoff, attached: attached)
        Task { await split.run() }  // waits (for signals and the parts) only: nothing blocks the pool
        return split
    }

    private init(session: CaptureSession, output: OutputPath, settings: RecordingSettings, offset: Int, names: PartNames,
                 partLength: UInt64, total: UInt64?, first: MovieRecording, attaching: PartAttaching, handoff: PartHandoff,
                 attached: (@Sendable (Int) async -> Void)?) {
        self.session = session
        self.attached = attached
        self.attaching = attaching
        self.handoff = handoff
        self.output = output
        self.offset = offset
        self.names = names
        self.settings = settings
        self.partLength = partLength
        self.total = total
        self.state = Locked(State(current: first, open: [first]))
    }

    /// When part `start` seconds into the recording was, by the wall clock (the recording's
    /// first frame's time, plus `start`); nil before the first frame.
    public func wallClock(at start: Double) -> Date? {
        state.withLock { $0.wall0 }?.addingTimeInterval(start)
    }

    /// Told (on the recording's task) when each part is complete on disk.
    public func onPartWritten(_ handler: @escaping @Sendable (RecordingResult) -> Void) {
        state.withLock { $0.partWritten = handler }
    }

    /// Ends the recording now: the part being written keeps every frame up to this moment.
    /// The moment is kept: a part being attached meanwhile stops there too, rather than at
    /// whenever it is registered (it took a frame from after the stop, once, in a loaded run).
    public func requestStop() {
        let now = session?.pipeline?.runningTime
        let parts = state.withLock { s -> [MovieRecording] in
            guard s.stop == nil else { return [] }
            s.stop = .some(now)
            return s.open
        }
        stopRequested.fire()
        for p in parts { p.requestStop(at: now) }
    }

    /// Frames in the finished parts and the ones under way; bytes on disk likewise.
    public var progress: (frames: Int, bytes: Int64) {
        let (finished, open) = state.withLock { ($0.done, $0.open) }
        let p = open.map(\.progress)
        return (finished.reduce(0) { $0 + $1.frames } + p.reduce(0) { $0 + $1.frames },
                finished.reduce(0) { $0 + $1.bytes } + p.reduce(0) { $0 + $1.bytes })
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
        handoff.finish()
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
        // The frame's wall-clock time: now, less how long ago it was in the pipeline's time.
        let now = session?.pipeline?.runningTime
        let wall0 = t0.map { t in Date().addingTimeInterval(-Double(now.map { $0 > t ? $0 - t : 0 } ?? 0) / 1e9) }
        state.withLock { s in (s.t0, s.wall0) = (t0, wall0) }
        // Where the recording is due to end: no part starts after it. (It ends after its number
        // of frames, which PartHandoff counts, whichever part keeps them.)
        let end = t0.flatMap { t in total.map { t + $0 } }
        var index = 1
        var boundary = t0.map { $0 + partLength }
        // Each part is finalised beside the next one's recording, in order: attaching the part
        // after next never waits for a file to be finalised, which on a loaded machine can take
        // longer than a short part lasts (the recording then ended early, its status 0).
        var finishing: Task<Void, Never>?
        while true {
            let part = state.withLock { $0.current }
            if let b = boundary, let e = end, b >= e { boundary = nil }
            var following: MovieRecording?
            if let b = boundary, !failed.isFired {
                do throws(GpickError) {
                    following = try await startNext(index: index + 1, at: b, until: end, whileWriting: part)
                } catch {
                    fail(error)
                }
            }
            // A part ends where the next one begins; when the next part failed, at its boundary.
            // With no next part otherwise, it ends where the recording does (stopped or at its
            // end): a part that is itself late must not end at a boundary it never reached.
            if let f = following, let b = boundary {
                handoff.queue(f, from: b)
            } else if let b = boundary, failed.isFired {
                part.end(before: b)
            }
            let previous = finishing, after = following
            finishing = Task { [self] in
                await previous?.value
                await collect(part, following: after)
            }
            if let f = following, failed.isFired {
                // Attached before a failure was known: nothing hands it frames after now. It
                // ends, and is collected like the others (kept if it got frames, else discarded),
                // never left writing beside the session.
                f.requestStop()
                let before = finishing
                finishing = Task { [self] in
                    await before?.value
                    await collect(f, following: nil)
                }
                break
            }
            guard let f = following, let b = boundary, !failed.isFired else { break }
            state.withLock { $0.current = f }
            index += 1
            boundary = b + partLength
        }
        await finishing?.value
        if let error = state.withLock({ $0.failure }) { throw error }
        return SplitRecordingResult(parts: state.withLock { $0.done })
    }

    /// Waits for `part` (the parts before it are done) and keeps its result. A part that never
    /// got a frame after a finished one ends the recording at its boundary (a stop, a lost or
    /// ended source); any other failure is the recording's, and stops the part after it.
    private func collect(_ part: MovieRecording, following: MovieRecording?) async {
        do throws(GpickError) {
            var r = try await part.finished()
            state.withLock { s in
                if let t0 = s.t0, let start = part.state.withLock({ $0.t0 }) { r.start = Double(start &- t0) / 1e9 }
                s.done.append(r)
                s.open.removeAll { $0 === part }
                return s.partWritten
            }?(r)
        } catch {
            state.withLock { $0.open.removeAll { $0 === part } }
            if part.progress.frames == 0, !state.withLock({ $0.done.isEmpty }) {
                following?.requestStop()
                return
            }
            fail(error)
            following?.requestStop()
        }
    }

    /// Where part `index` (from 1) is written.
    static func part(_ index: Int, of output: OutputPath, names: PartNames, offset: Int) -> OutputPath {
        switch names {
        case .numbered: output.numbered(offset + index, of: offset + index)
        case .continuing: index == 1 ? output : output.numbered(index, of: index)
        }
    }

    /// The first failure is the recording's; later parts are not attached.
    private func fail(_ error: GpickError) {
        state.withLock { s in if s.failure == nil { s.failure = error } }
        failed.fire()
    }

    /// Attaches part `index`, held, when `attaching` says (a second before `start`, for the
    /// product), unless the recording is stopping or the current part ends early.
    private func startNext(index: Int, at start: UInt64, until stop: UInt64?,
                           whileWriting part: MovieRecording) async throws(GpickError) -> MovieRecording? {
        guard let session, let now = session.pipeline?.runningTime else { return nil }
        // Parts so late that the recording's end has passed would get no frame. The end is in
        // output time, so it is the frames' times that say so, not the pipeline's clock.
        if let stop, let last = handoff.lastFrameTime, last >= stop { return nil }
        let ending = [stopRequested, part.done, failed]
        switch attaching {
        case .ahead(let lead):
            if now + lead < start {
                // Woken by a stop, or by the part ending early; else when the lead time comes.
                if await Signal.any(ending, timeout: Double(start - lead - now) / 1e9) { return nil }
            }
        case .after(let frames):
            let past = handoff.frameEntered(atOrAfter: start + UInt64(frames) * session.format.frameDuration)
            if await Signal.any(ending + [past]), !past.isFired { return nil }
        }
        if stopRequested.isFired || part.done.isFired || failed.isFired { return nil }
        var s = settings
        s.startAt = start
        s.heldUntilHandoff = true
        let f = try await MovieRecording.start(in: session, to: Self.part(index, of: output, names: names, offset: offset), settings: s)
        await attached?(index)
        let stop = state.withLock { s -> UInt64?? in
            s.open.append(f)
            return s.stop
        }
        if let stop { f.requestStop(at: stop) }
        return f
    }
}
