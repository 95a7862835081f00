import FoundationEssentials
import Glibc
import GpickFormats
import GstCore

/// A capture session: one pipeline that keeps running (switch → format → tees) while outputs
/// (recordings, still taps, previews) are attached and detached, and cameras are started, flipped,
/// suspended and resumed upstream of the switch. Stills come from the retained frame tap, so a
/// snap never pays a pipeline start.
///
/// This file holds the public API and the lifecycle; the graph is built in SessionGraph, cameras
/// are switched in CameraSwitching, bus messages are routed in SessionBus, and outputs attach
/// through SessionOutputs.
public final class CaptureSession: Sendable {
    /// What the session was configured with (the cameras actually in use: `source`, `cameras`).
    public let configuration: SessionConfiguration
    let frames: FrameHub
    /// The switch, made with the graph: the hub asks it which frames it made itself.
    let switchRef = SwitchRef()
    /// Damaged MJPEG frames dropped, over every camera the session opened.
    let droppedTally = MJPEGGuard.Tally()
    let state: Locked<State>

    /// Everything that changes while the session runs. Each field is read and written only
    /// inside `state.withLock`.
    struct State: ~Copyable {
        /// The cameras at each position, once resolved (`auto`, the default front camera).
        var cameras: [CameraPosition: SourceSpec] = [:]
        /// Those cameras as a still's EXIF names them.
        var identities: [CameraPosition: CameraIdentity] = [:]
        /// The modes the V4L2 cameras at each position were opened in.
        var modes: [CameraPosition: CameraMode] = [:]
        /// What the session delivers when it follows its camera's mode (`formatFromCamera`).
        var delivered: SessionFormat?
        /// The stable link (`/dev/v4l/by-id/…`) of each V4L2 camera, by the node it was opened
        /// by: a camera that is lost is looked for by it (it may come back as another node).
        var v4l2Links: [String: String] = [:]
        /// The formats PipeWire or libcamera list for the cameras at each position.
        var listedFormats: [CameraPosition: [CapsStructure]] = [:]
        var position: CameraPosition
        var graph: Graph?
        /// The session file every stage uses (its input stage).
        var sessionFile: PipelineFile?
        /// The current camera's stage, and stages being stopped (their errors are not the camera's).
        var stage: SourceStage?
        var stopping: [SourceStage] = []
        /// Bumped for each camera start: frames and errors of an older one are ignored.
        var generation = 0
        var sourceState: SourceState = .starting
        var sourceError: GpickError?
        var failure: GpickError?
        /// The first error posted while starting (recorded on the posting thread).
        var startError: GpickError?
        /// lastFrames() was asked: the camera's stream ends after the last of them.
        var finishing = false
        var outputs: [ObjectIdentifier: any SessionOutput] = [:]
        var nextBranch = 1
        var eventHandler: (@Sendable (SessionEvent) -> Void)?
        /// Waiting for the current camera to deliver (after a flip or resume).
        var liveWaiters: [UInt64: CheckedContinuation<Void, Error>] = [:]
        var nextWaiter: UInt64 = 0
        var busTask: Task<Void, Never>?
        /// Work on the graph started from a streaming thread (a lost camera's stop, a latency
        /// update): stop() waits for it, so nothing changes a state after the pipeline is down.
        var jobs: [OffPoolJob<Void, Never>] = []
        var jobsHandedOver = 0
        /// stop() has begun: no more such work starts (the pipeline's own stop covers it).
        var stopBegun = false
        /// The latency recalculation (see SessionBus.recalculateLatency).
        var latency = LatencyWork.idle
        /// When a stalled camera was last reopened (see CameraReconnect), and the reopening
        /// under way, which stop() lets finish before it stops the camera.
        var reconnects: [ContinuousClock.Instant] = []
        var reconnect: Task<Void, Never>?
        /// Looks for a lost camera until it is back (`watchForReturn`).
        var returnWatch: Task<Void, Never>?
    }

