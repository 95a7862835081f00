import FoundationEssentials
import GpickBase

/// A split recording with what it needs to run unattended: its parts listed in parts.json as
/// each is complete (`PartIndex`, a killed run's parts taken in when it starts again), the oldest
/// deleted by its retention rule (`PartKeeper`), and room kept on its disk (`DiskWatch`, four
/// times a second). `record --split` runs one, and so does a script's
/// `record start FILE split SECONDS [keep …]`.
public final class LoopRecording: Sendable {
    public enum Event: Sendable {
        /// A part is complete; `started` is the wall-clock time of its first frame.
        case partWritten(RecordingResult, started: Date)
        /// The retention rule, or the disk, deleted a part.
        case partDeleted(String)
        /// The disk had this much left with nothing more to delete: the recording stops.
        case diskFull(available: Int64)
    }

    public let split: SplitRecording
    private let index: PartIndex
    private let keeper: PartKeeper?
    private let disk: DiskWatch
    private let full: FullDisk
    private let watching: Task<Void, Never>

    /// The space left when the disk was found full (nil: it was not).
    private final class FullDisk: Sendable {
        let available = Locked<Int64?>(nil)
    }

    private init(split: SplitRecording, index: PartIndex, keeper: PartKeeper?, disk: DiskWatch, full: FullDisk, watching: Task<Void, Never>) {
        (self.split, self.index, self.keeper, self.disk, self.full, self.watching) = (split, index, keeper, disk, full, watching)
    }

    deinit { watching.cancel() }

    /// Starts part 1 at once, numbered after the parts already in the folder.
    public static func start(in session: CaptureSession, to output: OutputPath, settings: RecordingSettings, partSeconds: Double,
                             retention: PartRetention, events: @escaping @Sendable (Event) -> Void) async throws(GpickError) -> LoopRecording {
        // A killed run's next part, attached but not begun, is still under its temp name.
        TempFile.removeLeftovers(in: output.directory, prefix: output.name.deletingFilenameExtension + "-")
        let earlier = output.existingParts().map(\.path.path)
        let split = try await SplitRecording.start(in: session, to: output, settings: settings, partSeconds: partSeconds)
        let index = PartIndex(folder: output.directory)
        index.adopt(earlier)
        let keeper = retention.keepsEverything ? nil : PartKeeper(retention, folder: output.directory, earlier: earlier) { path in
            index.deleted(path)
            events(.partDeleted(path))
        }
        // Weakly: the recording keeps this handler, and must not keep itself.
        split.onPartWritten { [weak split] r in
            let started = split?.wallClock(at: r.start ?? 0) ?? Date()
            index.written(r, start: started)
            events(.partWritten(r, started: started))
            keeper?.written(r)
        }
        let full = FullDisk()
        let disk = DiskWatch(folder: output.directory, partSeconds: partSeconds, keeper: keeper) { [weak split] available in
            full.available.withLock { $0 = available }
            events(.diskFull(available: available))
            split?.requestStop()
        }
        let watching = Task { [weak split] in
            while !Task.isCancelled {
                do { try await Task.sleep(nanoseconds: 250_000_000) } catch { return }
                guard let p = split?.progress else { return }
                disk.check(bytes: p.bytes)
            }
        }
        return LoopRecording(split: split, index: index, keeper: keeper, disk: disk, full: full, watching: watching)
    }

    public var output: OutputPath { split.output }
    public var progress: (frames: Int, bytes: Int64) { split.progress }
    public func requestStop() { split.requestStop() }

    /// Waits for the last part, then for the deletions, the index and the disk checks. A disk that
    /// filled is an error (its parts are whole and listed); so is an index that could not be written.
    public func finished() async throws(GpickError) -> SplitRecordingResult {
        let outcome: Result<SplitRecordingResult, GpickError>
        do throws(GpickError) { outcome = .success(try await split.finished()) } catch { outcome = .failure(error) }
        watching.cancel()
        await disk.settle()
        await keeper?.settle()
        let unindexed = await index.settle()
        let result = try outcome.get()
        if let available = full.available.withLock({ $0 }), let last = result.parts.last {
            let kept = result.parts.count == 1 ? last.path : "\(result.parts.count) parts ending with \(last.path)"
            throw GpickError(.output, "the disk holding \(output.directory) is full (\(ByteSize.format(available)) left): "
                             + "the recording stopped there, with its \(result.frames) frames in \(kept)")
        }
        if let unindexed { throw unindexed }
        return result
    }
}
