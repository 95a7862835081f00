import FoundationEssentials
import Glibc
import GstCore

/// A recording branch on a running session: tee → queue → encoder → muxer → our own fd.
///
/// The file is created as a temp file in the target directory and renamed over the final name
/// when the first bytes arrive, so a failed start leaves nothing behind and a symlink at the name
/// is replaced, not followed. Frames are counted at the tee so `duration` is exact to the frame;
/// stopping sends EOS into the branch only, and waits for it to reach the sink (index written).
/// The streaming-thread side (which frames and samples go in) is in RecordingSpan.swift.
public final class MovieRecording: SessionOutput {
    public let output: OutputPath
    /// The session, to leave it when done; weak, and checked: a recording may outlive it.
    private weak let session: CaptureSession?
    let file: TempFile
    let branch: Branch
    let frameDuration: UInt64
    let fps: Int
    let state: Monitor<State>
    /// Fired at the first frame recorded, or when the recording ends without one.
    let started = Signal()
    /// Fired when the file is complete (or discarded).
    let done = Signal()

    /// Every field is read and written under the monitor's lock. Audio waits on it for `t0`;
    /// whatever sets `t0` or `triggered` broadcasts.
    struct State {
        var frames = 0
        var t0: UInt64?
        var lastPTS: UInt64?
        var startAt: UInt64?
        var stopAt: UInt64?
        /// A split recording's part that takes no frame until its handoff (see PartHandoff).
        var held = false
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

    var bin: Bin { branch.bin }

    /// Starts recording on a running session.
    public static func start(in session: CaptureSession, to output: OutputPath,
                             settings: RecordingSettings) async throws(GpickError) -> MovieRecording {
        try await start(in: session, to: output, settings: settings, beforeAttaching: nil)
    }

    /// `beforeAttaching` is given the recording once it exists, before its branch is attached
    /// (a split recording's handoff takes its first part there: from its first frame on).
    static func start(in session: CaptureSession, to output: OutputPath, settings: RecordingSettings,
                      beforeAttaching: ((MovieRecording) -> Void)?) async throws(GpickError) -> MovieRecording {
        if let d = settings.duration, !(d > 0) || !d.isFinite {
            throw GpickError(.usage, "duration \(d) must be a positive number of seconds")
        }
        let graph = try session.graphForOutput()
        if let failure = session.failureReason { throw failure }
        let pfile = try pipelineFile(settings, session)
        let values = try settings.parameterValues(for: pfile, fps: session.format.fps)
        let file = try TempFile(for: output)
        let branch: Branch
        do throws(GpickError) {
            let bin = try await PipelineBuilder.build(pfile, audio: session.hasAudio, values: values,
                                                      outputs: ["output": .int(Int64(file.fd))], asPipeline: false)
            branch = try Branch(bin: bin, name: session.allocateBranchName("recording"), audio: session.hasAudio)
        } catch {
            file.discard()
            throw error
        }
        var initial = State()
        initial.startAt = settings.startAt
        initial.stopAt = settings.stopAt
        initial.held = settings.heldUntilHandoff
        if let d = settings.duration { initial.maxFrames = session.format.frames(in: d) }
        else if settings.stopAt == nil, let s = reserveSeconds(pfile, values) {
            // Stop cleanly before the reserved index space would overflow.
            initial.maxFrames = Int(max(s / 2, s - 2) * Double(session.format.fps))
        }
        let rec = MovieRecording(session: session, output: output, file: file, branch: branch, state: initial)
        beforeAttaching?(rec)
        do {
            try await rec.attach(to: graph, session: session)
        } catch {
            session.unregister(rec)
            await branch.detach()
            file.discard()
            throw error
        }
        return rec
    }

    var branchName: String { branch.name }

    /// How long one file of a recording without a duration may be: the time its reserved header
    /// space indexes (MP4's robust muxing: the `reserve` parameter, an hour unless set). Nil
    /// when the container has no such bound (Matroska, WebM), or `settings` has a duration.
    public static func fileSpan(of settings: RecordingSettings, in session: CaptureSession) throws(GpickError) -> Double? {
        guard settings.duration == nil else { return nil }
        let pfile = try pipelineFile(settings, session)
        return reserveSeconds(pfile, try settings.parameterValues(for: pfile, fps: session.format.fps))
    }

    /// The branch file `settings` record with: its own, or `record-<container>` of the session's library.
    private static func pipelineFile(_ settings: RecordingSettings, _ session: CaptureSession) throws(GpickError) -> PipelineFile {
        if let custom = settings.pipelineFile { return custom }
        return try session.configuration.library.load(settings.container.pipelineName)
    }