    /// The parts of the graph made once, before the first frame.
    struct Graph: Sendable {
        let pipeline: Pipeline
        let videoTee: Element?
        let audioTee: Element?
        let switcher: FrameSwitch?
    }

    /// Lets the hub ask the switch, which is made later, about synthetic frames.
    final class SwitchRef: Sendable {
        let value = Locked<FrameSwitch?>(nil)
        func isSynthetic(_ pts: UInt64) -> Bool { value.withLock { $0 }?.isSynthetic(pts) ?? false }
    }

    public init(_ configuration: SessionConfiguration) {
        self.configuration = configuration
        state = Locked(State(position: configuration.position))
        // Bounded for the largest frame the session may deliver: one that follows its camera's
        // mode is 1080p at most, unless a mode by hand says larger (4K assumed for "max").
        var f = configuration.format
        if configuration.formatFromCamera {
            switch configuration.mode {
            case .exact(let size, _, _)?: (f.width, f.height) = (max(f.width, size.width), max(f.height, size.height))
            case .largest?: (f.width, f.height) = (max(f.width, 3840), max(f.height, 2160))
            case .deliver?, nil: (f.width, f.height) = (max(f.width, 1920), max(f.height, 1080))
            }
        }
        let ref = switchRef
        frames = FrameHub(pendingLimit: configuration.lagMemoryLimit / max(1, f.width * f.height * 3 / 2),
                          isSynthetic: { ref.isSynthetic($0) })
    }

    /// Receives notices, warnings and source failures (called on any thread).
    public func onEvent(_ handler: @escaping @Sendable (SessionEvent) -> Void) {
        state.withLock { $0.eventHandler = handler }
    }

    func emit(_ e: SessionEvent) {
        state.withLock { $0.eventHandler }?(e)
    }

    /// The mode the current camera was opened in, when gpick chose it (a V4L2 camera).
    public var cameraMode: CameraMode? { state.withLock { $0.modes[$0.position] } }

    public var format: SessionFormat { state.withLock { $0.delivered } ?? configuration.format }
    /// The camera at the current position.
    public var source: SourceSpec {
        state.withLock { $0.cameras[$0.position] } ?? (position == .back ? configuration.source : configuration.front ?? .auto)
    }
    public var position: CameraPosition { state.withLock { $0.position } }
    /// The camera at the current position as a still's EXIF names it (Make and Model).
    public var camera: CameraIdentity {
        state.withLock { $0.identities[$0.position] } ?? .of(source)
    }
    public var sourceState: SourceState { state.withLock { $0.sourceState } }
    public var hasAudio: Bool { configuration.audio != .none || configuration.audioFile != nil }
    var graph: Graph? { state.withLock { $0.graph } }
    var pipeline: Pipeline? { graph?.pipeline }

    /// An element of the session's pipeline by name, once prepared: for one that a pipeline file
    /// given in the camera's place (`sourceFile`) leaves to the app, such as an appsrc it feeds.
    public func element(named name: String) -> Element? { pipeline?.element(named: name) }

    // MARK: lifecycle

    /// Resolves `auto`, builds the pipeline, plays it and waits for the first frame.
    public func start() async throws(GpickError) {
        try await prepare()
        try await play()
    }

    /// Resolves `auto` and builds the pipeline without playing it, so outputs can be attached
    /// before the first frame (a one-shot recording then starts at frame 0).
    public func prepare() async throws(GpickError) {
        guard graph == nil else { return }
        try configuration.format.validate()
        let first = try await resolvedSpec(for: position)
        // A pipeline file of one's own in the camera's place opens no device of the spec's.
        if configuration.sourceFile == nil { try await Self.checkPlayable(first) }
        let sessionPart = try loadSessionFile()
        // The first camera's stage and the session pipeline are parsed side by side (each loads
        // its plugins, a few ms on a one-shot command); the stage's job waits for GStreamer's
        // initialisation itself, so it parses the moment the registry is loaded.
        let position = self.position
        let made = OffPool.start { () throws(GpickError) in try self.makeStage(first, position: position, generation: 0) }
        do { try await Gst.initialized() } catch { throw GpickError(.plugin, "GStreamer: \(error.message)") }
        // A session that follows its camera's mode knows what it delivers once the camera is
        // asked: the pipeline is built after that.
        if configuration.formatFromCamera, first.isCamera { _ = try await made.value() }
        let graph = try await OffPool.run { () throws(GpickError) in
            try self.configuration.framesOnly ? self.buildFramesOnly() : self.build(sessionPart)
        }
        state.withLock { $0.graph = graph }
        startBusReader(graph.pipeline)
        graph.switcher?.activate(generation: 0, skip: warmupFrames(for: first))
        let stage = try await made.value()
        try await stage.start(in: graph.pipeline)
        state.withLock { $0.stage = stage }
    }

