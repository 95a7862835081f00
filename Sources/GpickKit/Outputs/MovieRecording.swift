import Dispatch
import FoundationEssentials
import Glibc
import GstCore

/// Movie containers gpick records, each backed by a pipeline file `record-<container>`.
public enum Container: String, Sendable, CaseIterable {
    case mp4, mkv, webm

    public init(path: OutputPath) throws(GpickError) {
        guard let c = Container(rawValue: path.pathExtension) else {
            throw GpickError(.usage, "unknown movie extension \".\(path.pathExtension)\" in \(path.name) (use .mp4, .mkv or .webm)")
        }
        self = c
    }

    public var pipelineName: String { "record-\(rawValue)" }
}

public struct RecordingSettings: Sendable {
    public var container: Container
    /// Stop after exactly this many seconds of frames; nil records until `requestStop()`.
    public var duration: Double?
    /// Target video bitrate in kbit/s (constant quality when nil).
    public var bitrate: Int?
    /// Extra pipeline-file parameters (`--set name=value`).
    public var values: [String: String] = [:]
    /// A branch file to use instead of `record-<container>` (`gpick run`).
    public var pipelineFile: PipelineFile?
    /// Output-time bounds of one part of a split recording: its first frame is the first at or
    /// after `startAt`, its last the last before `stopAt`. Parts meet without a gap or overlap.
    var startAt: UInt64?
    var stopAt: UInt64?
    public init(container: Container, duration: Double? = nil, bitrate: Int? = nil) {
        self.container = container
        self.duration = duration
        self.bitrate = bitrate
    }
}

public struct RecordingResult: Sendable, Codable {
    public var path: String
    public var frames: Int
    public var duration: Double
    public var bytes: Int64
    /// Set when the source failed and the recording was finalised with what it had.
    public var sourceError: String?
}

/// A recording branch on a running session: tee → queue → encoder → muxer → our own fd.
///
/// The file is created as a temp file in the target directory and renamed over the final name
/// when the first bytes arrive, so a failed start leaves nothing behind and a symlink at the name
/// is replaced, not followed. Frames are counted at the tee so `duration` is exact to the frame;
/// stopping sends EOS into the branch only, and waits for it to reach the sink (index written).
///
/// `@unchecked Sendable` invariant: mutable state lives in `state`, guarded by its lock; element
/// state changes run on the session's control queue, never on streaming threads.
public final class MovieRecording: @unchecked Sendable {
    public let output: OutputPath
    private unowned let session: CaptureSession
    private let file: TempFile
    private let branch: Branch
    private let frameDuration: UInt64
    private let fps: Int
    private let state = State()

    private final class State: @unchecked Sendable {
        // Invariant: every field is read and written under `lock`; audio waits on it for `t0`,
        // and whatever sets `t0` or `triggered` broadcasts.
        let lock = Condition()
        var frames = 0
        var t0: UInt64?
        var lastPTS: UInt64?
        var startAt: UInt64?
        var stopAt: UInt64?
        var endTime: UInt64?
        var maxFrames: Int?
        var triggered = false
        /// Triggered, and the audio has not reached the end yet: its input ends when it does.
        var awaitingAudio = false
        /// End time of the newest audio that entered the branch.
        var audioEnd: UInt64?
        /// Audio has been kept (its first buffer may start with silence: see `audioProbe`).
        var audioStarted = false
        var finalized = false
        var tornDown = false
        var error: GpickError?
        var sourceError: GpickError?
        var result: Result<RecordingResult, GpickError>?
        var waiters: [CheckedContinuation<RecordingResult, Error>] = []
    }

