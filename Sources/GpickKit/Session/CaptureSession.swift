import Foundation
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
    public var source: SourceSpec = .auto
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
    public init() {}
}

/// Something that happened in a session, for event streams and JSON output.
public enum SessionEvent: Sendable {
    case notice(String)
    case warning(String)
    case sourceFailed(GpickError)
}

/// A capture session: one pipeline that keeps running (source → format → tees) while outputs
/// (recordings, still taps, previews) are attached and detached. Stills come from the retained
/// frame tap, so a snap never pays a pipeline start.
///
/// `@unchecked Sendable` invariant: mutable state is guarded by `lock`; GStreamer objects are
/// thread-safe; state changes happen only from the caller's task or the control queue, never from
/// streaming threads.
public final class CaptureSession: @unchecked Sendable {
    public private(set) var configuration: SessionConfiguration
    let lock = NSLock()
    private(set) var pipeline: Pipeline?
    private(set) var videoTee: Element?
    private(set) var audioTee: Element?
    let frames: FrameHub
    private var busTask: Task<Void, Never>?
    private var failure: GpickError?
    private var recordings: [String: MovieRecording] = [:]
    private var nextBranch = 1
    private var eventHandler: (@Sendable (SessionEvent) -> Void)?
    /// State changes and teardown of branches run here, off the streaming threads.
    let control = DispatchQueue(label: "gpick.session.control")

    public init(_ configuration: SessionConfiguration) {
        self.configuration = configuration
        let skip = configuration.warmupFrames ?? (configuration.source.isCamera ? 10 : 0)
        frames = FrameHub(skip: skip)
    }

    /// Receives notices, warnings and source failures (called on any thread).
    public func onEvent(_ handler: @escaping @Sendable (SessionEvent) -> Void) {
        lock.withLock { eventHandler = handler }
    }

    func emit(_ e: SessionEvent) {
        lock.withLock { eventHandler }?(e)
    }

    public var format: SessionFormat { configuration.format }
    public var source: SourceSpec { configuration.source }
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
        try configuration.source.checkAccessible()
        let pipeline = try build()
        self.pipeline = pipeline
        startBusReader(pipeline)
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
            throw GpickError(.device, "\(configuration.source) delivered no frame within \(Int(configuration.startTimeout)) s")
        }
    }

    /// Finalises every recording (EOS, index written), then stops the pipeline.
    public func stop() async {
        let active = lock.withLock { Array(recordings.values) }
        for r in active { r.requestStop() }
        for r in active { _ = try? await r.finished() }
        if let p = pipeline {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                control.async {
                    _ = try? p.setState(.null)
                    c.resume()
                }
            }
        }
        busTask?.cancel()
        frames.fail(GpickError(.runtime, "the session has stopped"))
    }

    /// Frames delivered since the session started (after warm-up).
    public var deliveredFrames: Int { frames.frameCount }

    /// The retained frame: the newest frame the session has seen.
    public var latestFrame: Sample? { frames.latestFrame }

    /// `count` frames (every `every`-th) starting with the current one: zero shutter lag.
    public func nextFrames(_ count: Int, every: Int = 1) -> AsyncThrowingStream<Sample, Error> {
        frames.frames(count: count, every: every, fromCurrent: true)
    }

    /// Why the session failed, if it did.
    public var failureReason: GpickError? { lock.withLock { failure } }

    /// Sets a property on one of the session's own elements (`src.pattern ball`). Elements of
    /// output branches and anything that writes files or sends data are out of reach.
    public func setProperty(element: String, property: String, value: String) throws(GpickError) {
        guard let pipeline else { throw GpickError(.runtime, "the session is not running") }
        guard let e = pipeline.directChild(named: element) else {
            let names = pipeline.children.filter { $0.name != element }.map(\.name)
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

    private func build() throws(GpickError) -> Pipeline {
        let lib = configuration.library
        var sourcePart: PipelineBuilder.Part
        var testOptions: SourceSpec.TestOptions?
        switch configuration.source {
        case .test(let o):
            testOptions = o
            sourcePart = .init(try lib.load("source-test"), values: ["pattern": .string(o.pattern)])
        case .v4l2(let dev):
            sourcePart = .init(try lib.load("source-v4l2"), values: ["device": .string(dev)])
        case .file(let path):
            sourcePart = .init(try lib.load("source-file"), outputs: ["path": .string(path)])
        case .auto:
            throw GpickError(.runtime, "source not resolved")
        }
        if let custom = configuration.sourceFile {
            sourcePart = custom
            testOptions = nil
        }
        var sessionPart: PipelineBuilder.Part
        if let custom = configuration.sessionFile { sessionPart = custom } else { sessionPart = .init(try lib.load("session")) }
        let session = sessionPart.file
        var text = sourcePart.file.pipeline.value + " ! " + session.pipeline.value
        var parts = [sourcePart, sessionPart]
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
            try pipeline.requireElement(named: "format").set("caps", caps: caps)
            let sink = try AppSink(try pipeline.requireElement(named: "frames"))
            let hub = frames
            sink.setCallbacks(onSample: { hub.deliver($0) })
            videoTee = try pipeline.requireElement(named: "video")
            audioTee = hasAudio ? try pipeline.requireElement(named: "audio") : nil
            if let o = testOptions, let pad = try pipeline.requireElement(named: "format").staticPad("src") {
                TestSourceProbe(options: o).install(on: pad, source: try pipeline.requireElement(named: "src"))
            }
        } catch {
            throw GpickError(.pipeline, "session pipeline: \(error.message)")
        }
        return pipeline
    }

    static func resolveAuto() async -> SourceSpec {
        let devices = (try? await offPool { try DeviceMonitor.devices() }) ?? []
        for d in devices {
            if let p = d.path, access(p, R_OK | W_OK) == 0 { return .v4l2(device: p) }
        }
        return .test(.init())
    }

    // MARK: bus

    private func startBusReader(_ pipeline: Pipeline) {
        // A branch's error is pinned to it before anything else runs, so an EOS racing behind the
        // error cannot finalise the branch as a success.
        pipeline.bus.observeSync { [weak self] m in
            guard case .error(let e) = m, let self, let owner = self.owner(of: e) else { return }
            owner.markError(ErrorInterpreter.describe(e, source: self.configuration.source, output: owner.output.path))
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
            emit(.warning(w.description))
        case .latency:
            if let p = pipeline { control.async { p.recalculateLatency() } }
        case .missingPlugin(_, let description):
            fail(GpickError(.plugin, "missing GStreamer plugin: \(description) (run `gpick doctor`)"))
        default:
            break
        }
    }

    /// Sends an error to the recording it came from, or fails the session.
    private func route(_ e: GStreamerError) {
        if let owner = owner(of: e) {
            owner.fail(ErrorInterpreter.describe(e, source: configuration.source, output: owner.output.path))
            return
        }
        let error = ErrorInterpreter.describe(e, source: configuration.source)
        fail(error)
    }

    /// The recording an error came from. Paths read "/GstPipeline:pipeline0/GstBin:recording-1/GstFdSink:sink".
    private func owner(of e: GStreamerError) -> MovieRecording? {
        guard let path = e.sourcePath else { return nil }
        return lock.withLock { recordings.values.first { path.contains(":\($0.branchName)/") } }
    }

    /// A source or session failure: recordings are finalised with what they have.
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
