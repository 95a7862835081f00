import GpickBase
import GstCore

/// A camera served over RTSP: a branch on the session's video tee encodes once (pipelines'
/// `serve-rtsp`), and every viewer's media (gst-rtsp-server shares one per mount) gets the same
/// encoded frames. Capture never waits for a viewer: the media's appsrc drops what it cannot take.
/// Stills, recordings, live photos and flips go on as without it.
public final class RTSPStream: SessionOutput {
    public let name: String
    public let server: RTSPServer
    private weak let session: CaptureSession?
    let branch: Branch
    let mount: RTSPMount
    private let stopped = Locked(false)

    /// The URL viewers open.
    public var url: String { server.url(name) }
    /// Frames encoded so far (every viewer gets them from the first keyframe after joining).
    public var framesEncoded: Int { mount.framesEncoded }
    /// Medias being fed now: one per mount while anyone watches (viewers share it).
    public var liveMedias: Int { mount.liveMedias }
    var bin: Bin { branch.bin }

    private init(name: String, server: RTSPServer, session: CaptureSession, branch: Branch, mount: RTSPMount) {
        self.name = name
        self.server = server
        self.session = session
        self.branch = branch
        self.mount = mount
    }

    /// Mount names: what a URL's path may hold without escaping.
    static func checkName(_ name: String) throws(GpickError) {
        let allowed = name.utf8.allSatisfy { c in
            (0x61...0x7a).contains(c | 0x20) || (0x30...0x39).contains(c) || c == 0x2d || c == 0x5f || c == 0x2e
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed, name.first != "." else {
            throw GpickError(.usage, "stream name \"\(name)\" must be 1 to 64 letters, digits, '-', '_' or '.' (not first)")
        }
    }

    /// Starts serving the running session at `rtsp://…/name`. `values` set the pipeline file's
    /// parameters (bitrate, key-interval, speed-preset, tune).
    public static func start(in session: CaptureSession, on server: RTSPServer, name: String = "cam",
                             values: [String: Parameter.Value] = [:], pipelineFile: PipelineFile? = nil) async throws(GpickError) -> RTSPStream {
        try checkName(name)
        let graph = try session.graphForOutput()
        let file: PipelineFile
        if let pipelineFile { file = pipelineFile } else { file = try session.configuration.library.load("serve-rtsp") }
        guard let media = file.media else {
            throw file.error(file.pipeline.line, "\(file.name) has no media: what gst-rtsp-server builds for each viewer")
        }
        let bin = try await PipelineBuilder.build(file, values: values, asPipeline: false)
        let branch = try Branch(bin: bin, name: session.allocateBranchName("rtsp"), audio: false)
        guard let sinkElement = bin.element(named: "sink"), let sink = try? AppSink(sinkElement) else {
            throw file.error(file.pipeline.line, "a branch with a media ends in an appsink named \"sink\"")
        }
        let mount = RTSPMount(sink: sink)
        sink.setCallbacks(onSample: { mount.deliver($0) }, onEOS: { mount.drained.fire() })
        let stream = RTSPStream(name: name, server: server, session: session, branch: branch, mount: mount)
        session.register(stream)
        do throws(GpickError) {
            try await branch.attach(to: graph, videoProbe: nil, audioProbe: nil)
        } catch {
            session.unregister(stream)
            await branch.detach()
            throw error
        }
        server.mount(name, launch: "( \(media.value) )", media: mount)
        return stream
    }

    /// Stops serving: new viewers are refused; those watching get every frame captured before
    /// the stop (the encoder drains, within a few seconds), then the end of the stream; the branch
    /// leaves the session.
    public func stop() async { await finish(drain: true) }

    private func finish(drain: Bool) async {
        guard stopped.withLock({ s -> Bool in defer { s = true }; return !s }) else { return }
        server.unmount(name)
        if drain {
            branch.endVideoInput()
            await mount.drained.wait(timeout: 5)
        } else {
            await branch.cutInputAndWait()
        }
        mount.endAll()
        await branch.detach()
        session?.unregister(self)
    }

    /// The session is stopping: viewers get what was captured, then the end.
    func finishBeforeStop() async { await finish(drain: true) }

    /// Something in the branch failed: nothing is left to drain.
    func elementFailed(_ error: GStreamerError, source: SourceSpec) {
        Task { await self.finish(drain: false) }
    }

    func sessionFailed(_ error: GpickError) {
        Task { await self.finish(drain: false) }
    }
}

/// What one mount's medias get: the encoded frames, from each media's first keyframe on. A media
/// that joins asks the encoder for a keyframe, so a viewer waits no longer than one frame's encode.
///
/// Each media's frames keep the spacing they were captured with: the first is stamped with the
/// media's running time when it is pushed, each later one that plus its capture time since. An
/// encoder that falls behind and then catches up sends frames in a burst; stamped on arrival,
/// they would be a millisecond apart, and viewers that store milliseconds (Matroska) would see
/// duplicates.
final class RTSPMount: Sendable {
    private let sink: AppSink
    private let state = Locked(State())
    /// Fired when the branch's end of stream reaches its appsink: every frame is delivered.
    let drained = Signal()

