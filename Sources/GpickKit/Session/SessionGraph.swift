import FoundationEssentials
import GpickBase
import GstCore
import Synchronization

/// Building the session's pipeline and its cameras' stages, from pipeline files. Everything
/// here parses or sets up elements, so it runs off the cooperative pool (`OffPool`).
extension CaptureSession {
    /// The session file (custom or from the library); every source stage uses its input stage.
    func loadSessionFile() throws(GpickError) -> PipelineBuilder.Part {
        let part: PipelineBuilder.Part
        if let custom = configuration.sessionFile { part = custom } else { part = .init(try configuration.library.load("session")) }
        state.withLock { $0.sessionFile = part.file }
        return part
    }

    /// The main pipeline: the session file's feed, tees and retained-frame tap (and audio).
    @available(*, noasync, message: "it parses: run it in OffPool")
    func build(_ sessionPart: PipelineBuilder.Part) throws(GpickError) -> Graph {
        let lib = configuration.library
        let session = sessionPart.file
        var text = session.pipeline.value
        var parts = [sessionPart]
        if hasAudio {
            var audio: PipelineBuilder.Part
            if let custom = configuration.audioFile { audio = custom } else {
                audio = .init(try lib.load(configuration.audio == .auto ? "audio-auto" : "audio-test"))
            }
            text += "\n" + audio.file.pipeline.value + " ! " + (session.audio?.value ?? "tee name=audio allow-not-linked=true")
            parts.append(audio)
        }
        let bin = try PipelineBuilder.compose(text, parts: parts, asPipeline: true)
        guard let pipeline = bin as? Pipeline else { throw GpickError(.runtime, "session did not build a pipeline") }
        // Cameras come and go (flips, a PipeWire node destroyed): the session's timeline must not
        // be one of their clocks.
        pipeline.useSystemClock()
        let f = format
        do {
            let caps = try Caps("video/x-raw,format=I420,width=\(f.width),height=\(f.height),framerate=\(f.fps)/1,pixel-aspect-ratio=1/1")
            let feed = try AppSrc(try pipeline.requireElement(named: "feed"))
            feed.setCaps(caps)
            let switcher = FrameSwitch(feed: feed, fps: f.fps, clock: { [weak pipeline] in pipeline?.runningTime },
                                       onPlaceholder: { [weak self] pts in self?.emit(.placeholder(pts)) })
            switchRef.value.withLock { $0 = switcher }
            let sink = try AppSink(try pipeline.requireElement(named: "frames"))
            let hub = frames
            sink.setCallbacks(onSample: { hub.deliver($0) })
            return Graph(pipeline: pipeline, videoTee: try pipeline.requireElement(named: "video"),
                         audioTee: hasAudio ? try pipeline.requireElement(named: "audio") : nil, switcher: switcher)
        } catch {
            throw GpickError(.pipeline, "session pipeline: \(error.message)")
        }
    }

    /// A frames-only session's pipeline: empty until the camera's stage is added.
    func buildFramesOnly() throws(GpickError) -> Graph {
        guard !hasAudio else { throw GpickError(.usage, "a frames-only session takes no audio") }
        do {
            let pipeline = try Pipeline(name: "session")
            pipeline.useSystemClock()
            return Graph(pipeline: pipeline, videoTee: nil, audioTee: nil, switcher: nil)
        } catch {
            throw GpickError(.pipeline, "session pipeline: \(error.message)")
        }
    }

