import Dispatch
import FoundationEssentials
import Glibc
import GstCore

/// The size and rate every output of a session sees.
public struct SessionFormat: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int
    public init(width: Int = 1280, height: Int = 720, fps: Int = 30) {
        self.width = width
        self.height = height
        self.fps = fps
    }
    public var frameDuration: UInt64 { 1_000_000_000 / UInt64(max(fps, 1)) }
    /// Whole frames in `seconds` (at least one): how long recordings and their parts are.
    public func frames(in seconds: Double) -> Int { max(1, Int((seconds * Double(fps)).rounded())) }

    /// Checks the numbers before anything starts.
    public func validate() throws(GpickError) {
        for (name, v) in [("width", width), ("height", height)] {
            guard v > 0 else { throw GpickError(.usage, "\(name) \(v) must be a positive number of pixels") }
            guard v <= 8192 else { throw GpickError(.usage, "\(name) \(v) is above the maximum of 8192") }
            guard v >= 16 else { throw GpickError(.usage, "\(name) \(v) is below the minimum of 16") }
            guard v % 2 == 0 else { throw GpickError(.usage, "\(name) \(v) must be even (H.264 and JPEG 4:2:0 need even sizes)") }
        }
        guard (1...240).contains(fps) else { throw GpickError(.usage, "fps \(fps) must be 1…240") }
    }
}

/// What a session is made of. Like AVFoundation's session configuration: set it, then start.
public struct SessionConfiguration: Sendable {
    /// The back camera (the one a session starts with unless `position` says otherwise).
    public var source: SourceSpec = .auto
    /// The front camera; nil picks one: for a test back camera, a test source with another pattern
    /// and stamp id 2; for a real camera, the next camera found.
    public var front: SourceSpec?
    /// The position the session starts at.
    public var position: CameraPosition = .back
    /// The front camera's picture is mirrored left-right (as phones show selfies).
    public var mirrorFront = false
    public var audio: AudioSpec = .none
    public var format = SessionFormat()
    public var library = PipelineLibrary()
    /// Frames dropped after start before anything is delivered; nil = 0 for test and file sources,
    /// 10 for cameras (exposure and white balance settle).
    public var warmupFrames: Int?
    /// How long a source may take to deliver its first frame.
    public var startTimeout: Double = 15
    /// A pipeline file (with values) used instead of the built-in one: `gpick run` of a source,
    /// audio-source or session file.
    public var sourceFile: PipelineBuilder.Part?
    public var audioFile: PipelineBuilder.Part?
    public var sessionFile: PipelineBuilder.Part?
    /// Frames only: the camera's stage is the whole pipeline and its frames go straight to stills
    /// and bursts (`gpick snap`). No feed, tees or switch, so one pipeline less to build and no
    /// hop between pipelines before the first still; flips, recordings and previews are not
    /// available.
    public var framesOnly = false
    /// How much a frame subscriber that falls behind (a burst slower than the camera) may hold
    /// before delivery waits for it (at most 60 frames): memory stays bounded.
    public var lagMemoryLimit = 64 << 20
    public init() {}
}

/// Something that happened in a session, for event streams and JSON output.
public enum SessionEvent: Sendable {
    case notice(String)
    /// A GStreamer warning: its message, and with its debug text for --verbose.
    case warning(String, detail: String?)
    case sourceFailed(GpickError)
    /// The session switched to this camera (asked at this running time, ns); outputs see the
    /// placeholder until it delivers.
    case switching(CameraPosition, SourceSpec, UInt64?)
    /// The camera at this position delivers frames (after start, a flip or a resume).
    case sourceLive(CameraPosition)
    case suspended
    /// The first blurred placeholder frame went out (output running time in ns).
    case placeholder(UInt64)
}

/// The newest camera frame a session holds (one frame; no copy: it shares the buffer).
public struct RetainedFrame: Sendable {
    public let sample: Sample
    /// Running time of the frame on the session's timeline (ns).
    public let time: UInt64?
    /// The frame stamp, when the camera is the test source.
    public let stamp: FrameStamp?
    init(_ sample: Sample) {
        self.sample = sample
        time = sample.buffer?.pts
        stamp = sample.withVideoFrame { FrameStamp.read(from: $0) } ?? nil
    }
}

/// What the session's camera is doing.
public enum SourceState: Sendable, Equatable {
    case starting, live, suspended
    case failed(String)
}

