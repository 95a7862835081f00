import FoundationEssentials
import Glibc
import CFramePool
import GstCore
import Synchronization

/// One running source: a bin in the session pipeline holding the source part, the session's
/// `input` stage (convert, scale, format caps) and an appsink that hands frames to the switch.
/// Each start of a source is a new generation, so frames and errors of a stopped one are ignored.
final class SourceStage: Sendable {
    let bin: Bin
    let position: CameraPosition
    let spec: SourceSpec
    let generation: Int
    /// For a camera: notices frames that stop (armed when the stage starts, disarmed when it stops).
    private let watchdog = Mutex<(FrameWatchdog, present: @Sendable () async -> Bool, lost: @Sendable (FrameWatchdog.Loss) -> Void)?>(nil)
    /// Whether the bin is in the pipeline, and whether the stage was stopped: a stage stopped
    /// before its start (another switch overtook it) never starts.
    private let life = Mutex<(added: Bool, stopped: Bool)>((false, false))

    @available(*, noasync, message: "it parses: make stages in OffPool")
    init(_ parts: [PipelineBuilder.Part], text: String, position: CameraPosition, spec: SourceSpec,
         generation: Int, testOptions: SourceSpec.TestOptions?, format: SessionFormat,
         deliver: @escaping @Sendable (Sample) -> AppSink.Flow, ended: @escaping @Sendable () -> Void) throws(GpickError) {
        self.position = position
        self.spec = spec
        self.generation = generation
        bin = try PipelineBuilder.compose(text + " ! appsink name=out sync=false async=false max-buffers=4 drop=false enable-last-sample=false",
                                          parts: parts, asPipeline: false)
        bin.setName("source-\(position.rawValue)-\(generation)")
        do {
            // The stage's state changes stay its own. A file source is live (its identity
            // sync=true) and its decodebin changes state asynchronously: GstBin forwarded the
            // decodebin's ASYNC_START to the pipeline but, once the stage had committed PAUSED,
            // not its ASYNC_DONE, and the pipeline waited for it in PAUSED for ever (`record`
            // from a file: "no frame within 15 s", about once in 20 to 60 runs). The stage hands
            // its frames over through an appsink; the pipeline has nothing to wait for in it.
            try bin.set("async-handling", true)
            try Self.deliver(format, in: bin)
            let formatElement = try bin.requireElement(named: "format")
            // A file source ends; its end stops at this appsink (the session's stream goes on).
            let out = try bin.requireElement(named: "out")
            try AppSink(out).setCallbacks(deciding: deliver, onEOS: ended)
            // The frames' pool frees what a pile-up downstream made it allocate (CFramePool):
            // four idle frames cover the stream's own jitter.
            if let pad = out.staticPad("sink") { gpick_frame_pool_offer(pad.pointer, 4) }
            if let o = testOptions, let pad = formatElement.staticPad("src") {
                TestSourceProbe(options: o).install(on: pad, source: try bin.requireElement(named: "src"))
            }
        } catch {
            throw GpickError(.pipeline, "source \(spec): \(error.message)")
        }
    }

    /// The stage's frame pool (CFramePool): buffers it allocated, and those it freed as they
    /// came back instead of keeping them idle. Zero before an element took it.
    var framePool: (allocated: UInt64, trimmed: UInt64) {
        guard let pad = bin.element(named: "out")?.staticPad("sink") else { return (0, 0) }
        return (UInt64(gpick_frame_pool_allocated(pad.pointer)), UInt64(gpick_frame_pool_trimmed(pad.pointer)))
    }

    /// Sets what the stage delivers (the input stage's `format` filter): the session's format, or
    /// its camera's mode once chosen, for a session that follows it.
    static func deliver(_ f: SessionFormat, in bin: Bin) throws(GStreamerError) {
        let caps = try Caps("video/x-raw,format=I420,width=\(f.width),height=\(f.height),framerate=\(f.fps)/1,pixel-aspect-ratio=1/1")
        try bin.requireElement(named: "format").set("caps", caps: caps)
    }

    /// Watches the stage's frames with `watchdog`; `lost` runs when they stop, or when the
    /// camera is gone before its first frame.
    /// `present` says whether the camera is still there (its device, node or name).
    func watch(_ watchdog: FrameWatchdog, present: @escaping @Sendable () async -> Bool,
               lost: @escaping @Sendable (FrameWatchdog.Loss) -> Void) {
        self.watchdog.withLock { $0 = (watchdog, present, lost) }
    }

    /// Adds the bin to the pipeline and starts it.
    func start(in pipeline: Pipeline) async throws(GpickError) {
        // A test source added to a running session counts its timestamps from 0; offset them to
        // now, as a camera's would be, so it paces itself by the clock instead of catching up.
        if case .test = spec, let now = pipeline.runningTime, now > 0, let src = bin.element(named: "src"),
           src.hasProperty("timestamp-offset") {
            try? src.set("timestamp-offset", .int(Int64(now)))
        }
        // Watched from before it starts: a PipeWire stream that is never linked holds its start
        // (the state change) for up to 30 s, and that is a silent camera too.
        if let (dog, present, lost) = watchdog.withLock({ $0 }) {
            dog.start(present: present, lost: lost)
        }
        do throws(GStreamerError) {
            let added = life.withLock { l -> Result<Bool, GStreamerError> in
                guard !l.stopped else { return .success(false) }
                do throws(GStreamerError) { try pipeline.add(bin) } catch { return .failure(error) }
                l.added = true
                return .success(true)
            }
            guard try added.get() else {
                throw GStreamerError(domain: .core, code: 0, message: "stopped before it started", source: bin.name)
            }
            try await bin.syncStateWithParent()
        } catch {
            watchdog.withLock { $0?.0.stop() }
            throw GpickError(.device, "\(spec) could not start: \(error.message)")
        }
    }

    /// Stops the source and removes it, off the cooperative pool (it waits for its streaming thread).
    /// Closes a stage that never joined the pipeline: its camera may have been opened (READY)
    /// to ask its modes.
    @available(*, noasync, message: "it changes states: call it off the cooperative pool")
    func abandon() {
        _ = try? bin.element(named: "src")?.setState(.null)
    }

    func stop(in pipeline: Pipeline) async {
        await OffPool.run { self.stopBlocking(in: pipeline) }
    }

    @available(*, noasync, message: "it waits for the stage's streaming thread: await stop(in:)")
    func stopBlocking(in pipeline: Pipeline) {
        watchdog.withLock { $0?.0.stop() }
        let added = life.withLock { l -> Bool in
            l.stopped = true
            return l.added
        }
        guard added else { return abandon() }
        // A start still waiting (another thread holds the state lock there) stops waiting, so
        // the stage can go to NULL now rather than when its source gives up.
        if let pad = bin.element(named: "src")?.staticPad("src") { _ = pad.sendEvent(.flushStart()) }
        _ = try? bin.setState(.null)
        pipeline.remove(bin)
    }
}