    /// Starts recording on a running session.
    public static func start(in session: CaptureSession, to output: OutputPath,
                             settings: RecordingSettings) async throws(GpickError) -> MovieRecording {
        if let d = settings.duration, !(d > 0) || !d.isFinite {
            throw GpickError(.usage, "duration \(d) must be a positive number of seconds")
        }
        guard session.pipeline != nil else { throw GpickError(.runtime, "the session is not running") }
        if let failure = session.failureReason { throw failure }
        let pfile: PipelineFile
        if let custom = settings.pipelineFile { pfile = custom } else {
            pfile = try session.configuration.library.load(settings.container.pipelineName)
        }
        var values: [String: Parameter.Value] = [:]
        func set(_ name: String, _ text: String) throws(GpickError) {
            guard let p = pfile.parameter(name) else {
                let hint = Suggest.closest(to: name, in: pfile.parameters.map(\.name)).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw GpickError(.usage, "\(pfile.name) has no parameter \"\(name)\"\(hint)")
            }
            values[name] = try p.parse(text)
        }
        if let b = settings.bitrate {
            if pfile.parameter("bitrate-bps") != nil {
                try set("bitrate-bps", String(b * 1000))
            } else {
                try set("bitrate", String(b))
                if pfile.parameter("rate-control") != nil { try set("rate-control", "cbr") }
            }
        }
        if let d = settings.duration, pfile.parameter("reserve") != nil {
            // Header space sized to the request (+10 %, at least 5 s) instead of the 1 h default.
            try set("reserve", "\(d + max(5, d / 10))s")
        }
        if pfile.parameter("key-interval") != nil, settings.values["key-interval"] == nil {
            try set("key-interval", String(session.format.fps * 2))
        }
        for (k, v) in settings.values.sorted(by: { $0.key < $1.key }) { try set(k, v) }

        let file = try TempFile(for: output)
        let bin: Bin
        do {
            bin = try PipelineBuilder.build(pfile, audio: session.hasAudio, values: values,
                                            outputs: ["output": .int(Int64(file.fd))], asPipeline: false)
        } catch {
            file.discard()
            throw error
        }
        let branch: Branch
        do {
            branch = try Branch(bin: bin, name: session.allocateBranchName("recording"), audio: session.hasAudio)
        } catch {
            file.discard()
            throw error
        }
        let rec = MovieRecording(session: session, output: output, file: file, branch: branch)
        rec.state.startAt = settings.startAt
        rec.state.stopAt = settings.stopAt
        if let d = settings.duration { rec.state.maxFrames = session.format.frames(in: d) }
        else if settings.stopAt == nil, let reserve = values["reserve"] ?? pfile.parameter("reserve")?.defaultValue, case .duration(let s) = reserve {
            // Stop cleanly before the reserved index space would overflow.
            rec.state.maxFrames = Int((s - 2) * Double(session.format.fps))
        }
        do {
            try rec.attach()
        } catch {
            rec.branch.detach(from: session)
            file.discard()
            throw error
        }
        return rec
    }

    var branchName: String { branch.name }

    /// Where audio leaves the branch's `audio` queue.
    private var audioQueueOut: Pad? { branch.audioEntry == nil ? nil : branch.bin.element(named: "audio")?.staticPad("src") }

    private init(session: CaptureSession, output: OutputPath, file: TempFile, branch: Branch) {
        self.session = session
        self.output = output
        self.file = file
        self.branch = branch
        self.frameDuration = session.format.frameDuration
        self.fps = session.format.fps
    }

    private func attach() throws(GpickError) {
        guard let sink = branch.bin.element(named: "sink"), let sinkPad = sink.staticPad("sink") else {
            throw GpickError(.pipeline, "\(branchName): the recording pipeline has no element named \"sink\"")
        }
        // A part waiting for its start gets no data for a while: a sink that prerolled
        // asynchronously would hold the whole running pipeline in PAUSED until then.
        if state.lock.withLock({ state.startAt }) != nil, sink.hasProperty("async") { try? sink.set("async", false) }
        // First bytes: the file becomes visible under its real name.
        let file = self.file
        sinkPad.addProbe(.buffer) { _ in
            try? file.publish()
            return .remove
        }
        sinkPad.addProbe(.eventDownstream) { [weak self] info in
            guard info.eventType == .endOfStream, let self else { return .ok }
            self.session.control.async { self.finalize() }
            return .ok
        }
        // Frames are counted where they enter the branch, inside the push: a frame the tee probe
        // passed can still miss the branch if a stop from another thread unlinks it first.
        branch.videoEntry.addProbe(.buffer) { [weak self] info in
            guard let self, let pts = info.buffer?.pts else { return .ok }
            self.state.lock.withLock {
                self.state.frames += 1
                self.state.lastPTS = pts
            }
            return .ok
        }
        // Audio is trimmed to the video's span where it leaves the branch's queue: live audio
        // can reach the tee before the first frame fixes the file's zero (always by up to a
        // buffer, on a loaded machine by several), and waits there until it does.
        if let out = audioQueueOut {
            out.addProbe(.buffer) { [weak self] info in self?.audioProbe(info) ?? .ok }
        }
        session.register(self)
        do {
            try branch.attach(to: session,
                              videoProbe: { [weak self] info in self?.videoProbe(info) ?? .ok },
                              audioProbe: { [weak self] info in self?.audioEntryProbe(info) ?? .ok })
        } catch {
            session.unregister(self)
            throw error
        }
    }

