import GpickTerminal
import FoundationEssentials
import Glibc
import GstCore

/// How each kind of preview is wired: counting probes, the window sink and its title, the
/// terminal renderer, the HTTP stream.
extension Preview {
    func configure(bin: Bin, options: PreviewOptions) throws(GpickError) {
        // What enters and leaves the preview's leaky queue: the difference is what it dropped.
        if let queue = bin.element(named: "video") {
            queue.staticPad("sink")?.addProbe(.buffer) { [weak self] _ in
                guard let self else { return .ok }
                return self.state.withLock { s -> ProbeReturn in
                    if s.paused { return .drop }
                    s.entered += 1
                    return .ok
                }
            }
            queue.staticPad("src")?.addProbe(.buffer) { [weak self] _ in
                self?.framePassed()
                return .ok
            }
        }
        switch sink {
        case .window:
            // Keys pressed in the window travel upstream as navigation events.
            if let pad = bin.element(named: "video")?.staticPad("src") {
                pad.addProbe(.buffer) { [weak self] _ in
                    self?.state.withLock { $0.shown += 1 }
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
                self.stream?.publish(sample.data)
                self.state.withLock { $0.shown += 1 }
            }
        case .terminal:
            if let handler = options.frameHandler {
                state.withLock { $0.frameHandler = handler; $0.frameBox = options.frameBox }
                try fitFrames(bin, options.frameBox)
                try appsink(bin) { [weak self] sample in self?.hand(sample) }
                return
            }
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
    func addWindowSink(_ element: Element, to bin: Bin, report: WindowSinkReport, title: String) throws(GpickError) {
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
        state.withLock { $0.windowSink = report.chosen }
        if let wayland = report.display.systems.first(where: { $0.0 == .wayland })?.1 {
            let watch = WaylandConnectionErrors.watch { [weak self] reason in self?.windowLost(reason, display: wayland) }
            state.withLock { $0.waylandWatch = watch }
        }
        // Only a GL window on X11 has an X window id (on Wayland it is a surface).
        guard element.hasProperty("context"), report.display.systems.first?.0 == .x11,
              let display = report.display.x11Name, let pad = element.staticPad("sink") else { return }
        // The sink is looked up from the pad: a closure holding it would keep it alive through
        // its own pad if no frame ever came.
        pad.addProbe(.buffer) { info in
            if let sink = Pad(info.pad, transfer: .none).parentElement {
                OffPool.detach { WindowTitle.set(title, onGLSink: sink, display: display) }
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

    /// Sets the caps of the branch's "size" when no frame is past its queue. The scaler and
    /// "size" run in the queue's streaming thread: set from another thread, the caps could
    /// change between the scaler choosing its output for them and "size" being told, which
    /// refused that output and failed the session ("format not supported"), a few times in a
    /// hundred resizes under load. At an idle moment of the queue's output nothing is between
    /// them, and the scaler's next frame is made for the new caps. (An idle probe runs at once
    /// when the pad is idle, else after the frame in flight, in the order the calls came.)
    private func setSize(_ bin: Bin, _ caps: String) throws(GpickError) {
        let filter: Element, wanted: Caps
        do {
            filter = try bin.requireElement(named: "size")
            wanted = try Caps(caps)
            // Setting caps fails only on an element without them: said here, where it can be.
            _ = try filter.propertyInfo("caps")
        } catch {
            throw GpickError(.pipeline, "preview-\(sink.rawValue): \(error.message)")
        }
        // Applied at an idle moment of the queue, and always the newest size asked for, set
        // under the lock it is read under: two requests' probes can run out of order (one
        // waiting for the streaming thread to go idle, the next run at once on the caller's
        // thread as the pad had just gone idle), and the older size was once left in place
        // (frames stayed 80×60 after the box was set to 317×201, in a loaded run).
        state.withLock { $0.wantedSize = wanted }
        let apply: @Sendable () -> Void = { [weak self] in
            self?.state.withLock { s in
                if let caps = s.wantedSize { try? filter.set("caps", caps: caps) }
            }
        }
        guard let pad = bin.element(named: "video")?.staticPad("src") else { return apply() }
        pad.addProbe(.idle) { _ in
            apply()
            return .remove
        }
    }

    /// Fits the session's picture into the terminal: one cell is two square pixels stacked, and
    /// the last row is the status line.
    private func resizeTerminal(_ bin: Bin) throws(GpickError) {
        let (cols, rows) = TerminalScreen.size(fd: screen?.fd ?? 1) ?? (80, 24)
        let f = format
        let (w, h) = Self.fit(width: f.width, height: f.height, maxWidth: cols, maxHeight: max(2, (rows - 1) * 2))
        state.withLock { $0.renderer.invalidate() }
        try setSize(bin, "video/x-raw,format=RGB,width=\(w),height=\(h),pixel-aspect-ratio=1/1")
    }

    /// Frames for a handler fit `box` from now on (the picker's camera cell changed size).
    public func setFrameBox(_ box: PixelBox) throws(GpickError) {
        guard sink == .terminal, state.withLock({ $0.frameHandler != nil }) else { return }
        state.withLock { $0.frameBox = box }
        try fitFrames(bin, box)
    }

    private func fitFrames(_ bin: Bin, _ box: PixelBox) throws(GpickError) {
        let (w, h) = Self.fit(width: format.width, height: format.height, maxWidth: max(2, box.width), maxHeight: max(2, box.height))
        try setSize(bin, "video/x-raw,format=RGB,width=\(w),height=\(h),pixel-aspect-ratio=1/1")
    }

    /// Copies a frame out for the handler (the sample's memory goes back to the pipeline).
    private func hand(_ sample: Sample) {
        guard let handler = state.withLock({ $0.frameHandler }), let info = sample.videoInfo else { return }
        let frame: RGBFrame? = sample.withVideoFrame { frame in
            let plane = frame.planes[0]
            let raw = UnsafeRawBufferPointer(start: plane.data, count: plane.stride * frame.height)
            return RGBFrame(width: info.width, height: info.height, stride: plane.stride, bytes: Array(raw))
        }
        if let frame { handler(frame) }
        state.withLock { $0.shown += 1 }
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
        let camera = session.map { "\($0.position.rawValue) \($0.source)" } ?? ""
        let status = "gpick · \(camera) · \(format.width)×\(format.height) \(format.fps) fps · f flip · s snap · q quit"
        let bytes: [UInt8]? = sample.withVideoFrame { frame in
            let plane = frame.planes[0]
            let raw = UnsafeRawBufferPointer(start: plane.data, count: plane.stride * frame.height)
            return state.withLock {
                $0.renderer.render(rgb: raw, width: info.width, height: info.height, stride: plane.stride, statusLine: status)
            }
        }
        if let bytes, !bytes.isEmpty { screen.write(bytes) }
        state.withLock { $0.shown += 1 }
    }
}
