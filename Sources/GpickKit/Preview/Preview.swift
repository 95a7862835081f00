import GpickTerminal
import GpickWeb
import FoundationEssentials
import Glibc
import GstCore

/// A live preview on a running session: a branch on the session's video tee that drops frames
/// rather than wait (a slow display, terminal or viewer never holds back capture or a recording),
/// shown in a window, the terminal or over HTTP. Keys pressed in a window or terminal come back
/// through `onKey`. How each kind is wired is in PreviewWiring.swift.
public final class Preview: SessionOutput {
    public let sink: PreviewSink
    /// The page to open, for an HTTP preview with a server of its own; the stream's URL for one
    /// mounted on a shared server.
    public var url: String? { ownServer?.url ?? stream.map { $0.server.url($0.streamPath) } }
    weak let session: CaptureSession?
    let format: SessionFormat
    let branch: Branch
    /// The HTTP preview's frames, and the server it made for itself (none when it was given one).
    let stream: MJPEGStream?
    let ownServer: MJPEGServer?
    let screen: TerminalScreen?
    let state = Locked(State())
    /// Fired when what entered the preview's queue has all left it (see `stop`).
    let settled = Signal()
    /// Fired when the preview has stopped: a second `stop()` waits for the first.
    let stopped = Signal()

    /// Read and written only under `state`'s lock.
    struct State: ~Copyable {
        var renderer = TerminalRenderer()
        var shown = 0
        var entered = 0
        var passed = 0
        var stopping = false
        var windowSink: String?
        /// Its watch on the Wayland connection (a window on Wayland).
        var waylandWatch: UInt64?
        var onKey: (@Sendable (PreviewKey) -> Void)?
        var onClosed: (@Sendable (GpickError?) -> Void)?
        /// A terminal preview whose frames go to a handler: where, and in what box.
        var frameHandler: (@Sendable (RGBFrame) -> Void)?
        var frameBox = PixelBox(width: 160, height: 90)
        /// Frames are dropped before the preview's queue: nothing is scaled or encoded for it.
        var paused = false
        /// The newest size asked for, which every idle moment of the queue applies (see setSize).
        var wantedSize: Caps?
    }

    /// Pauses the preview (it keeps its last picture, and its viewers stay connected) or lets
    /// frames through again: a picker's resting camera cell costs no encoding.
    public func setPaused(_ paused: Bool) {
        state.withLock { $0.paused = paused }
    }

    /// Frames drawn, encoded or handed to the window so far.
    public var framesShown: Int { state.withLock { $0.shown } }
    /// Frames that reached the preview (shown ones and dropped ones).
    public var framesOffered: Int { state.withLock { $0.entered } }
    /// Frames the preview's queue dropped because the display, encoder or terminal was still busy
    /// with an earlier one (capture never waits for a preview).
    public var framesDropped: Int { state.withLock { $0.entered - $0.passed } }
    /// The window sink in use (a window preview).
    public var windowSinkName: String? { state.withLock { $0.windowSink } }
    /// HTTP viewers connected now.
    public var viewerCount: Int { stream?.viewerCount ?? 0 }
    var bin: Bin { branch.bin }

    private init(sink: PreviewSink, session: CaptureSession, branch: Branch, stream: MJPEGStream?, ownServer: MJPEGServer?,
                 screen: TerminalScreen?) {
        self.sink = sink
        self.session = session
        self.format = session.format
        self.branch = branch
        self.stream = stream
        self.ownServer = ownServer
        self.screen = screen
    }