    // MARK: streaming-thread probes (no blocking, no state changes)

    private func videoProbe(_ info: ProbeInfo) -> ProbeReturn {
        guard let pts = info.buffer?.pts else { return .ok }
        let s = state
        s.lock.lock()
        if s.triggered { s.lock.unlock(); return .drop }
        if s.t0 == nil, let startAt = s.startAt, pts < startAt { s.lock.unlock(); return .drop }
        if s.t0 == nil {
            // The first frame is the file's 0, whenever the branch was added (even before play,
            // the first frame's running time is not 0: it is late by the pipeline's start-up).
            // Audio shares the offset, applied where it leaves its queue, and waits until now.
            s.t0 = pts
            branch.videoTeePad?.setOffset(-Int64(pts))
            audioQueueOut?.setOffset(-Int64(pts))
            s.lock.broadcast()
        }
        if let max = s.maxFrames, s.frames >= max {
            s.endTime = pts
            s.lock.unlock()
            trigger()
            return .drop
        }
        if let stopAt = s.stopAt, pts >= stopAt {
            s.endTime = pts
            s.lock.unlock()
            trigger()
            return .drop
        }
        s.lock.unlock()
        return .ok
    }

    /// Audio entering the branch (tee thread): a part's audio before its start never queues,
    /// and the audio input ends once audio has reached the end the video fixed.
    private func audioEntryProbe(_ info: ProbeInfo) -> ProbeReturn {
        guard let buf = info.buffer, let pts = buf.pts else { return .ok }
        let end = pts + (buf.duration ?? 0)
        let s = state
        s.lock.lock()
        if s.t0 == nil, let startAt = s.startAt, end <= startAt { s.lock.unlock(); return .drop }
        s.audioEnd = max(s.audioEnd ?? 0, end)
        let stop = s.awaitingAudio && s.endTime.map { end >= $0 } == true
        s.lock.unlock()
        if stop { endAudioIfAwaited() }
        return .ok
    }

