import FoundationEssentials
import GpickBase

/// A split recording with what it needs to run unattended: its parts listed in parts.json as
/// each is complete (`PartIndex`, a killed run's parts taken in when it starts again), the oldest
/// deleted by its retention rule (`PartKeeper`), and room kept on its disk (`DiskWatch`, four
/// times a second). `record --split` runs one, and so does a script's
/// `record start FILE split SECONDS [keep …]`.
///
/// A disk can still fill between two checks (another program writing a large file): the part
/// being written then fails, and its file is not kept. With a retention rule, the recording
/// deletes its oldest parts and goes on in a new split recording, numbered after the lost part,
/// for what is left of its length; the frames between are lost, and said to be (`partLost`).
public final class LoopRecording: Sendable {
    public enum Event: Sendable {
        /// A part is complete; `started` is the wall-clock time of its first frame.
        case partWritten(RecordingResult, started: Date)
        /// The retention rule, or the disk, deleted a part.
        case partDeleted(String)
        /// A write failed for want of space: the part being written (`path`) is lost, room was
        /// made, and the recording goes on with a new part.
        case partLost(path: String?, reason: String)
        /// The disk had this much left with nothing more to delete: the recording stops.
        case diskFull(available: Int64)
    }

    private let index: PartIndex
    private let keeper: PartKeeper?
    private let disk: DiskWatch
    private let runs: Runs
    private let watching: Task<Void, Never>
    private let supervising: Task<Result<SplitRecordingResult, GpickError>, Never>

    /// The split recordings in turn (a new one after each part lost to a full disk), what the
    /// earlier ones wrote, and whether a stop was asked or the disk found full.
    private final class Runs: Sendable {
        struct State {
            var current: SplitRecording
            var earlier: [RecordingResult] = []
            var earlierBytes: Int64 = 0
            var earlierFrames = 0
            var stopping = false
            /// The space left when the disk was found full (nil: it was not).
            var fullAt: Int64?
        }
        let state: Locked<State>
        init(_ first: SplitRecording) { state = Locked(State(current: first)) }
        var current: SplitRecording { state.withLock { $0.current } }
        /// Frames and bytes over every run.
        var progress: (frames: Int, bytes: Int64) {
            let (split, frames, bytes) = state.withLock { ($0.current, $0.earlierFrames, $0.earlierBytes) }
            let p = split.progress
            return (frames + p.frames, bytes + p.bytes)
        }
    }

    private init(index: PartIndex, keeper: PartKeeper?, disk: DiskWatch, runs: Runs, watching: Task<Void, Never>,
                 supervising: Task<Result<SplitRecordingResult, GpickError>, Never>) {
        (self.index, self.keeper, self.disk, self.runs, self.watching, self.supervising) = (index, keeper, disk, runs, watching, supervising)
    }

    deinit { watching.cancel() }