    /// Starts a preview of `sink` on the running session.
    public static func start(_ sink: PreviewSink, in session: CaptureSession, options: PreviewOptions = .init(),
                             onKey: (@Sendable (PreviewKey) -> Void)? = nil) async throws(GpickError) -> Preview {
        let graph = try session.graphForOutput()
        let file = try session.configuration.library.load("preview-\(sink.rawValue)")
        let bin = try await PipelineBuilder.build(file, asPipeline: false)
        var window: (Element, WindowSinkReport)?
        if let candidates = file.windowSinks {
            // Opening displays blocks: off the cooperative pool.
            window = try await OffPool.run { () throws(GpickError) in try WindowSinkChooser.choose(candidates) }
        } else if sink == .window {
            throw file.error(file.pipeline.line, "a window preview needs window-sinks: the video sinks to try, per window system")
        }
        let branch = try Branch(bin: bin, name: session.allocateBranchName("preview"), audio: false)
        var stream: MJPEGStream?
        var ownServer: MJPEGServer?
        var screen: TerminalScreen?
        switch sink {
        case .http:
            if let shared = options.server {
                stream = MJPEGStream(on: shared, streamPath: options.streamPath, snapshotPath: options.snapshotPath)
            } else {
                ownServer = try MJPEGServer(port: options.port, title: options.title)
                stream = ownServer?.stream
            }
        case .terminal:
            screen = options.frameHandler == nil ? try TerminalScreen() : nil
        case .window:
            break
        }
        let preview = Preview(sink: sink, session: session, branch: branch, stream: stream, ownServer: ownServer, screen: screen)
        preview.state.withLock { $0.onKey = onKey }
        do throws(GpickError) {
            try preview.configure(bin: bin, options: options)
            if let (element, report) = window { try preview.addWindowSink(element, to: bin, report: report, title: options.title) }
            session.register(preview)
            try await branch.attach(to: graph, videoProbe: nil, audioProbe: nil)
        } catch {
            session.unregister(preview)
            await branch.detach()
            stream?.close()
            ownServer?.close()
            screen?.restore()
            throw error
        }
        return preview
    }

    /// Called when the preview ends by itself (the window was closed: error nil, or it failed).
    public func onClosed(_ handler: @escaping @Sendable (GpickError?) -> Void) {
        state.withLock { $0.onClosed = handler }
    }

    /// Stops the preview: the branch leaves the tee at an idle moment, then is torn down.
    public func stop() async {
        guard state.withLock({ s -> Bool in defer { s.stopping = true }; return !s.stopping }) else {
            await stopped.wait()
            return
        }
        await branch.cutInputAndWait()
        // The frame still in the queue passes on within moments: then the counts are final.
        if framesDropped > 0 { await settled.wait(timeout: 0.1) }
        await branch.detach()
        if let watch = state.withLock({ s -> UInt64? in defer { s.waylandWatch = nil }; return s.waylandWatch }) {
            WaylandConnectionErrors.stop(watch)
        }
        session?.unregister(self)
        stream?.close()
        ownServer?.close()
        screen?.restore()
        stopped.fire()
    }

    /// A frame left the preview's queue.
    func framePassed() {
        let settledNow = state.withLock { s -> Bool in
            s.passed += 1
            return s.stopping && s.passed == s.entered
        }
        if settledNow { settled.fire() }
    }

    func key(_ k: PreviewKey) {
        state.withLock { $0.onKey }?(k)
    }

    /// The compositor ended the window's Wayland connection: its window shows nothing more.
    func windowLost(_ reason: String, display: String) {
        ended(GpickError(.device, "the Wayland compositor \(display) closed the preview window (\(reason))"))
    }

    /// An element of the preview failed. A window sink reports its window closed as "resource
    /// not found": that is the user quitting, not a failure.
    func elementFailed(_ error: GStreamerError, source: SourceSpec) {
        let closed = sink == .window && error.isResourceNotFound
        ended(closed ? nil : ErrorInterpreter.describe(error, source: source))
        if closed { key(.quit) }
    }

    /// The preview ended by itself: it stops, and `onClosed` hears why (nil: the window closed).
    private func ended(_ error: GpickError?) {
        let handler = state.withLock { $0.onClosed }
        Task { await self.stop() }
        handler?(error)
    }
}