    /// Audio follows the video's span exactly (queue thread): buffers outside [t0, end) are
    /// dropped and the ones straddling either edge are cut at the sample (S16LE stereo, fixed by
    /// the session caps). Until the first frame fixes t0, audio waits here, in its own queue.
    private func audioProbe(_ info: ProbeInfo) -> ProbeReturn {
        guard let buf = info.buffer, var pts = buf.pts else { return .ok }
        let s = state
        s.lock.lock()
        while s.t0 == nil && !s.triggered { s.lock.wait(until: Date().addingTimeInterval(0.1)) }
        let t0 = s.t0, triggered = s.triggered
        let start = t0 ?? 0
        // Until the video fixes the end, a requested stop or the frame budget bounds the audio:
        // live sources push a buffer at its end time, so audio around the cut passes first.
        let planned = s.maxFrames.map { start + UInt64($0) * frameDuration }
        let end = s.endTime ?? s.stopAt ?? planned
        s.lock.unlock()
        guard let t0 else { return .drop }
        var dur = buf.duration ?? 0
        if pts + dur <= t0 { return .drop }
        if let end, pts >= end { return .drop }
        if triggered && end == nil { return .drop }
        let bytesPerFrame = 4, rate: UInt64 = 48000
        // A microphone (or the test tone) that starts after the first frame: the track begins
        // with silence from the first frame on, so both tracks span the same time, in sync.
        let first = s.lock.withLock { () -> Bool in defer { s.audioStarted = true }; return !s.audioStarted }
        if first, pts > t0, let w = info.writableBuffer() {
            w.prependZeros(Int((pts - t0) * rate / 1_000_000_000) * bytesPerFrame)
            dur += pts - t0
            pts = t0
            w.setPTS(pts)
            w.setDuration(dur)
        }
        let startCut = pts < t0 ? t0 - pts : 0
        let endCut = end.map { pts + dur > $0 ? pts + dur - $0 : 0 } ?? 0
        guard (startCut > 0 || endCut > 0), dur > 0, let w = info.writableBuffer() else { return .ok }
        let frames = w.size / bytesPerFrame
        let skip = Int((Double(startCut) / Double(dur) * Double(frames)).rounded())
        let keep = max(0, frames - skip - Int((Double(endCut) / Double(dur) * Double(frames)).rounded()))
        if keep == 0 { return .drop }
        w.resize(offset: skip * bytesPerFrame, size: keep * bytesPerFrame)
        w.setPTS(pts + startCut)
        w.setDuration(dur - startCut - endCut)
        return .ok
    }

    // MARK: stopping

    /// Stops at the current moment: every frame before it is kept. Returns at once; await
    /// `finished()` for the file.
    public func requestStop() {
        let now = session.pipeline?.runningTime
        let s = state
        s.lock.lock()
        guard !s.triggered else { s.lock.unlock(); return }
        s.stopAt = min(s.stopAt ?? .max, now ?? 0)
        s.lock.unlock()
        // A live source delivers the next frame soon (late on a loaded machine); if none comes
        // within a second the source is gone, and we stop from here.
        let grace = max(1.0, Double(frameDuration) / 1e9 * 5)
        session.control.asyncAfter(deadline: .now() + grace) { [weak self] in self?.trigger() }
    }

    /// The source stopped (a file's end, or it failed: `error`) after the frame at output time
    /// `last`: the frames already on their way are kept, and the recording ends at the next frame
    /// (the session's placeholder), or after a short grace if none comes.
    func sourceStopped(after last: UInt64?, error: GpickError?) {
        let s = state
        s.lock.lock()
        if let error { s.sourceError = error }
        guard !s.triggered, let last else {
            s.lock.unlock()
            if last == nil { trigger() }
            return
        }
        s.stopAt = min(s.stopAt ?? .max, last + 1)
        s.lock.unlock()
        session.control.asyncAfter(deadline: .now() + 1) { [weak self] in self?.trigger() }
    }

    /// The session failed: finalise what was captured.
    func sourceFailed(_ error: GpickError) {
        state.lock.withLock { state.sourceError = error }
        trigger()
    }

    /// Records a branch error (bus sync observer, posting thread): lock only, no teardown.
    func markError(_ error: GpickError) {
        state.lock.withLock {
            if state.error == nil && !state.finalized { state.error = error }
        }
    }

    /// An element of this branch failed (disk full, encoder refused): tear down and discard.
    func fail(_ error: GpickError) {
        let first = state.lock.withLock { () -> Bool in
            guard !state.tornDown, !state.finalized else { return false }
            if state.error == nil { state.error = error }
            state.triggered = true
            state.tornDown = true
            return true
        }
        state.lock.broadcast()
        guard first else { return }
        branch.cutInput()
        session.control.async { self.finalize() }
    }