    /// Why the pipeline did not start when no element said: a camera that went away after it was
    /// found (pipewiresrc refuses to start for a node destroyed meanwhile, without an error).
    private func unexplainedStartFailure() async -> GpickError {
        let spec = source
        guard let kind = spec.cameraKind else { return GpickError(.runtime, "the capture pipeline could not start") }
        if kind != .v4l2 {
            do { _ = try await CameraDirectory.find(spec) } catch { return error }
        }
        return GpickError(.device, "camera \(spec) could not start")
    }

    /// Plays the prepared pipeline and waits for the first frame.
    public func play() async throws(GpickError) {
        guard let pipeline else { throw GpickError(.runtime, "prepare() the session before play()") }
        do {
            try await pipeline.setState(.playing)
        } catch {
            // The reason was posted during the state change, and recorded on the posting thread.
            if let posted = state.withLock({ $0.startError ?? $0.failure }) { throw posted }
            throw await unexplainedStartFailure()
        }
        do {
            try await withTimeout(configuration.startTimeout) { try await self.frames.waitForFirstFrame() }
        } catch let e as GpickError {
            await stop()
            throw e
        } catch {
            await stop()
            throw GpickError(.device, "\(source) delivered no frame within \(Int(configuration.startTimeout)) s")
        }
    }

    /// Finalises every output (recordings: EOS, index written), then stops the pipeline. A
    /// pipeline that takes longer than `teardownLimit` to stop is left behind, with a warning.
    public func stop() async {
        let outputs = state.withLock { Array($0.outputs.values) }
        await withTaskGroup(of: Void.self) { group in
            for o in outputs { group.addTask { await o.finishBeforeStop() } }
        }
        // Work a streaming thread handed over first: two state changes of one element at once
        // can deadlock, and none may run after the caller shuts GStreamer down.
        for job in state.withLock({ s -> [OffPoolJob<Void, Never>] in
            s.stopBegun = true
            defer { s.jobs.removeAll() }
            return s.jobs
        }) {
            await job.value()
        }
        await state.withLock { $0.reconnect }?.value
        let watch = state.withLock { $0.returnWatch }
        watch?.cancel()
        await watch?.value
        let graph = self.graph
        graph?.switcher?.shutdown()
        // Before the camera stops: a delivery waiting for a lagging subscriber must not hold up
        // the stage's streaming thread that the state change waits for.
        frames.fail(GpickError(.runtime, "the session has stopped"))
        failLiveWaiters(GpickError(.runtime, "the session has stopped"))
        if let graph {
            // The outputs are finished: what a camera thread still pushes matters to nobody. A
            // feed whose streaming thread stopped on an error (a recording on a full disk) never
            // drains, and a camera thread blocked pushing into it would hold the stage's state
            // change below for good. A flush-start at the feed's pad releases any such push.
            if let pad = graph.pipeline.element(named: "feed")?.staticPad("src") { _ = pad.sendEvent(.flushStart()) }
            // Then the camera, before the feed's state change: its thread's pushes now return at
            // once, and none can wait on a feed that is already paused.
            let stage = state.withLock { s -> SourceStage? in defer { s.stage = nil }; return s.stage }
            // The outputs are final by now: a pipeline that never stops (see OffPool.run(within:))
            // is left behind rather than keep the caller, and a CLI's exit, waiting for good.
            let stopped = await OffPool.run(within: Self.teardownLimit) {
                stage?.stopBlocking(in: graph.pipeline)
                _ = try? graph.pipeline.setState(.null)
                graph.switcher?.joinTicker(timeout: 2)
            }
            if !stopped {
                emit(.warning("the pipeline did not stop within \(Int(Self.teardownLimit)) s (an element is stuck); it was left behind",
                              detail: nil))
            }
        }
        // The bus task may be handling a message, and so hold the session: wait until it has
        // let go, so a caller that shuts GStreamer down next (the leak report) finds nothing alive.
        let bus = state.withLock { $0.busTask }
        bus?.cancel()
        await bus?.value
    }

