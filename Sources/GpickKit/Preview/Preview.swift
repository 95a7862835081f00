import Dispatch
import FoundationEssentials
import Glibc
import GstCore

/// A live preview on a running session: a branch on the session's video tee that drops frames
/// rather than wait (a slow display, terminal or viewer never holds back capture or a recording),
/// shown in a window, the terminal or over HTTP. Keys pressed in a window or terminal come back
/// through `onKey`.
///
/// `@unchecked Sendable` invariant: the mutable parts (renderer, sizes, counters) are guarded by
/// `lock`; the branch is attached and detached on the session's control queue.
public final class Preview: @unchecked Sendable {
    public let sink: PreviewSink
    /// The page to open, for the HTTP preview.
    public var url: String? { server?.url }
    private let session: CaptureSession
    private let branch: Branch
    private let server: MJPEGServer?
    private let screen: TerminalScreen?
    private let lock = Lock()
    private var renderer = TerminalRenderer()
    private var shown = 0
    private var stopped = false
    private var onKey: (@Sendable (PreviewKey) -> Void)?
    private var onClosed: (@Sendable (GpickError?) -> Void)?

    /// Frames drawn, encoded or handed to the window so far.
    public var framesShown: Int { lock.withLock { shown } }
    /// Frames that reached the preview (shown ones and dropped ones).
    public var framesOffered: Int { lock.withLock { entered } }
    /// Frames the preview's queue dropped because the display, encoder or terminal was still busy
    /// with an earlier one (capture never waits for a preview).
    public var framesDropped: Int { lock.withLock { entered - passed } }
    private var entered = 0
    private var passed = 0
    /// The window sink in use (a window preview).
    public var windowSinkName: String? { lock.withLock { windowSink } }
    private var windowSink: String?
    /// HTTP viewers connected now.
    public var viewerCount: Int { server?.viewerCount ?? 0 }

    private init(sink: PreviewSink, session: CaptureSession, branch: Branch, server: MJPEGServer?, screen: TerminalScreen?) {
        self.sink = sink
        self.session = session
        self.branch = branch
        self.server = server
        self.screen = screen
    }

    /// Starts a preview of `sink` on the running session.
    public static func start(_ sink: PreviewSink, in session: CaptureSession, options: PreviewOptions = .init(),
                             onKey: (@Sendable (PreviewKey) -> Void)? = nil) async throws(GpickError) -> Preview {
        let file = try session.configuration.library.load("preview-\(sink.rawValue)")
        let bin = try PipelineBuilder.build(file, asPipeline: false)
        var window: (Element, WindowSinkReport)?
        if let candidates = file.windowSinks {
            // Opening displays blocks: off the cooperative pool.
            window = try await Background { () throws(GpickError) in try WindowSinkChooser.choose(candidates) }.value()
        } else if sink == .window {
            throw file.error(file.pipeline.line, "a window preview needs window-sinks: the video sinks to try, per window system")
        }
        let branch = try Branch(bin: bin, name: session.allocateBranchName("preview"), audio: false)
        var server: MJPEGServer?
        var screen: TerminalScreen?
        switch sink {
        case .http:
            server = try MJPEGServer(port: options.port, title: options.title)
        case .terminal:
            screen = try TerminalScreen()
        case .window:
            break
        }
        let preview = Preview(sink: sink, session: session, branch: branch, server: server, screen: screen)
        preview.onKey = onKey
        do throws(GpickError) {
            try preview.configure(bin: bin, options: options)
            if let (element, report) = window { try preview.addWindowSink(element, to: bin, report: report, title: options.title) }
            session.registerAuxiliary(branch.name) { [weak preview] error in preview?.branchFailed(error) }
            let attached = await session.onControl { () -> GpickError? in
                do throws(GpickError) { try branch.attach(to: session, videoProbe: nil, audioProbe: nil); return nil } catch { return error }
            }
            if let attached { throw attached }
        } catch {
            server?.close()
            screen?.restore()
            session.unregisterAuxiliary(branch.name)
            throw error
        }
        return preview
    }

    /// Called when the preview ends by itself (the window was closed: error nil, or it failed).
    public func onClosed(_ handler: @escaping @Sendable (GpickError?) -> Void) {
        lock.withLock { onClosed = handler }
    }

    /// Stops the preview: the branch leaves the tee at an idle moment, then is torn down.
    public func stop() async {
        guard lock.withLock({ () -> Bool in
            defer { stopped = true }
            return !stopped
        }) else { return }
        await branch.cutInputAndWait()
        // The frame still in the queue passes on within moments: then the counts are final.
        for _ in 0..<20 where framesDropped > 0 { try? await Task.sleep(nanoseconds: 5_000_000) }
        let (b, s) = (branch, session)
        await session.onControl { b.detach(from: s) }
        session.unregisterAuxiliary(branch.name)
        server?.close()
        screen?.restore()
    }

    // MARK: wiring