    /// Ends the branch: unlink from the tees at an idle moment and send EOS into it.
    private func trigger() {
        let s = state
        s.lock.lock()
        guard !s.triggered else { s.lock.unlock(); return }
        s.triggered = true
        if s.endTime == nil { s.endTime = (s.lastPTS ?? 0) + frameDuration }
        let empty = s.t0 == nil
        if empty { s.tornDown = true }
        s.lock.unlock()
        s.lock.broadcast()  // audio waiting for a first frame that will not come
        // Nothing reached the file: there is nothing to drain (an encoder that never had caps
        // may not pass EOS on), so it is discarded at once.
        if empty {
            branch.cutInput()
            session.control.async { self.finalize() }
            return
        }
        branch.endVideoInput()
        // Live audio arrives in buffers that end up to one buffer (and, on a loaded machine,
        // several) after the last frame: its input ends when audio reaches the video's end, so
        // the tracks end together; a source that went quiet gets a second's grace.
        if branch.audioTeePad != nil {
            let reached = s.lock.withLock { () -> Bool in
                let done = (s.audioEnd ?? 0) >= (s.endTime ?? 0)
                s.awaitingAudio = !done
                return done
            }
            if reached {
                branch.endAudioInput()
            } else {
                session.control.asyncAfter(deadline: .now() + 1) { [weak self] in self?.endAudioIfAwaited() }
            }
        }
        // If EOS never reaches the sink (a stuck element), give up after a while.
        session.control.asyncAfter(deadline: .now() + 15) { [weak self] in
            guard let self, !self.state.lock.withLock({ self.state.finalized }) else { return }
            self.fail(GpickError(.runtime, "\(self.output.path): the recording did not finish writing within 15 s"))
        }
    }

    /// Ends the audio input once, if a stop is waiting for it (any thread: it only adds a probe).
    private func endAudioIfAwaited() {
        let end = state.lock.withLock { () -> Bool in
            defer { state.awaitingAudio = false }
            return state.awaitingAudio
        }
        if end { branch.endAudioInput() }
    }

    /// Runs on the control queue once EOS reached the sink (or the branch failed).
    private func finalize() {
        let s = state
        s.lock.lock()
        guard !s.finalized else { s.lock.unlock(); return }
        s.finalized = true
        let frames = s.frames
        let error = s.error
        let sourceError = s.sourceError
        s.lock.unlock()

        branch.detach(from: session)
        let result: Result<RecordingResult, GpickError>
        if let error {
            file.discard()
            result = .failure(error)
        } else if frames == 0 {
            file.discard()
            result = .failure(sourceError ?? GpickError(.runtime, "\(output.path): no frame was recorded"))
        } else {
            do {
                let bytes = file.size
                try file.finish()
                result = .success(RecordingResult(path: output.path, frames: frames,
                                                  duration: Double(frames) / Double(fps),
                                                  bytes: bytes, sourceError: sourceError?.message))
            } catch {
                result = .failure(error)
            }
        }
        session.unregister(self)
        let waiters = s.lock.withLock { () -> [CheckedContinuation<RecordingResult, Error>] in
            s.result = result
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for w in waiters { w.resume(with: result.mapError { $0 as Error }) }
    }

    /// Waits for the file to be complete.
    public func finished() async throws(GpickError) -> RecordingResult {
        do {
            return try await withCheckedThrowingContinuation { (c: CheckedContinuation<RecordingResult, Error>) in
                let s = state
                s.lock.lock()
                if let r = s.result { s.lock.unlock(); c.resume(with: r.mapError { $0 as Error }); return }
                s.waiters.append(c)
                s.lock.unlock()
            }
        } catch let e as GpickError {
            throw e
        } catch {
            throw GpickError(.runtime, "\(error)")
        }
    }

    /// Ends the recording before the first frame at or after output time `time` (a part's end).
    func end(before time: UInt64) {
        state.lock.withLock { state.stopAt = min(state.stopAt ?? .max, time) }
    }

    /// The outcome once the file is complete (nil while recording).
    var finishedIfDone: Result<RecordingResult, GpickError>? { state.lock.withLock { state.result } }

    /// Output time of the first frame recorded (nil before it).
    var firstFrameTime: UInt64? { state.lock.withLock { state.t0 } }

    /// Frames recorded so far and bytes on disk.
    public var progress: (frames: Int, bytes: Int64) {
        (state.lock.withLock { state.frames }, file.size)
    }
}