    /// A stage for `spec`: its source part (or the `gpick run` override) then the session's input.
    @available(*, noasync, message: "it parses: run it in OffPool")
    func makeStage(_ spec: SourceSpec, position: CameraPosition, generation gen: Int) throws(GpickError) -> SourceStage {
        let lib = configuration.library
        var sourcePart: PipelineBuilder.Part
        var testOptions: SourceSpec.TestOptions?
        var label = "\(spec)"
        var v4l2: (device: String, mode: ModeRequest?)? = nil
        // A PipeWire or libcamera camera: its modes as its provider lists them.
        var listed: [CapsStructure]? = nil
        switch spec {
        case .test(let o):
            testOptions = o
            sourcePart = .init(try lib.load("source-test"), values: ["pattern": .string(o.pattern)])
        case .v4l2(let dev, let mode):
            sourcePart = .init(try lib.load("source-v4l2"), values: ["device": .string(dev)])
            v4l2 = (dev, mode ?? configuration.mode)
        case .pipewire(let target?):
            sourcePart = .init(try lib.load("source-pipewire"), values: ["target": .string(target)])
            listed = state.withLock { $0.listedFormats[position] }
        case .libcamera(let name?):
            sourcePart = .init(try lib.load("source-libcamera"), values: ["camera": .string(name)])
            listed = state.withLock { $0.listedFormats[position] }
        case .file(let path):
            sourcePart = .init(try lib.load("source-file"), outputs: ["path": .string(path)])
            label = path
        case .auto, .pipewire(nil), .libcamera(nil):
            throw GpickError(.runtime, "source \(spec) not resolved")
        }
        // The camera's controls, set before it opens (checked first: one refused sets nothing):
        // those remembered for it, then those given.
        try applyControls(spec, position: position, first: gen == 0)
        let replaced = configuration.sourceFile != nil && position == configuration.position
        if let custom = configuration.sourceFile, replaced {
            sourcePart = custom
            testOptions = nil
            label = custom.file.name
        }
        guard let sessionFile = state.withLock({ $0.sessionFile }) else { throw GpickError(.runtime, "the session is not built") }
        var text = sourcePart.file.pipeline.value + " ! " + (sessionFile.input?.value ?? "videoconvert ! videoscale ! capsfilter name=format")
        if position == .front && configuration.mirrorFront { text += " ! videoflip method=horizontal-flip" }
        // A test camera's latency: a queue that hands each frame on only once that many frames
        // came after it. (Counted in frames: a time threshold lets the first frame through.)
        if let latency = testOptions?.latency, latency > 0 {
            let frames = max(1, Int((latency * Double(format.fps)).rounded()))
            text += " ! queue name=latency min-threshold-buffers=\(frames) max-size-time=0 max-size-buffers=0 max-size-bytes=0"
        }
        let deliver: @Sendable (Sample) -> AppSink.Flow
        let ended: @Sendable () -> Void
        // A camera that goes quiet is lost (PipeWire reports no error when its node goes away).
        // (At least three frame intervals, for a session slower than one frame a second.)
        let stall = max(configuration.stallTimeout, 3 / Double(max(format.fps, 1)))
        // A PipeWire stream that is never linked is silent for good: it is opened again after the
        // silent-start timeout. A V4L2 or libcamera camera may take seconds to start (exposure,
        // a slow USB bridge): it has the whole start timeout before that.
        let silentAfter = spec.cameraKind == .pipewire ? configuration.silentStartTimeout : configuration.startTimeout
        let watchdog = spec.isCamera ? FrameWatchdog(timeout: stall, silentAfter: silentAfter) : nil
        if configuration.framesOnly {
            // Straight to the hub, after the camera's warm-up frames.
            let hub = frames, warmup = FrameCountdown(warmupFrames(for: spec))
            deliver = { [weak self] sample in
                watchdog?.frameArrived()
                guard warmup.pass() else { return .more }
                let first = hub.frameCount == 0
                hub.deliver(sample)
                if first { self?.sourceBecameLive(gen) }
                // The last frame asked for with lastFrames(): the camera ends its stream now,
                // before it makes another frame that nobody would take.
                guard let self, self.state.withLock({ $0.finishing }), !hub.hasSubscribers else { return .more }
                return .enough
            }
            ended = { [weak self, label] in
                // The end the camera makes after the last frame asked for is no source end; an
                // end while frames are still awaited is.
                guard let self, !(self.state.withLock({ $0.finishing }) && !hub.hasSubscribers) else { return }
                self.markSourceEnded(gen, label)
            }
        } else {
            let ref = switchRef  // the switch is made in build(), which may run beside this, before any frame flows
            deliver = { [weak self] sample in
                watchdog?.frameArrived()
                guard let self, let switcher = ref.value.withLock({ $0 }) else { return .more }
                if switcher.sourceFrame(sample, generation: gen) { self.sourceBecameLive(gen) }
                return .more
            }
            ended = { [weak self, label] in self?.markSourceEnded(gen, label) }
        }
        let stage = try SourceStage([sourcePart], text: text, position: position, spec: spec, generation: gen,
                                    testOptions: testOptions, format: format, deliver: deliver, ended: ended)
        // A V4L2 camera's mode, asked of the stage's own v4l2src (opened once, for both); a
        // PipeWire or libcamera camera's, from what its provider lists (raw formats: their
        // stages convert, they do not decode).
        var mjpeg = false
        if v4l2 != nil || (listed != nil && !replaced) {
            let chosen: ModeChoice.Chosen?
            do throws(GpickError) {
                let offers = listed.map { CapsModes.offers(from: $0).filter { $0.format.encoding == .raw } }
                chosen = try chooseMode(in: stage.bin, device: v4l2?.device ?? "\(spec)", asked: v4l2?.mode ?? configuration.mode,
                                        first: gen == 0, listed: offers)
            } catch {
                stage.abandon()
                throw error
            }
            if let chosen {
                mjpeg = chosen.mode.format.encoding == .mjpeg
                do throws(GpickError) { if gen == 0 { try followMode(chosen.mode, stage: stage) } } catch {
                    stage.abandon()
                    throw error
                }
                emit(.cameraMode(position, spec, chosen))
            }
            state.withLock { $0.modes[position] = chosen?.mode }
        }
        if mjpeg {
            // Damaged frames are dropped and counted; the count is reported at most once a second.
            MJPEGGuard.install(on: stage.bin, tally: droppedTally) { [weak self] total, problem in
                self?.emit(.framesDropped(position, spec, total, problem))
            }
        }
        if let watchdog {
            let seconds = stall, silent = max(silentAfter, stall)
            // A pipeline file of one's own in the camera's place opens no device of the spec's:
            // it is there while its stage is.
            let present: @Sendable () async -> Bool = { @Sendable in replaced ? true : await CameraDirectory.isPresent(spec) }
            stage.watch(watchdog, present: present) { [weak self] loss in
                switch loss {
                case .stopped:
                    self?.cameraStalled(gen, spec, why: "camera \(spec) stopped delivering frames for \(DurationText.format(seconds: seconds))")
                case .gone:
                    self?.markSourceLost(gen, GpickError(.device, "camera \(spec) went away before its first frame"))
                case .silent:
                    self?.cameraSilent(gen, spec, why: "camera \(spec) sent no frame within \(DurationText.format(seconds: silent)) of opening")
                }
            }
        }
        return stage
    }