    /// How long the pipeline may take to stop once its outputs are final: far longer than a sink,
    /// camera or server takes to stop when it works.
    static let teardownLimit = 8.0

    // MARK: frames

    /// Frames delivered by cameras since the session started (after warm-up).
    public var deliveredFrames: Int { frames.frameCount }

    /// Frames a camera sent damaged (MJPEG cut short, without its end marker, with a stray
    /// marker) and the session dropped before decoding, since it started.
    public var droppedFrames: Int { droppedTally.value }

    /// The retained frame: the newest camera frame the session has seen (nil while a camera
    /// switches or is suspended).
    public var latestFrame: Sample? { frames.latestFrame }

    /// The retained frame with what it is: its stamp (test sources) and its running time.
    public var retainedFrame: RetainedFrame? { frames.latestFrame.map(RetainedFrame.init) }

    /// The current camera's frame pool: buffers allocated, and freed as they came back
    /// (`SourceStage.framePool`); nil with no camera running.
    var sourceFramePool: (allocated: UInt64, trimmed: UInt64)? { state.withLock { $0.stage }?.framePool }

    /// `count` frames (every `every`-th) starting with the current one: zero shutter lag. While a
    /// camera switches they start with its first frame; while suspended or lost they fail.
    public func nextFrames(_ count: Int, every: Int = 1) -> FrameStream {
        frames.frames(count: count, every: every, fromCurrent: true)
    }

    /// A frames-only session's last frames (a one-shot snap or burst): asked before `play()`,
    /// they are the camera's first frames after warm-up, and the camera ends its stream as soon
    /// as the last one is delivered, so it makes no frame that nobody takes.
    public func lastFrames(_ count: Int, every: Int = 1) throws(GpickError) -> FrameStream {
        try requireFramesOnly("lastFrames")
        let stream = frames.frames(count: count, every: every, fromCurrent: true)
        state.withLock { $0.finishing = true }  // after subscribing: no frame may find it done before
        return stream
    }

    /// Why the session failed, or why its camera delivers nothing (lost and not replaced).
    public var failureReason: GpickError? { state.withLock { $0.failure ?? $0.sourceError } }

    /// Runs work a streaming thread hands over (it must not change states itself) off the pool;
    /// stop() waits for it. Finished jobs are dropped as new ones come: a session that serves
    /// for months hands over a latency recalculation for every part, clip and viewer.
    func sessionJob(_ work: @escaping @Sendable () -> Void) {
        state.withLock { s in
            guard !s.stopBegun else { return }
            s.jobs.removeAll { $0.isDone }
            s.jobs.append(OffPool.start(work))
            s.jobsHandedOver += 1
        }
    }

    /// Jobs handed over so far, and those still held (running, or finished and not yet dropped).
    var sessionJobs: (handedOver: Int, held: Int) { state.withLock { ($0.jobsHandedOver, $0.jobs.count) } }

    func requireFramesOnly(_ what: String) throws(GpickError) {
        if !configuration.framesOnly { throw GpickError(.usage, "\(what) needs a frames-only session") }
    }

    func requireFullSession(_ what: String) throws(GpickError) {
        if configuration.framesOnly { throw GpickError(.usage, "\(what) needs a full session (this one is frames-only)") }
    }
}