    /// The time `pfile`'s reserved header space indexes (MP4's robust muxing), if it has one.
    private static func reserveSeconds(_ pfile: PipelineFile, _ values: [String: Parameter.Value]) -> Double? {
        guard let reserve = values["reserve"] ?? pfile.parameter("reserve")?.defaultValue, case .duration(let s) = reserve else { return nil }
        return s
    }

    private init(session: CaptureSession, output: OutputPath, file: TempFile, branch: Branch, state: State) {
        self.session = session
        self.output = output
        self.file = file
        self.branch = branch
        self.frameDuration = session.format.frameDuration
        self.fps = session.format.fps
        self.state = Monitor(state)
    }

    private func attach(to graph: CaptureSession.Graph, session: CaptureSession) async throws(GpickError) {
        guard let sink = branch.bin.element(named: "sink"), let sinkPad = sink.staticPad("sink") else {
            throw GpickError(.pipeline, "\(branchName): the recording pipeline has no element named \"sink\"")
        }
        // No recording's sink prerolls asynchronously. A part waiting for its start gets no data
        // for a while, and would hold the whole running pipeline in PAUSED until then; and one
        // attached after another branch's sink failed (a full disk) waited in preroll for good:
        // the pipeline never finished the state change its error had left under way.
        if sink.hasProperty("async") { try? sink.set("async", false) }
        // First bytes: the file becomes visible under its real name.
        let file = self.file
        sinkPad.addProbe(.buffer) { _ in
            try? file.publish()
            return .remove
        }
        sinkPad.addProbe(.eventDownstream) { [weak self] info in
            guard info.eventType == .endOfStream, let self else { return .ok }
            OffPool.detach { self.finalize() }
            return .ok
        }
        installProbes()
        session.register(self)
        try await branch.attach(to: graph,
                                videoProbe: { [weak self] info in self?.videoProbe(info) ?? .ok },
                                audioProbe: { [weak self] info in self?.audioEntryProbe(info) ?? .ok })
    }

    // MARK: stopping

    /// Stops at the current moment: every frame before it is kept. Returns at once; await
    /// `finished()` for the file.
    public func requestStop() {
        requestStop(at: branch.pipeline?.runningTime)
    }

    /// Stops at running time `time` (nil: at once): every frame before it is kept. A split
    /// recording gives every part the same moment, also a part attached after it.
    func requestStop(at time: UInt64?) {
        let stopping = state.withLock { s -> Bool in
            guard !s.triggered else { return false }
            s.stopAt = min(s.stopAt ?? .max, time ?? 0)
            return true
        }
        guard stopping else { return }
        DebugLog.log(.debug, nil, "\(branchName) (\(output.name)): stop asked at running time \(time ?? 0) ns")
        // A live source delivers the next frame soon (late on a loaded machine); if none comes
        // within a second the source is gone, and we stop from here.
        OffPool.after(max(1.0, Double(frameDuration) / 1e9 * 5)) { [weak self] in self?.trigger() }
    }

    /// The source stopped (a file's end, or it failed: `error`) after the frame at output time
    /// `last`: the frames already on their way are kept, and the recording ends at the next frame
    /// (the session's placeholder), or after a short grace if none comes.
    func sourceStopped(after last: UInt64?, error: GpickError?) {
        let graceful = state.withLock { s -> Bool? in
            if let error { s.sourceError = error }
            guard !s.triggered else { return nil }
            guard let last else { return false }
            s.stopAt = min(s.stopAt ?? .max, last + 1)
            return true
        }
        switch graceful {
        case true?: OffPool.after(1) { [weak self] in self?.trigger() }
        case false?: trigger()
        case nil: break
        }
    }

    /// The session failed: finalise what was captured.
    func sessionFailed(_ error: GpickError) {
        state.withLock { $0.sourceError = error }
        trigger()
    }

    /// Records a branch error on the posting thread: lock only, no teardown.
    func elementFailedSync(_ error: GStreamerError, source: SourceSpec) {
        let e = ErrorInterpreter.describe(error, source: source, output: output.path)
        state.withLock { s in if s.error == nil && !s.finalized { s.error = e } }
    }

    /// An element of this branch failed (disk full, encoder refused): tear down and discard.
    func elementFailed(_ error: GStreamerError, source: SourceSpec) {
        fail(ErrorInterpreter.describe(error, source: source, output: output.path))
    }

    func fail(_ error: GpickError) {
        let first = state.withLock { s -> Bool in
            guard !s.tornDown, !s.finalized else { return false }
            if s.error == nil { s.error = error }
            s.triggered = true
            s.tornDown = true
            return true
        }
        guard first else { return }
        finalizeOnceCut()
    }