    private func configure(bin: Bin, options: PreviewOptions) throws(GpickError) {
        let format = session.format
        // What enters and leaves the preview's leaky queue: the difference is what it dropped.
        if let queue = bin.element(named: "video") {
            queue.staticPad("sink")?.addProbe(.buffer) { [weak self] _ in
                if let self { self.lock.withLock { self.entered += 1 } }
                return .ok
            }
            queue.staticPad("src")?.addProbe(.buffer) { [weak self] _ in
                if let self { self.lock.withLock { self.passed += 1 } }
                return .ok
            }
        }
        switch sink {
        case .window:
            // Keys pressed in the window travel upstream as navigation events.
            if let pad = bin.element(named: "video")?.staticPad("src") {
                pad.addProbe(.buffer) { [weak self] _ in
                    if let self { self.lock.withLock { self.shown += 1 } }
                    return .ok
                }
                pad.addProbe(.eventUpstream) { [weak self] info in
                    if let name = info.navigationKeyPress, let key = PreviewKey(name: name) { self?.key(key) }
                    return .ok
                }
            }
        case .http:
            let (w, h) = Self.fit(width: format.width, height: format.height, maxWidth: options.maxHTTPWidth, maxHeight: options.maxHTTPWidth)
            try setSize(bin, "video/x-raw,width=\(w),height=\(h)")
            try appsink(bin) { [weak self] sample in
                guard let self else { return }
                self.server?.publish(sample.data)
                self.lock.withLock { self.shown += 1 }
            }
        case .terminal:
            guard let screen else { return }
            try resizeTerminal(bin)
            screen.onResize { [weak self, weak bin] _, _ in
                guard let self, let bin else { return }
                try? self.resizeTerminal(bin)
            }
            screen.onKey { [weak self] byte in
                if let key = PreviewKey(byte: byte) { self?.key(key) }
            }
            try appsink(bin) { [weak self] sample in self?.draw(sample) }
        }
    }

    /// Links the chosen window sink after `convert`. A GL sink's window gets its title once it
    /// exists (with the first frame).
    private func addWindowSink(_ element: Element, to bin: Bin, report: WindowSinkReport, title: String) throws(GpickError) {
        do {
            try? element.set("sync", false)
            try bin.add(element)
            guard let from = bin.element(named: "convert")?.staticPad("src"), let to = element.staticPad("sink") else {
                throw GpickError(.pipeline, "preview-window: no element named \"convert\" to link the window sink after")
            }
            try from.link(to: to)
        } catch let e as GpickError {
            throw e
        } catch {
            throw GpickError(.pipeline, "preview-window: \(error)")
        }
        lock.withLock { windowSink = report.chosen }
        // Only a GL window on X11 has an X window id (on Wayland it is a surface).
        guard element.hasProperty("context"), report.display.systems.first?.0 == .x11,
              let display = report.display.x11Name, let pad = element.staticPad("sink") else { return }
        // The sink is looked up from the pad: a closure holding it would keep it alive through
        // its own pad if no frame ever came.
        pad.addProbe(.buffer) { info in
            if let sink = Pad(info.pad, transfer: .none).parentElement {
                DispatchQueue.global().async { WindowTitle.set(title, onGLSink: sink, display: display) }
            }
            return .remove
        }
    }

    private func appsink(_ bin: Bin, _ body: @escaping @Sendable (Sample) -> Void) throws(GpickError) {
        do {
            try AppSink(try bin.requireElement(named: "out")).setCallbacks(onSample: body)
        } catch {
            throw GpickError(.pipeline, "preview-\(sink.rawValue): \(error.message)")
        }
    }

    private func setSize(_ bin: Bin, _ caps: String) throws(GpickError) {
        do {
            try bin.requireElement(named: "size").set("caps", caps: try Caps(caps))
        } catch {
            throw GpickError(.pipeline, "preview-\(sink.rawValue): \(error.message)")
        }
    }

    /// Fits the session's picture into the terminal: one cell is two square pixels stacked, and
    /// the last row is the status line.
    private func resizeTerminal(_ bin: Bin) throws(GpickError) {
        let (cols, rows) = TerminalScreen.size(fd: screen?.fd ?? 1) ?? (80, 24)
        let f = session.format
        let (w, h) = Self.fit(width: f.width, height: f.height, maxWidth: cols, maxHeight: max(2, (rows - 1) * 2))
        lock.withLock { renderer.invalidate() }
        try setSize(bin, "video/x-raw,format=RGB,width=\(w),height=\(h),pixel-aspect-ratio=1/1")
    }

    /// The largest size with the picture's aspect ratio inside the box (at least 2×2).
    static func fit(width: Int, height: Int, maxWidth: Int, maxHeight: Int) -> (Int, Int) {
        if width <= maxWidth && height <= maxHeight { return (width, height) }
        let scale = min(Double(maxWidth) / Double(width), Double(maxHeight) / Double(height))
        let w = max(2, Int(Double(width) * scale) & ~1), h = max(2, Int(Double(height) * scale) & ~1)
        return (w, h)
    }

    private func draw(_ sample: Sample) {
        guard let screen, let info = sample.videoInfo else { return }
        let status = "gpick · \(session.position.rawValue) \(session.source) · \(session.format.width)×\(session.format.height) \(session.format.fps) fps · f flip · s snap · q quit"
        let bytes: [UInt8]? = sample.withVideoFrame { frame in
            let plane = frame.planes[0]
            let raw = UnsafeRawBufferPointer(start: plane.data, count: plane.stride * frame.height)
            return lock.withLock {
                renderer.render(rgb: raw, width: info.width, height: info.height, stride: plane.stride, statusLine: status)
            }
        }
        if let bytes, !bytes.isEmpty { screen.write(bytes) }
        lock.withLock { shown += 1 }
    }

    private func key(_ k: PreviewKey) {
        lock.withLock { onKey }?(k)
    }

    /// An element of the preview failed; a closed window is the user quitting.
    private func branchFailed(_ error: GpickError) {
        let closed = error.message.lowercased().contains("window was closed")
        let handler = lock.withLock { onClosed }
        Task { await self.stop() }
        handler?(closed ? nil : error)
        if closed { key(.quit) }
    }
}