/// A capture session: one pipeline that keeps running (switch → format → tees) while outputs
/// (recordings, still taps, previews) are attached and detached, and cameras are started, flipped,
/// suspended and resumed upstream of the switch. Stills come from the retained frame tap, so a
/// snap never pays a pipeline start.
///
/// `@unchecked Sendable` invariant: mutable state is guarded by `lock`; GStreamer objects are
/// thread-safe; state changes happen only from the caller's task or the control queue, never from
/// streaming threads.
public final class CaptureSession: @unchecked Sendable {
    public private(set) var configuration: SessionConfiguration
    let lock = Lock()
    private(set) var pipeline: Pipeline?
    private(set) var videoTee: Element?
    private(set) var audioTee: Element?
    let frames: FrameHub
    private var switcher: FrameSwitch?
    /// The session file the pipeline was built from; every source stage uses its input stage.
    private var sessionFile: PipelineFile?
    private var stage: SourceStage?
    /// lastFrames() was asked: the camera's stream ends after the last of them.
    private var finishing = false
    private var generation = 0
    private var currentPosition: CameraPosition
    private var state: SourceState = .starting
    private var sourceError: GpickError?
    private var busTask: Task<Void, Never>?
    private var failure: GpickError?
    private var recordings: [String: MovieRecording] = [:]
    /// Other branches (previews) and what to tell them when one of their elements fails.
    private var auxiliary: [String: @Sendable (GpickError) -> Void] = [:]
    private var nextBranch = 1
    private var eventHandler: (@Sendable (SessionEvent) -> Void)?
    /// State changes and teardown of branches run here, off the streaming threads.
    let control = DispatchQueue(label: "gpick.session.control")

    public init(_ configuration: SessionConfiguration) {
        self.configuration = configuration
        currentPosition = configuration.position
        let box = SwitchBox()
        let f = configuration.format
        frames = FrameHub(pendingLimit: configuration.lagMemoryLimit / max(1, f.width * f.height * 3 / 2), isSynthetic: { box.switcher?.isSynthetic($0) ?? false })
        switchBox = box
    }

    /// Lets the hub ask the switch, which is made later, about synthetic frames.
    private final class SwitchBox: @unchecked Sendable {
        // `@unchecked Sendable` invariant: written once in build(), before the pipeline plays.
        var switcher: FrameSwitch?
    }
    private let switchBox: SwitchBox

    /// Receives notices, warnings and source failures (called on any thread).
    public func onEvent(_ handler: @escaping @Sendable (SessionEvent) -> Void) {
        lock.withLock { eventHandler = handler }
    }

    func emit(_ e: SessionEvent) {
        lock.withLock { eventHandler }?(e)
    }

    public var format: SessionFormat { configuration.format }
    /// The camera at the current position.
    public var source: SourceSpec { lock.withLock { spec(for: currentPosition) } ?? configuration.source }
    public var position: CameraPosition { lock.withLock { currentPosition } }
    public var sourceState: SourceState { lock.withLock { state } }
    public var hasAudio: Bool { configuration.audio != .none || configuration.audioFile != nil }

    /// Resolves `auto`, builds the pipeline, plays it and waits for the first frame.
    public func start() async throws(GpickError) {
        try await prepare()
        try await play()
    }

    /// Resolves `auto` and builds the pipeline without playing it, so outputs can be attached
    /// before the first frame (a one-shot recording then starts at frame 0).
    public func prepare() async throws(GpickError) {
        guard pipeline == nil else { return }
        try configuration.format.validate()
        if configuration.source == .auto {
            configuration.source = await Self.resolveAuto()
            if configuration.source.isTest {
                emit(.notice("no camera found; using the test source (\(configuration.source))"))
            }
        }
        let first = try await resolvedSpec(for: currentPosition)
        try await Self.checkPlayable(first)
        let sessionPart = try loadSessionFile()
        // The first camera's stage and the session pipeline stay apart until the stage is added:
        // they are parsed side by side (each loads its plugins, a few ms on a one-shot command).
        // The stage's thread starts now and waits for GStreamer's initialisation itself, so it
        // parses the moment the registry is loaded, without a hop through the pool first.
        let position = currentPosition
        let made = Background { () throws(GpickError) in try self.makeStage(first, position: position, generation: 0) }
        do { try await Gst.initialized() } catch { throw GpickError(.plugin, "GStreamer: \(error.message)") }
        let pipeline = try configuration.framesOnly ? buildFramesOnly() : build(sessionPart)
        self.pipeline = pipeline
        startBusReader(pipeline)
        switcher?.activate(generation: 0, skip: warmupFrames(for: first))
        let stage = try await made.value()
        try stage.start(in: pipeline)
        lock.withLock { self.stage = stage }
    }