    /// The mode a V4L2 camera runs in, from the modes the stage's own v4l2src reports once open
    /// (the device is probed once, by the element that streams), fixed in the stage's mode
    /// filter: by hand (`asked`), or for what the session delivers. nil when the device lists
    /// none (v4l2src then chooses), or when a pipeline file of the user's own has no mode filter.
    /// A pipeline file of one's own may put another element named "src" in v4l2src's place (one
    /// that replays a camera's modes and frames, say): its mode is chosen from what it advertises,
    /// in the same way. `listed`: the modes a PipeWire or libcamera camera's provider lists,
    /// chosen from instead of asking the element.
    @available(*, noasync, message: "it opens the device: make stages in OffPool")
    func chooseMode(in bin: Bin, device: String, asked: ModeRequest?, first: Bool = false,
                    listed: [ModeOffer]? = nil) throws(GpickError) -> ModeChoice.Chosen? {
        guard let filter = bin.element(named: "mode"), let src = bin.element(named: "src") else {
            if asked != nil { throw GpickError(.usage, "the camera's pipeline file has no mode filter after its camera element (capsfilter name=mode): its mode cannot be set") }
            return nil
        }
        let offers = listed ?? CapsModes.offers(from: CapsModes.probe(src))
        guard !offers.isEmpty else { return nil }
        // A session that follows its camera asks nothing of the first one it opens (its default
        // mode); every camera after that, for what the session delivers.
        let following = first && configuration.formatFromCamera
        let f = format
        let request = asked ?? (following ? .deliver(size: nil, rate: nil)
            : .deliver(size: ModeSize(width: f.width, height: f.height), rate: Fraction(f.fps, 1)))
        let chosen: ModeChoice.Chosen
        do {
            chosen = try ModeChoice.choose(from: offers, for: request)
        } catch {
            throw GpickError(error.kind, "camera \(device): \(error.message)")
        }
        do throws(GStreamerError) {
            try filter.set("caps", caps: try Caps(CapsModes.caps(for: chosen.mode)))
        } catch {
            throw GpickError(.pipeline, "camera \(device): cannot fix its mode: \(error.message)")
        }
        return chosen
    }

    /// A session that follows its camera's mode delivers its first camera's size and rate (a
    /// rate like 30000/1001 as the whole number above it, which the stage's videorate keeps): its
    /// stage is told so before it plays. A mode the session cannot deliver (an odd size) leaves
    /// the session's own format.
    @available(*, noasync, message: "it sets up elements: make stages in OffPool")
    func followMode(_ mode: CameraMode, stage: SourceStage) throws(GpickError) {
        guard configuration.formatFromCamera else { return }
        let delivered = SessionFormat(width: mode.width, height: mode.height, fps: max(1, Int(mode.rate.value.rounded(.up))))
        guard (try? delivered.validate()) != nil else { return }
        state.withLock { $0.delivered = delivered }
        do throws(GStreamerError) { try SourceStage.deliver(delivered, in: stage.bin) } catch {
            throw GpickError(.pipeline, "source \(stage.spec): \(error.message)")
        }
    }

    /// Sets the controls remembered for a V4L2 camera (`controlMemory`) and then those given;
    /// with `saveControls`, remembers those given for it, once they were set (on the first
    /// camera the session opens).
    @available(*, noasync, message: "it opens the device: make stages in OffPool")
    func applyControls(_ spec: SourceSpec, position: CameraPosition, first: Bool) throws(GpickError) {
        let memory = spec.cameraKind == .v4l2 && configuration.sourceFile == nil ? configuration.controlMemory : nil
        let key = memory.flatMap { m in spec.target.map { m.key(for: $0) } }
        var saved: [ControlSetting] = []
        if let memory, let key { saved = try memory.settings(for: key) }
        let settings = ControlMemory.merged(saved, configuration.controls)
        guard !settings.isEmpty else { return }
        let resolved: [ResolvedControl]
        do throws(GpickError) {
            resolved = try V4L2ControlDevice.of(spec).apply(settings)
        } catch {
            guard let memory, !saved.isEmpty else { throw error }
            throw GpickError(error.kind, "\(error.message) (controls saved for this camera in \(memory.path): remove its section to forget them)")
        }
        emit(.cameraControls(position, spec, resolved))
        if configuration.saveControls, first, let memory, let key, !configuration.controls.isEmpty {
            try memory.save(configuration.controls, for: key)
        }
    }

    func warmupFrames(for spec: SourceSpec) -> Int {
        configuration.warmupFrames ?? (spec.isCamera ? 10 : 0)
    }
}
