import GpickBase
import GstCore

/// A camera served over RTSP: a branch on the session's video tee (and audio tee, when the
/// session has sound) encodes once (pipelines' `serve-rtsp`), and every viewer's media
/// (gst-rtsp-server shares one per mount) gets the same encoded frames. Capture never waits for a viewer: the media's appsrc drops what it cannot take.
/// Stills, recordings, live photos and flips go on as without it.
public final class RTSPStream: SessionOutput {
    public let name: String
    public let server: RTSPServer
    private weak let session: CaptureSession?
    let branch: Branch
    let mount: EncodedFeeds
    private let stopped = Locked(false)

    /// The URL viewers open.
    public var url: String { server.url(name) }
    /// Frames encoded so far (every viewer gets them from the first keyframe after joining).
    public var framesEncoded: Int { mount.framesEncoded }
    /// Medias being fed now: one per mount while anyone watches (viewers share it).
    public var liveMedias: Int { mount.liveFeeds }
    var bin: Bin { branch.bin }

    private init(name: String, server: RTSPServer, session: CaptureSession, branch: Branch, mount: EncodedFeeds) {
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
    /// parameters (bitrate, key-interval, speed-preset, tune, psy-tune).
    public static func start(in session: CaptureSession, on server: RTSPServer, name: String = "cam",
                             values: [String: Parameter.Value] = [:], pipelineFile: PipelineFile? = nil) async throws(GpickError) -> RTSPStream {
        try checkName(name)
        let graph = try session.graphForOutput()
        let file: PipelineFile
        if let pipelineFile { file = pipelineFile } else { file = try session.configuration.library.load("serve-rtsp") }
        guard let media = file.media else {
            throw file.error(file.pipeline.line, "\(file.name) has no media: what gst-rtsp-server builds for each viewer")
        }
        var launch = media.value
        let audio = session.hasAudio
        if audio {
            guard let mediaAudio = file.mediaAudio, file.audio != nil else {
                throw file.error(file.pipeline.line, "\(file.name) has no audio and media-audio: it cannot serve the session's sound")
            }
            launch += " " + mediaAudio.value
        }
        let (branch, mount) = try await EncodedFeeds.branch(file, values: values, in: session, named: "rtsp", audio: audio)
        let stream = RTSPStream(name: name, server: server, session: session, branch: branch, mount: mount)
        try await session.attach(stream, branch: branch, to: graph)
        server.mount(name, launch: "( \(launch) )", media: mount)
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
            branch.endAudioInput()
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