    /// Cuts the branch off the tees, then finalises it. Not both at once: a branch set to NULL
    /// while still linked answers the tee's next push with FLUSHING, which the tee passes up to
    /// the session's feed, and the whole session stops delivering frames (seen under load,
    /// after parts stopped empty beside a part that failed on a full disk).
    private func finalizeOnceCut() {
        Task {
            await branch.cutInputAndWait()
            OffPool.detach { self.finalize() }
        }
    }

    func finishBeforeStop() async {
        requestStop()
        _ = try? await finished()
    }

    /// Ends the branch: unlink from the tees at an idle moment and send EOS into it.
    func trigger() {
        let s = state.withLock { s -> (go: Bool, empty: Bool, audioReached: Bool)? in
            guard !s.triggered else { return nil }
            s.triggered = true
            if s.endTime == nil { s.endTime = (s.lastPTS ?? 0) + frameDuration }
            let empty = s.t0 == nil
            if empty { s.tornDown = true }
            let reached = (s.audioEnd ?? 0) >= (s.endTime ?? 0)
            s.awaitingAudio = !empty && !reached && branch.audioTeePad != nil
            return (true, empty, reached)
        }
        guard let s else { return }
        DebugLog.log(.debug, nil, "\(branchName) (\(output.name)): ending\(s.empty ? ", empty" : "")")
        // Nothing reached the file: there is nothing to drain (an encoder that never had caps
        // may not pass EOS on), so it is discarded at once.
        if s.empty {
            finalizeOnceCut()
            return
        }
        branch.endVideoInput()
        // Live audio arrives in buffers that end up to one buffer (and, on a loaded machine,
        // several) after the last frame: its input ends when audio reaches the video's end, so
        // the tracks end together; a source that went quiet gets a second's grace.
        if branch.audioTeePad != nil {
            if s.audioReached { branch.endAudioInput() } else { OffPool.after(1) { [weak self] in self?.endAudioIfAwaited() } }
        }
        // If EOS never reaches the sink (a stuck element), give up after a while.
        OffPool.after(15) { [weak self] in
            guard let self, !self.state.withLock({ $0.finalized }) else { return }
            self.fail(GpickError(.runtime, "\(self.output.path): the recording did not finish writing within 15 s"))
        }
    }

    /// Ends the audio input once, if a stop is waiting for it (any thread: it only adds a probe).
    func endAudioIfAwaited() {
        let end = state.withLock { s -> Bool in
            defer { s.awaitingAudio = false }
            return s.awaitingAudio
        }
        if end { branch.endAudioInput() }
    }

    /// Runs off the pool once EOS reached the sink (or the branch failed).
    @available(*, noasync, message: "it stops the branch: run it in OffPool")
    private func finalize() {
        guard let (frames, error, sourceError) = state.withLock({ s -> (Int, GpickError?, GpickError?)? in
            guard !s.finalized else { return nil }
            s.finalized = true
            return (s.frames, s.error, s.sourceError)
        }) else { return }
        branch.detachBlocking()
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
        session?.unregister(self)
        let waiters = state.withLock { s -> [CheckedContinuation<RecordingResult, Error>] in
            s.result = result
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        started.fire()
        done.fire()
        for w in waiters { w.resume(with: result.mapError { $0 as Error }) }
    }

    /// Waits for the file to be complete.
    public func finished() async throws(GpickError) -> RecordingResult {
        do {
            return try await withCheckedThrowingContinuation { (c: CheckedContinuation<RecordingResult, Error>) in
                let done = state.withLock { s -> Result<RecordingResult, GpickError>? in
                    if let r = s.result { return r }
                    s.waiters.append(c)
                    return nil
                }
                if let done { c.resume(with: done.mapError { $0 as Error }) }
            }
        } catch {
            throw error as? GpickError ?? GpickError(.runtime, "\(error)")
        }
    }

    /// Ends the recording before the first frame at or after output time `time` (a part's end).
    func end(before time: UInt64) {
        state.withLock { $0.stopAt = min($0.stopAt ?? .max, time) }
    }

    /// Takes frames from output time `time` on (a held part's handoff, on the streaming thread).
    func begin(at time: UInt64) {
        state.withLock { s in
            s.held = false
            s.startAt = time
        }
    }

    /// The outcome once the file is complete (nil while recording).
    var finishedIfDone: Result<RecordingResult, GpickError>? { state.withLock { $0.result } }

    /// Output time of the first frame recorded: waits for it (nil if the recording ended first).
    func firstFrameTime() async -> UInt64? {
        await started.wait()
        return state.withLock { $0.t0 }
    }

    /// Frames the recording has taken so far (where they enter its branch).
    var framesTaken: Int { state.withLock { $0.frames } }

    /// Frames recorded so far and bytes on disk.
    public var progress: (frames: Int, bytes: Int64) {
        (state.withLock { $0.frames }, file.size)
    }
}