    /// Starts part 1 at once, numbered after the parts already in the folder. `space` reads the
    /// folder's disk (statvfs; a test gives its own).
    public static func start(in session: CaptureSession, to output: OutputPath, settings: RecordingSettings, partSeconds: Double,
                             retention: PartRetention,
                             space: @escaping @Sendable (String) -> (available: Int64, total: Int64)? = DiskWatch.space,
                             events: @escaping @Sendable (Event) -> Void) async throws(GpickError) -> LoopRecording {
        let earlier = output.existingParts().map(\.path.path)
        let first = try await SplitRecording.start(in: session, to: output, settings: settings, partSeconds: partSeconds)
        let index = PartIndex(folder: output.directory)
        index.adopt(earlier)
        let keeper = retention.keepsEverything ? nil : PartKeeper(retention, folder: output.directory, earlier: earlier) { path in
            index.deleted(path)
            events(.partDeleted(path))
        }
        let runs = Runs(first)
        let disk = DiskWatch(folder: output.directory, partSeconds: partSeconds, keeper: keeper, space: space) { [weak runs] available in
            runs?.state.withLock { $0.fullAt = available }
            events(.diskFull(available: available))
            runs?.current.requestStop()
        }
        // Weakly: the recording keeps this handler, and must not keep itself.
        let report = { @Sendable (split: SplitRecording) in
            split.onPartWritten { [weak split] r in
                let started = split?.wallClock(at: r.start ?? 0) ?? Date()
                index.written(r, start: started)
                events(.partWritten(r, started: started))
                keeper?.written(r)
            }
        }
        report(first)
        let watching = Task { [weak runs] in
            while !Task.isCancelled {
                do { try await Task.sleep(nanoseconds: 250_000_000) } catch { return }
                guard let p = runs?.progress else { return }
                disk.check(bytes: p.bytes)
            }
        }
        let began = Monotonic.nanoseconds()
        let supervising = Task { [weak session] () -> Result<SplitRecordingResult, GpickError> in
            while true {
                let split = runs.current
                let outcome: Result<SplitRecordingResult, GpickError>
                do throws(GpickError) { outcome = .success(try await split.finished()) } catch { outcome = .failure(error) }
                let done = split.completedParts
                runs.state.withLock { s in
                    s.earlier += done
                    s.earlierFrames += done.reduce(0) { $0 + $1.frames }
                    s.earlierBytes += done.reduce(0) { $0 + $1.bytes }
                }
                guard case .failure(let error) = outcome else { return .success(SplitRecordingResult(parts: runs.state.withLock { $0.earlier })) }
                // Only a part lost to a full disk is gone past, and only where parts can be deleted.
                guard error.remedy == .freeSpace, keeper != nil, let session, !runs.state.withLock({ $0.stopping || $0.fullAt != nil }) else {
                    return .failure(error)
                }
                let room = await OffPool.run { disk.makeRoomAfterFailedWrite() }
                let kept = runs.state.withLock { $0.earlier }
                guard room.goOn else {
                    // Nothing more to delete: it stops, as when the checks find the disk full.
                    runs.state.withLock { $0.fullAt = room.available }
                    events(.diskFull(available: room.available))
                    return kept.isEmpty ? .failure(error) : .success(SplitRecordingResult(parts: kept))
                }
                events(.partLost(path: split.failedPart, reason: error.message))
                let left = settings.duration.map { $0 - Double(Monotonic.nanoseconds() - began) / 1e9 }
                if let left, left < 0.5 { return .success(SplitRecordingResult(parts: kept)) }
                var rest = settings
                rest.duration = left
                let next: SplitRecording
                do throws(GpickError) {
                    next = try await SplitRecording.start(in: session, to: output, settings: rest, partSeconds: partSeconds,
                                                          numberedAfter: split.lastPartNumber)
                } catch {
                    return .failure(error)
                }
                report(next)
                let stopNow = runs.state.withLock { s -> Bool in
                    s.current = next
                    return s.stopping
                }
                if stopNow { next.requestStop() }
            }
        }
        return LoopRecording(index: index, keeper: keeper, disk: disk, runs: runs, watching: watching, supervising: supervising)
    }

    /// The split recording writing now (a new one follows a part lost to a full disk).
    public var split: SplitRecording { runs.current }
    public var output: OutputPath { runs.current.output }
    public var progress: (frames: Int, bytes: Int64) { runs.progress }

    public func requestStop() {
        let split = runs.state.withLock { s -> SplitRecording in
            s.stopping = true
            return s.current
        }
        split.requestStop()
    }

    /// Waits for the last part, then for the deletions, the index and the disk checks. A disk that
    /// filled is an error (its parts are whole and listed); so is an index that could not be written.
    public func finished() async throws(GpickError) -> SplitRecordingResult {
        let outcome = await supervising.value
        watching.cancel()
        await disk.settle()
        await keeper?.settle()
        let unindexed = await index.settle()
        let result = try outcome.get()
        if let available = runs.state.withLock({ $0.fullAt }), let last = result.parts.last {
            let kept = result.parts.count == 1 ? last.path : "\(result.parts.count) parts ending with \(last.path)"
            throw GpickError(.output, "the disk holding \(output.directory) is full (\(ByteSize.format(available)) left): "
                             + "the recording stopped there, with its \(result.frames) frames in \(kept)")
        }
        if let unindexed { throw unindexed }
        return result
    }
}