    private struct Feed {
        let src: AppSrc
        /// The sample time of the media's first frame, and the media's running time it was given.
        var origin: (sample: UInt64, media: UInt64)?
    }

    private struct State {
        /// Live medias by their appsrc's address.
        var feeds: [UInt: Feed] = [:]
        var encoded = 0
        var ended = false
    }

    init(sink: AppSink) { self.sink = sink }

    var framesEncoded: Int { state.withLock { $0.encoded } }
    var liveMedias: Int { state.withLock { $0.feeds.count } }

    /// A media came to life (on the server's thread): it waits for the next keyframe, asked for now.
    func mediaAdded(_ element: Element) {
        guard let src = try? AppSrc(element) else { return }
        let added = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.feeds[UInt(bitPattern: element.pointer)] = Feed(src: src)
            return true
        }
        if added { sink.sendEvent(.forceKeyUnit()) }
        else { src.endOfStream() }
    }

    /// A viewer starts playing a media that is already flowing: what it gets until the next
    /// keyframe cannot be decoded, so one is asked for now.
    func viewerJoined() {
        sink.sendEvent(.forceKeyUnit())
    }

    func mediaRemoved(_ element: Element) {
        state.withLock { _ = $0.feeds.removeValue(forKey: UInt(bitPattern: element.pointer)) }
    }

    /// One encoded frame (on the branch's streaming thread), to every media that has had its
    /// keyframe or gets one now.
    func deliver(_ sample: Sample) {
        guard let time = sample.buffer?.pts else { return }
        let keyframe = sample.buffer?.isKeyframe ?? false
        // Read outside the lock: it asks the media's clock.
        let starting = state.withLock { s -> [UInt: AppSrc] in
            s.encoded += 1
            guard keyframe else { return [:] }
            return s.feeds.filter { $0.value.origin == nil }.mapValues(\.src)
        }
        let origins = starting.compactMapValues { src in src.currentRunningTime.map { (sample: time, media: $0) } }
        // A media without its clock yet cannot start on this keyframe: another, soon.
        if origins.count < starting.count { sink.sendEvent(.forceKeyUnit()) }
        let targets = state.withLock { s -> [(AppSrc, UInt64)] in
            var out: [(AppSrc, UInt64)] = []
            for (k, feed) in s.feeds {
                var origin = feed.origin
                if origin == nil, let o = origins[k] {
                    origin = o
                    s.feeds[k]?.origin = o
                }
                // Frames before the media's first keyframe (or before it has a clock) wait.
                guard let origin, time >= origin.sample else { continue }
                out.append((feed.src, origin.media + (time - origin.sample)))
            }
            return out
        }
        // A media being torn down refuses the push: it is about to be removed.
        for (src, pts) in targets { try? src.push(sample, at: pts) }
    }

    /// Ends every media's stream (viewers see its end) and takes no new ones.
    func endAll() {
        let srcs = state.withLock { s -> [AppSrc] in
            s.ended = true
            defer { s.feeds.removeAll() }
            return s.feeds.values.map(\.src)
        }
        for src in srcs { src.endOfStream() }
    }
}