    /// Plays the prepared pipeline and waits for the first frame.
    public func play() async throws(GpickError) {
        guard let pipeline else { throw GpickError(.runtime, "prepare() the session before play()") }
        do {
            try pipeline.setState(.playing)
        } catch {
            // The reason is on the bus; give the reader a moment to record it.
            try? await Task.sleep(nanoseconds: 50_000_000)
            throw lock.withLock { failure } ?? GpickError(.runtime, "the capture pipeline could not start")
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

    /// Finalises every recording (EOS, index written), then stops the pipeline.
    public func stop() async {
        let active = lock.withLock { Array(recordings.values) }
        for r in active { r.requestStop() }
        for r in active { _ = try? await r.finished() }
        switcher?.shutdown()
        // Before the camera stops: a delivery waiting for a lagging subscriber must not hold up
        // the stage's streaming thread that the state change waits for.
        frames.fail(GpickError(.runtime, "the session has stopped"))
        if let p = pipeline {
            // The camera first, while the feed still drains: a camera thread blocked pushing into
            // a full feed would otherwise wait for a feed that the state change already paused.
            let stage = lock.withLock { () -> SourceStage? in
                defer { self.stage = nil }
                return self.stage
            }
            let switcher = self.switcher
            await onControl {
                stage?.stop(in: p)
                _ = try? p.setState(.null)
                switcher?.joinTicker(timeout: 2)
            }
        }
        // The bus task may be handling a message, and so hold the session: wait until it has
        // let go, so a caller that shuts GStreamer down next (the leak report) finds nothing alive.
        busTask?.cancel()
        await busTask?.value
    }

    /// Frames delivered by cameras since the session started (after warm-up).
    public var deliveredFrames: Int { frames.frameCount }

    /// The retained frame: the newest camera frame the session has seen (nil while a camera
    /// switches or is suspended).
    public var latestFrame: Sample? { frames.latestFrame }

    /// The retained frame with what it is: its stamp (test sources) and its running time.
    public var retainedFrame: RetainedFrame? { frames.latestFrame.map(RetainedFrame.init) }

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
        lock.withLock { finishing = true }  // after subscribing: no frame may find it done before
        return stream
    }

    /// Why the session failed, or why its camera delivers nothing (lost and not replaced).
    public var failureReason: GpickError? { lock.withLock { failure ?? sourceError } }

    // MARK: cameras

    /// Switches to the other camera without stopping the pipeline: outputs see the blurred last
    /// frame until the new camera delivers, then a short crossfade into it. Returns the new
    /// position at once; `waitUntilLive()` waits for the camera.
    @discardableResult
    public func flip() async throws(GpickError) -> CameraPosition {
        let target = position.other
        try await switchSource(to: target, requested: pipeline?.runningTime)
        return target
    }

    /// Stops the camera; outputs (and a recording) see the blurred last frame.
    public func suspend() async throws(GpickError) {
        try requireFullSession("suspend")
        guard let pipeline, let switcher else { throw GpickError(.runtime, "the session is not running") }
        let old: SourceStage? = lock.withLock {
            guard state != .suspended else { return nil }
            state = .suspended
            generation += 1
            defer { stage = nil }
            return stage
        }
        switcher.hold()
        frames.hold(reason: GpickError(.usage, "the camera is suspended (resume it first)"), after: nil)
        emit(.suspended)
        if let old { await onControl { old.stop(in: pipeline) } }
    }

    /// Restarts the camera at the current position, with the same unblur as a flip.
    public func resume() async throws(GpickError) {
        try await switchSource(to: position, requested: pipeline?.runningTime)
    }

    /// Waits until the current camera delivers (after a flip or resume).
    public func waitUntilLive(timeout: Double? = nil) async throws(GpickError) {
        let limit = timeout ?? configuration.startTimeout
        let deadline = Date().addingTimeInterval(limit)
        while true {
            switch sourceState {
            case .live: return
            case .suspended: throw GpickError(.usage, "the camera is suspended (resume it first)")
            case .failed(let m): throw GpickError(.device, m)
            case .starting: break
            }
            if let f = lock.withLock({ failure }) { throw f }
            guard Date() < deadline else { throw GpickError(.device, "\(source) delivered no frame within \(Int(limit)) s") }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    private func switchSource(to target: CameraPosition, requested: UInt64?) async throws(GpickError) {
        try requireFullSession(target == position ? "resume" : "flip")
        guard let pipeline, let switcher else { throw GpickError(.runtime, "the session is not running") }
        let spec = try await resolvedSpec(for: target)
        try await Self.checkPlayable(spec)
        let (gen, old) = lock.withLock { () -> (Int, SourceStage?) in
            generation += 1
            currentPosition = target
            state = .starting
            defer { stage = nil }
            return (generation, stage)
        }
        // Announced first: the switch's placeholder event, from its own thread, comes after it.
        emit(.switching(target, spec, requested))
        switcher.activate(generation: gen, skip: warmupFrames(for: spec))
        frames.hold(reason: nil, after: switcher.lastOutputTime)
        let new: SourceStage
        do {
            new = try makeStage(spec, position: target, generation: gen)
        } catch {
            markSourceLost(gen, error)
            throw error
        }
        let result = await onControl { () -> GpickError? in
            old?.stop(in: pipeline)
            do throws(GpickError) { try new.start(in: pipeline); return nil } catch { return error }
        }
        if let result {
            markSourceLost(gen, result)
            throw result
        }
        lock.withLock { if generation == gen { stage = new } }
    }

    private func requireFramesOnly(_ what: String) throws(GpickError) {
        if !configuration.framesOnly { throw GpickError(.usage, "\(what) needs a frames-only session") }
    }

    func requireFullSession(_ what: String) throws(GpickError) {
        if configuration.framesOnly { throw GpickError(.usage, "\(what) needs a full session (this one is frames-only)") }
    }

    /// The camera for a position, with the defaults for the front one.
    private func resolvedSpec(for p: CameraPosition) async throws(GpickError) -> SourceSpec {
        if let s = lock.withLock({ spec(for: p) }) { return s }
        // No front camera given: a second test source, or the next real camera.
        switch configuration.source {
        case .test(let o):
            var f = o
            f.id = o.id == 2 ? 3 : 2
            // A moving, bright pattern (not the ball's black field, which reads as black frames).
            f.pattern = o.pattern == "pinwheel" ? "smpte" : "pinwheel"
            f.failAfter = nil
            configuration.front = .test(f)
            return .test(f)
        case .v4l2(let dev):
            let devices = (try? await offPool { try DeviceMonitor.devices() }) ?? []
            if let other = devices.compactMap(\.path).first(where: { $0 != dev && access($0, R_OK | W_OK) == 0 }) {
                configuration.front = .v4l2(device: other)
                return .v4l2(device: other)
            }
            throw GpickError(.device, "no front camera: only \(dev) was found (give one with --front)")
        default:
            throw GpickError(.usage, "no front camera for \(configuration.source) (give one with --front)")
        }
    }

    private func spec(for p: CameraPosition) -> SourceSpec? {
        p == .back ? configuration.source : configuration.front
    }

    private func warmupFrames(for spec: SourceSpec) -> Int {
        configuration.warmupFrames ?? (spec.isCamera ? 10 : 0)
    }

    /// A source's first frame reached the switch. (The session's first camera says nothing:
    /// starting is the command's own event.)
    private func sourceBecameLive(_ gen: Int) {
        let pos: CameraPosition? = lock.withLock {
            guard gen == generation else { return nil }
            state = .live
            sourceError = nil
            return currentPosition
        }
        guard let pos else { return }
        frames.release()
        if gen > 0 { emit(.sourceLive(pos)) }
    }

    /// The camera of generation `gen` failed (or could not start): the switch holds the blurred
    /// last frame, recordings are finalised with what they have, and an error event goes out. A
    /// camera that never delivered a frame fails the whole session, as before any output.
    private func markSourceLost(_ gen: Int, _ error: GpickError) {
        let (current, everLive, active) = lock.withLock { () -> (Bool, Bool, [MovieRecording]) in
            guard gen == generation, failure == nil else { return (false, false, []) }
            let everLive = frames.frameCount > 0
            if everLive {
                state = .failed(error.message)
                sourceError = error
            }
            return (true, everLive, Array(recordings.values))
        }
        guard current else { return }
        guard everLive else { fail(error); return }
        // Recordings first, so not one placeholder frame gets into them after the camera's last.
        let last = switcher?.lastOutputTime
        for r in active { r.sourceStopped(after: last, error: error) }
        switcher?.hold(generation: gen)
        frames.hold(reason: error, after: nil)
        emit(.sourceFailed(error))
        if let pipeline, let old = lock.withLock({ stage }), old.generation == gen {
            control.async { old.stop(in: pipeline) }
        }
    }

    /// The source of generation `gen` ran out (a file source's end): recordings are finalised
    /// with everything it delivered, and outputs hold the blurred last frame.
    private func markSourceEnded(_ gen: Int, _ spec: String) {
        // A source that ends before its first frame (a file with a video track but no frames)
        // fails the session, as a camera that never delivers does.
        if frames.frameCount == 0, lock.withLock({ gen == generation }) {
            fail(GpickError(.input, "\(spec) ended before its first frame (it holds no video frames)"))
            return
        }
        let active: [MovieRecording]? = lock.withLock {
            guard gen == generation, failure == nil else { return nil }
            // An ended source is not current any more: what it posts while winding down
            // (streaming stopped, not-linked) is not a camera failure.
            generation += 1
            state = .failed("\(spec) has ended")
            return Array(recordings.values)
        }
        guard let active else { return }
        let last = switcher?.lastOutputTime
        for r in active { r.sourceStopped(after: last, error: nil) }
        switcher?.hold()
        frames.hold(reason: GpickError(.input, "\(spec) has ended"), after: nil)
        emit(.notice("\(spec) has ended"))
    }

    /// Sets a property on one of the session's own elements (`src.pattern ball`), looking in the
    /// current camera's stage first. Elements of output branches and anything that writes files
    /// or sends data are out of reach.
    public func setProperty(element: String, property: String, value: String) throws(GpickError) {
        guard let pipeline else { throw GpickError(.runtime, "the session is not running") }
        let stageBin = lock.withLock { stage?.bin }
        guard let e = stageBin?.directChild(named: element) ?? pipeline.directChild(named: element) else {
            let names = ((stageBin?.children ?? []) + pipeline.children).map(\.name)
                .filter { $0 != element && !$0.hasPrefix("source-") && !$0.hasPrefix("recording-") }
            let hint = Suggest.closest(to: element, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw GpickError(.input, "no element \"\(element)\" in the session\(hint)")
        }
        let factory = e.factoryName ?? ""
        if PipelineBuilder.fileSinks[factory] != nil || PipelineBuilder.networkPrefixes.contains(where: { factory.hasPrefix($0) })
            || ["location", "fd", "device", "host", "uri"].contains(property) {
            throw GpickError(.input, "\(element).\(property) cannot be set from a script (it names a file, device or address)")
        }
        do {
            try e.set(property, .string(value))
        } catch {
            throw GpickError(.input, error.message)
        }
    }

    // MARK: building

    /// The session file (custom or from the library); every source stage uses its input stage.
    private func loadSessionFile() throws(GpickError) -> PipelineBuilder.Part {
        let part: PipelineBuilder.Part
        if let custom = configuration.sessionFile { part = custom } else { part = .init(try configuration.library.load("session")) }
        lock.withLock { sessionFile = part.file }
        return part
    }

    /// The main pipeline: the session file's feed, tees and retained-frame tap (and audio).
    private func build(_ sessionPart: PipelineBuilder.Part) throws(GpickError) -> Pipeline {
        let lib = configuration.library
        let session = sessionPart.file
        var text = session.pipeline.value
        var parts = [sessionPart]
        if configuration.audio != .none || configuration.audioFile != nil {
            var audio: PipelineBuilder.Part
            if let custom = configuration.audioFile { audio = custom } else {
                audio = .init(try lib.load(configuration.audio == .auto ? "audio-auto" : "audio-test"))
            }
            text += "\n" + audio.file.pipeline.value + " ! " + (session.audio?.value ?? "tee name=audio allow-not-linked=true")
            parts.append(audio)
        }
        let bin = try PipelineBuilder.compose(text, parts: parts, asPipeline: true)
        guard let pipeline = bin as? Pipeline else { throw GpickError(.runtime, "session did not build a pipeline") }
        let f = configuration.format
        do {
            let caps = try Caps("video/x-raw,format=I420,width=\(f.width),height=\(f.height),framerate=\(f.fps)/1,pixel-aspect-ratio=1/1")
            let feed = try AppSrc(try pipeline.requireElement(named: "feed"))
            feed.setCaps(caps)
            let switcher = FrameSwitch(feed: feed, fps: f.fps, clock: { [weak pipeline] in pipeline?.runningTime })
            switcher.onPlaceholder = { [weak self] pts in self?.emit(.placeholder(pts)) }
            self.switcher = switcher
            switchBox.switcher = switcher
            let sink = try AppSink(try pipeline.requireElement(named: "frames"))
            let hub = frames
            sink.setCallbacks(onSample: { hub.deliver($0) })
            videoTee = try pipeline.requireElement(named: "video")
            audioTee = hasAudio ? try pipeline.requireElement(named: "audio") : nil
        } catch {
            throw GpickError(.pipeline, "session pipeline: \(error.message)")
        }
        return pipeline
    }

    /// A frames-only session's pipeline: empty until the camera's stage is added.
    private func buildFramesOnly() throws(GpickError) -> Pipeline {
        guard configuration.audio == .none, configuration.audioFile == nil else {
            throw GpickError(.usage, "a frames-only session takes no audio")
        }
        do { return try Pipeline(name: "session") } catch { throw GpickError(.pipeline, "session pipeline: \(error.message)") }
    }

    /// A stage for `spec`: its source part (or the `gpick run` override) then the session's input.
    private func makeStage(_ spec: SourceSpec, position: CameraPosition, generation gen: Int? = nil) throws(GpickError) -> SourceStage {
        let lib = configuration.library
        var sourcePart: PipelineBuilder.Part
        var testOptions: SourceSpec.TestOptions?
        var label = "\(spec)"
        switch spec {
        case .test(let o):
            testOptions = o
            sourcePart = .init(try lib.load("source-test"), values: ["pattern": .string(o.pattern)])
        case .v4l2(let dev):
            sourcePart = .init(try lib.load("source-v4l2"), values: ["device": .string(dev)])
        case .file(let path):
            sourcePart = .init(try lib.load("source-file"), outputs: ["path": .string(path)])
            label = path
        case .auto:
            throw GpickError(.runtime, "source not resolved")
        }
        if let custom = configuration.sourceFile, position == configuration.position {
            sourcePart = custom
            testOptions = nil
            label = custom.file.name
        }
        guard let sessionFile = lock.withLock({ sessionFile }) else { throw GpickError(.runtime, "the session is not built") }
        var text = sourcePart.file.pipeline.value + " ! " + (sessionFile.input?.value ?? "videoconvert ! videoscale ! capsfilter name=format")
        if position == .front && configuration.mirrorFront { text += " ! videoflip method=horizontal-flip" }
        let g = gen ?? lock.withLock { generation }
        let deliver: @Sendable (Sample) -> AppSink.Flow
        let ended: @Sendable () -> Void
        if configuration.framesOnly {
            // Straight to the hub, after the camera's warm-up frames.
            let hub = frames, warmup = FrameCountdown(warmupFrames(for: spec))
            deliver = { [weak self] sample in
                guard warmup.pass() else { return .more }
                let first = hub.frameCount == 0
                hub.deliver(sample)
                if first { self?.sourceBecameLive(g) }
                // The last frame asked for with lastFrames(): the camera ends its stream now,
                // before it makes another frame that nobody would take.
                guard let self, self.lock.withLock({ self.finishing }), !hub.hasSubscribers else { return .more }
                return .enough
            }
            ended = { [weak self, label] in
                // The end the camera makes after the last frame asked for is no source end; an
                // end while frames are still awaited is.
                guard let self, !(self.lock.withLock({ self.finishing }) && !hub.hasSubscribers) else { return }
                self.markSourceEnded(g, label)
            }
        } else {
            let box = switchBox  // the switch is made in build(), which may run beside this, before any frame flows
            deliver = { [weak self] sample in
                guard let self, let switcher = box.switcher else { return .more }
                if switcher.sourceFrame(sample, generation: g) { self.sourceBecameLive(g) }
                return .more
            }
            ended = { [weak self, label] in self?.markSourceEnded(g, label) }
        }
        return try SourceStage([sourcePart], text: text, position: position, spec: spec, generation: g,
                               testOptions: testOptions, format: configuration.format, deliver: deliver, ended: ended)
    }

    /// A camera that can be opened, or a file that holds video (what is wrong, in one line).
    static func checkPlayable(_ spec: SourceSpec) async throws(GpickError) {
        try spec.checkAccessible()
        if case .file(let path) = spec { try await MediaProbe.checkVideoSource(path) }
    }

    static func resolveAuto() async -> SourceSpec {
        let devices = (try? await offPool { try DeviceMonitor.devices() }) ?? []
        for d in devices {
            if let p = d.path, access(p, R_OK | W_OK) == 0 { return .v4l2(device: p) }
        }
        return .test(.init())
    }

    /// Runs `body` on the control queue (state changes wait for streaming threads: never on the
    /// cooperative pool).
    func onControl<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            control.async { c.resume(returning: body()) }
        }
    }

    // MARK: bus

    private func startBusReader(_ pipeline: Pipeline) {
        // A branch's error is pinned to it before anything else runs, so an EOS racing behind the
        // error cannot finalise the branch as a success. A camera's error switches to the
        // placeholder right here, on the posting thread, before another frame can be shown.
        pipeline.bus.observeSync { [weak self] m in
            guard case .error(let e) = m, let self else { return }
            if let owner = self.owner(of: e) {
                owner.markError(ErrorInterpreter.describe(e, source: self.configuration.source, output: owner.output.path))
            } else if let gen = e.sourcePath.flatMap(SourceStage.generation(inPath:)) {
                let spec = self.lock.withLock { self.stage?.generation == gen ? self.stage?.spec : nil } ?? self.source
                self.markSourceLost(gen, ErrorInterpreter.describe(e, source: spec))
            }
        }
        let messages = pipeline.bus.messages()
        busTask = Task.detached { [weak self] in
            for await m in messages {
                guard let self else { return }
                self.handle(m)
            }
        }
    }

    private func handle(_ m: BusMessage) {
        switch m {
        case .error(let e):
            route(e)
        case .warning(let w):
            emit(.warning(w.description, detail: w.diagnostic))
        case .latency:
            if let p = pipeline { control.async { p.recalculateLatency() } }
        case .missingPlugin(_, let description):
            fail(GpickError(.plugin, "missing GStreamer plugin: \(description) (run `gpick doctor`)"))
        default:
            break
        }
    }

    /// Sends an error to the recording it came from, or fails the session. Camera errors were
    /// handled on the posting thread.
    private func route(_ e: GStreamerError) {
        if let owner = owner(of: e) {
            owner.fail(ErrorInterpreter.describe(e, source: configuration.source, output: owner.output.path))
            return
        }
        if e.sourcePath.flatMap(SourceStage.generation(inPath:)) != nil { return }
        if let path = e.sourcePath, let handler = lock.withLock({ auxiliary.first { path.contains(":\($0.key)/") }?.value }) {
            handler(ErrorInterpreter.describe(e, source: source))
            return
        }
        let error = ErrorInterpreter.describe(e, source: source)
        fail(error)
    }

    /// The recording an error came from. Paths read "/GstPipeline:pipeline0/GstBin:recording-1/GstFdSink:sink".
    private func owner(of e: GStreamerError) -> MovieRecording? {
        guard let path = e.sourcePath else { return nil }
        return lock.withLock { recordings.values.first { path.contains(":\($0.branchName)/") } }
    }

    /// A session failure: recordings are finalised with what they have.
    func fail(_ error: GpickError) {
        let (first, active) = lock.withLock { () -> (Bool, [MovieRecording]) in
            let first = failure == nil
            if first { failure = error }
            return (first, Array(recordings.values))
        }
        guard first else { return }
        emit(.sourceFailed(error))
        frames.fail(error)
        for r in active { r.sourceFailed(error) }
    }

    // MARK: branches

    func allocateBranchName(_ prefix: String) -> String {
        lock.withLock {
            defer { nextBranch += 1 }
            return "\(prefix)-\(nextBranch)"
        }
    }

    func registerAuxiliary(_ name: String, _ onError: @escaping @Sendable (GpickError) -> Void) {
        lock.withLock { auxiliary[name] = onError }
    }
    func unregisterAuxiliary(_ name: String) { lock.withLock { _ = auxiliary.removeValue(forKey: name) } }

    func register(_ r: MovieRecording) { lock.withLock { recordings[r.branchName] = r } }
    func unregister(_ r: MovieRecording) { lock.withLock { _ = recordings.removeValue(forKey: r.branchName) } }
}

/// Runs `body` with a time limit, throwing `CancellationError` when it runs out.
func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            throw CancellationError()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
