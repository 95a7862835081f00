import GpickCLI
import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import GpickKit

struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a movie: H.264 + AAC in MP4/MKV, or VP9 + Opus in WebM.",
        discussion: """
        The recording ends after --duration with a finalised file. Ctrl-C and SIGTERM end it early and keep \
        every frame up to the signal. MP4 is written with robust muxing (the index is rewritten every second \
        into reserved header space), so even after kill -9 the file plays, losing at most about a second \
        (two on a machine too busy for the encoder to keep up). \
        With --split, the recording is written in parts NAME-001.ext, NAME-002.ext, … of that length, each a \
        whole file; together they hold every frame once. A part whose encoder is not ready at its boundary (a \
        loaded machine) starts at the first frame after it is, and the part before it keeps the frames until \
        then: --json reports where each part starts. \
        With --keep, --keep-size or --keep-free it is a loop recording: the oldest parts are deleted \
        (never the one being written) once they are older, or together larger, or the disk fuller, \
        than allowed (`part-deleted` events); it needs no --duration and runs until Ctrl-C or SIGTERM. \
        A split recording lists its parts in parts.json in their folder (each part's file, wall-clock start, \
        length, frames and size; a restart adds to it): `gpick recordings at 14:05 DIR` finds the moment. \
        A disk that fills never tears a file: below what the next stretch needs, a loop recording deletes its \
        oldest parts and goes on, and any other recording stops there, whole (exit 73).
        """)

    @Option(name: [.short, .customLong("output")], help: "Movie file to write: .mp4, .mkv or .webm.")
    var output: String

    @Option(name: .long, parsing: .unconditional, help: "Length in seconds (exact to the frame); optional for a loop recording (--split with --keep…).")
    var duration: Double?

    @Option(name: .long, parsing: .unconditional, help: "Write parts of this many seconds (NAME-001.ext, …) instead of one file.")
    var split: Double?

    @OptionGroup(title: "Loop recording (with --split)") var kept: RetentionOptions

    @Option(name: .long, parsing: .unconditional, help: "Video bitrate in kbit/s (default: constant quality).")
    var bitrate: Int?

    @OptionGroup var set: SetOptions

    @OptionGroup var capture: SourceOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var saving: LibrarySaveOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        let retention = try self.retention()
        if !retention.keepsEverything, split == nil { throw ValidationError("--keep, --keep-size and --keep-free need --split (they delete old parts)") }
        if let duration {
            guard duration > 0, duration.isFinite else { throw ValidationError("--duration \(duration) must be a positive number of seconds") }
            guard duration <= 24 * 3600 else { throw ValidationError("--duration \(duration) is above 24 hours (a loop recording, --split with --keep…, needs none)") }
        } else if retention.keepsEverything {
            throw ValidationError("Missing expected argument '--duration <duration>' (only a loop recording, --split with --keep…, runs without one)")
        }
        if let split {
            guard split > 0, split.isFinite else { throw ValidationError("--split \(split) must be a positive number of seconds") }
            if let duration { guard split < duration else { throw ValidationError("--split \(split) must be shorter than --duration \(duration)") } }
        }
        if let bitrate, !(64...200_000).contains(bitrate) { throw ValidationError("--bitrate \(bitrate) must be 64…200000 kbit/s") }
    }

    /// --keep, --keep-size and --keep-free, read.
    func retention() throws -> PartRetention { try kept.retention() }

    func run() async throws {
        let events = Events(json: out.json, command: "record")
        try await reporting(events) {
            let target = try OutputPath(output)
            let container = try Container(path: target)
            let library = pipelines.library
            var configured = try capture.configuration(library: library)
            try camera.apply(to: &configured, capture: capture)
            let config = configured
            var recSettings = RecordingSettings(container: container, duration: duration, bitrate: bitrate)
            recSettings.values = set.values
            let session = CaptureSession(config)
            session.onEvent { events.sessionEvent($0) }
            // Signals end the recording with EOS; installed before capture starts.
            let stopper = SignalStopper()
            try await session.prepare()
            let recording: RecordingRun
            do {
                // Attached before the first frame: the file starts at frame 0.
                if let split {
                    // Parts listed in parts.json (`gpick recordings at`), the oldest deleted by the
                    // --keep rules (`part-deleted`), room kept on the disk; started again, it goes
                    // on after its parts and keeps them by the same rules.
                    let loop = try await LoopRecording.start(in: session, to: target, settings: recSettings, partSeconds: split,
                                                             retention: try self.retention()) { event in
                        switch event {
                        case .partWritten(let r, let started):
                            // Each part is reported as it is complete, like a file of its own.
                            events.fileWritten(r.path, bytes: r.bytes, extra: ["frames": r.frames, "duration": r.duration, "start": r.start ?? 0,
                                                                               "started": RecordedPart.timeText(started)])
                        case .partDeleted(let path):
                            events.emit("part-deleted", ["path": path])
                        case .diskFull(let available):
                            events.emit("disk-full", ["path": target.directory, "available": Int(available)])
                        }
                    }
                    recording = .split(loop)
                } else {
                    recording = .single(try await MovieRecording.start(in: session, to: target, settings: recSettings))
                }
                try await session.play()
            } catch {
                await session.stop()
                throw error
            }
            stopper.onSignal { sig in
                events.notice("\(sig == SIGINT ? "interrupted" : "terminated"); finishing \(target.path)")
                recording.requestStop()
            }
            events.started((["source": "\(session.source)", "path": target.path, "duration": duration.map { JSONValue.number($0) } ?? .null,
                              "width": session.format.width, "height": session.format.height, "fps": session.format.fps] as JSONFields).mode(of: session))
            // The disk: a single file stops, whole, while there is still room to finish it (a
            // split recording's own watch does the same, deleting its oldest parts first if it may).
            let diskFull = Locked<Int64?>(nil)
            let disk = DiskWatch(folder: target.directory, partSeconds: nil, keeper: nil) { available in
                diskFull.withLock { $0 = available }
                events.emit("disk-full", ["path": target.directory, "available": Int(available)])
                recording.requestStop()
            }
            let progress = Task {
                while true {
                    do { try await Task.sleep(nanoseconds: 250_000_000) } catch { return }  // cancelled
                    let p = recording.progress
                    let secs = Double(p.frames) / Double(session.format.fps)
                    if case .single = recording { disk.check(bytes: p.bytes) }
                    events.emit("progress", ["frames": p.frames, "seconds": secs, "bytes": p.bytes])
                    Console.progress((duration.map { cFormat("recording %.1f/%.1f s  ", secs, $0) } ?? cFormat("recording %.1f s  ", secs))
                                     + formatBytes(p.bytes))
                }
            }
            // Under systemd (gpick-record@): ready once recording, the watchdog fed while frames flow.
            let service = ServiceWatch.ready("recording to \(target.path)", sessions: [session])
            let parts: [RecordingResult]
            do {
                parts = try await recording.finished()
                service?.stopping()
            } catch {
                service?.stopping()
                progress.cancel()
                await progress.value
                Console.endProgress()
                await session.stop()
                throw error
            }
            // Its last line must come out before the file's and the finish's.
            progress.cancel()
            await progress.value
            Console.endProgress()
            await session.stop()
            await disk.settle()
            if case .single = recording, let r = parts.first {
                events.fileWritten(r.path, bytes: r.bytes, extra: ["frames": r.frames, "duration": r.duration])
            }
            let frames = parts.reduce(0) { $0 + $1.frames }
            if let err = parts.last?.sourceError, let last = parts.last {
                // The files play, but the source failed: report it and exit non-zero.
                let kept = parts.count == 1 ? last.path : "\(parts.count) parts ending with \(last.path)"
                throw GpickError(.device, "\(err) (kept \(frames) frames in \(kept))")
            }
            if let available = diskFull.withLock({ $0 }), let last = parts.last {
                let kept = parts.count == 1 ? last.path : "\(parts.count) parts ending with \(last.path)"
                throw GpickError(.output, "the disk holding \(target.directory) is full (\(formatBytes(available)) left): "
                                 + "the recording stopped there, with its \(frames) frames in \(kept)")
            }
            // Only a recording that ended well is saved (one cut short by its source is kept at -o).
            // A loop recording's deleted parts are not saved.
            try await saving.save(parts.map(\.path).filter { FileManager.default.fileExists(atPath: $0) }, events: events)
            var summary: JSONFields = ["frames": frames, "duration": Double(frames) / Double(session.format.fps)]
            if case .split = recording { summary["parts"] = parts.count }
            events.finished(summary)
        }
    }
}

/// The recording the command drives: one file, or a split recording's parts.
private enum RecordingRun: Sendable {
    case single(MovieRecording)
    case split(LoopRecording)

    var progress: (frames: Int, bytes: Int64) {
        switch self {
        case .single(let r): r.progress
        case .split(let s): s.progress
        }
    }

    func requestStop() {
        switch self {
        case .single(let r): r.requestStop()
        case .split(let s): s.requestStop()
        }
    }

    func finished() async throws(GpickError) -> [RecordingResult] {
        switch self {
        case .single(let r): [try await r.finished()]
        case .split(let s): try await s.finished().parts
        }
    }
}
