import FoundationEssentials
import GpickKit
import Glibc
import GstCore


/// Runs script statements against one long-lived capture session: `gpick script` feeds it a
/// parsed file, `gpick session` one line at a time from stdin.
/// An actor: statements run one after another, whoever sends them.
public actor ScriptRunner {
    public struct Options: Sendable {
        public var configuration: SessionConfiguration
        /// Every file a script names lives in here (no `..`, no absolute paths elsewhere).
        public var outputDirectory: String
        public var keepGoing = false
        public var jpegQuality: Int?
        /// Live capture mode: the pre-roll ring is armed from the session's start.
        public var liveMode = false
        /// Port of an HTTP preview (0: any free port).
        public var previewPort = 8080
        /// Port of `serve start`'s RTSP server on 127.0.0.1 (0: any free port).
        public var rtspPort = 8554
        public init(configuration: SessionConfiguration, outputDirectory: String) {
            self.configuration = configuration
            self.outputDirectory = outputDirectory
        }
    }

    public typealias Emit = @Sendable (_ event: String, _ fields: EventFields) -> Void

    private var options: Options
    let emit: Emit
    private var session: CaptureSession?
    private var encoders: [StillFormat: StillEncoder] = [:]
    private var recording: (OpenRecording, line: Int)?
    private var preview: Preview?
    private var serving: (server: RTSPServer, stream: RTSPStream)?
    /// `publish start`'s publication (ScriptRunner+Publish.swift).
    var publishing: (publication: Publication, line: Int)?
    /// `record start FILE split …`'s loop recording (ScriptRunner+Loop.swift).
    var looping: (loop: LoopRecording, line: Int)?
    /// Zones, masks and the motion watch (ScriptRunner+Motion.swift).
    let motion = MotionState()
    /// Armed by the first `live`: from then on the session keeps a pre-roll (live capture mode).
    private var ring: LiveRing?
    public private(set) var failures = 0
    /// The first failure's kind: a run that failed for want of a camera (or a plugin) is one the
    /// caller may answer with that kind's exit, as the one-shot commands do.
    public private(set) var firstFailureKind: GpickError.Kind?

    public init(_ options: Options, emit: @escaping Emit) {
        self.options = options
        self.emit = emit
    }

    /// In live mode the session starts now, so the ring is filling before the first shutter.
    public func prepare() async throws {
        if options.liveMode { try await armRing() }
    }

    private func armRing() async throws {
        let session = try await runningSession()
        if ring == nil {
            ring = try await LiveRing.arm(in: session, seconds: LivePhotoSettings().before + 0.5)
            emit("mode", ["mode": "live"])
        }
    }

    /// Runs statements in order. A failure names its line; it stops the run unless `keepGoing`.
    /// Returns false when any statement failed.
    @discardableResult
    public func run(_ statements: [ScriptStatement]) async -> Bool {
        for s in statements {
            if Task.isCancelled { break }
            if !(await execute(s)) && !options.keepGoing { return false }
        }
        return failures == 0
    }

    /// Runs one statement; reports and counts a failure.
    public func execute(_ s: ScriptStatement) async -> Bool {
        // When the command arrived: latencies (snap → file) are measured from here.
        emit("command", ["line": s.line, "text": s.text])
        do {
            try await perform(s)
            return true
        } catch where error is CancellationError || Task.isCancelled {
            // Ctrl-C or SIGTERM (or the script's end, for an `on motion` run): the run stops
            // here, and the line did not fail.
            emit("interrupted", ["line": s.line, "text": s.text])
            return false
        } catch {
            countFailure((error as? GpickError)?.kind ?? .runtime)
            let message = (error as? GpickError)?.message ?? "\(error)"
            // The typed reason goes along, so the caller can word its remedy in its own terms.
            var fields: EventFields = ["line": s.line, "text": s.text, "message": "line \(s.line): \(message)"]
            if let e = error as? GpickError { fields["reason"] = e }
            emit("error", fields)
            return false
        }
    }

    /// One failure more; the first one's kind is kept.
    func countFailure(_ kind: GpickError.Kind) {
        failures += 1
        if firstFailureKind == nil { firstFailureKind = kind }
    }

    /// Finalises any recording in progress and stops the session; `on motion` runs under way
    /// end first (`interrupted`: at their next line, else whole).
    public func finish(interrupted: Bool = false) async {
        await stopHandlers(interrupted: interrupted)
        if let (rec, line) = recording {
            rec.requestStop()
            try? await report(rec, line: line)
            recording = nil
        }
        try? await stopLooping(line: nil)
        try? await stopClips(line: nil)
        await stopMotionWatch()
        await ring?.disarm()
        ring = nil
        if let p = preview {
            preview = nil
            await p.stop()
        }
        if let (server, stream) = serving {
            serving = nil
            await stream.stop()
            await server.close()
        }
        if publishing != nil { await stopPublishing(line: nil) }
        for e in encoders.values { await e.close() }
        encoders.removeAll()
        await session?.stop()
        session = nil
    }

    // MARK: statements

    private func perform(_ s: ScriptStatement) async throws {
        switch s.command {
        case .source(let spec):
            let source = try SourceSpec.parse(spec, patterns: options.configuration.library.testPatterns)
            if recording != nil || looping != nil { throw GpickError(.usage, "cannot change the source while recording (stop the recording first)") }
            options.configuration.source = source
            if let old = session {
                // A new source means a new session; stills and recordings carry on from it.
                await old.stop()
                session = nil
                try await runningSession()
            }
            emit("source", ["source": "\(source)"])
        case .snap(let path):
            try await still(path, count: 1, every: 1, line: s.line)
        case .burst(let n, let path, let every):
            try await still(path, count: n, every: every, line: s.line)
        case .recordStart(let path):
            if recording != nil || looping != nil { throw GpickError(.usage, "a recording is already running (record stop first)") }
            let target = try output(path)
            let rec = try await OpenRecording.start(in: try await runningSession(), to: target,
                                                    settings: RecordingSettings(container: try Container(path: target)))
            recording = (rec, s.line)
            emit("record-started", ["path": rec.output.path, "line": s.line])
        case .recordLoop(let path, let seconds, let retention):
            if recording != nil || looping != nil { throw GpickError(.usage, "a recording is already running (record stop first)") }
            try await startLooping(try output(path), session: try await runningSession(), partSeconds: seconds, retention: retention, line: s.line)
        case .recordStop where looping != nil:
            try await stopLooping(line: s.line)
        case .recordStop:
            guard let (rec, line) = recording else { throw GpickError(.usage, "no recording is running") }
            recording = nil
            rec.requestStop()
            try await report(rec, line: line, throwing: true)
        case .record(let duration, let path):
            if recording != nil || looping != nil { throw GpickError(.usage, "a recording is already running (record stop first)") }
            let rec = try await startRecording(path, duration: duration)
            emit("record-started", ["path": rec.output.path, "line": s.line, "duration": duration])
            try await report(.one(rec), line: s.line, throwing: true)
        case .timelapse(let duration, let every, let path):
            let target = try output(path)
            var settings = Timelapse.Settings()
            (settings.duration, settings.every) = (duration, every)
            let lapse = try await Timelapse.start(in: try await runningSession(), to: target, settings: settings)
            emit("timelapse-started", ["path": target.path, "line": s.line, "frames": settings.frames ?? 0])
            let result = try await withTaskCancellationHandler {
                try await lapse.finished()
            } onCancel: {
                lapse.requestStop()
            }
            emit("file-written", ["path": result.path, "line": s.line, "frames": result.frames, "duration": result.duration])
        case .clipsStart(let name, let o):
            try await startClips(name, o, session: try await runningSession(), target: try output(name), line: s.line)
        case .clipsStop:
            try await stopClips(line: s.line)
        case .wait(let d):
            try await Task.sleep(nanoseconds: UInt64(d * 1e9))
        case .waitMotion(let zone, let lasting, let timeout):
            try await waitForMotion(zone: zone, lasting: lasting, timeout: timeout, line: s.line)
        case .zone(let name, let area):
            try await addZone(name, area)
        case .mask(let area):
            try await addMask(area)
        case .onMotion(let zone, let cooldown, let body):
            try await addHandler(line: s.line, zone: zone, cooldown: cooldown, body: body)
        case .end:
            throw GpickError(.usage, "end without an on block to close")
        case .set("camera", let control, let value):
            // A V4L2 camera's control (exposure-time, focus-mode…), checked against the camera.
            let session = try await runningSession()
            let set = try await session.setCameraControls([ControlSetting(name: control.lowercased(), value: value)])
            emit("set", ["element": "camera", "property": control, "value": value,
                         "controls": set.map { JSONValue(fields: ["control": $0.control.name, "value": Int($0.value)]) }])
        case .set(let element, let property, let value):
            let session = try await runningSession()
            try session.setProperty(element: element, property: property, value: value)
            emit("set", ["element": element, "property": property, "value": value])
        case .countdown(let n):
            // The camera is live while people pose: the shot after it pays no start-up or warm-up.
            try await runningSession()
            for i in stride(from: n, through: 1, by: -1) {
                emit("countdown", ["remaining": i])
                try await Task.sleep(nanoseconds: 1_000_000_000)
            }
        case .echo(let text):
            emit("echo", ["text": text])
        case .expect(let path, let expectation):
            try await check(path, expectation)
            emit("expect-passed", ["path": path, "line": s.line])
        case .mode(let live):
            options.liveMode = live
            if live { try await armRing() } else if let r = ring {
                await r.disarm()
                ring = nil
                emit("mode", ["mode": "photo"])
            }
        case .live(let path):
            let target = try output(path)
            let session = try await runningSession()
            try await armRing()
            let encoder = try await encoder(.jpeg)
            emit("shutter", ["line": s.line])
            // In a session the shutter fires at once with whatever the ring holds.
            let r = try await LivePhotoCapture.capture(session: session, ring: ring!, encoder: encoder, name: target, settings: LivePhotoSettings())
            for p in [r.still, r.movie, r.motionPhoto].compactMap({ $0 }) {
                emit("file-written", ["path": p, "line": s.line, "still-time": r.stillTime, "clip-duration": r.clipDuration,
                                      "clip-frames": r.clipFrames])
            }
        case .flip:
            let session = try await runningSession()
            if recording == nil, ring == nil, session.sourceState != .live { try await session.waitUntilLive() }
            let p = try await session.flip()
            // The next line runs on the other camera: a `wait` after a flip is time on it,
            // however long the camera takes to start (the outputs show the placeholder until then).
            try await session.waitUntilLive()
            emit("flip", ["position": p.rawValue, "line": s.line])
        case .suspend:
            try await runningSession().suspend()
        case .resume:
            let session = try await runningSession()
            try await session.resume()
            try await session.waitUntilLive()
        case .preview(true, let sink):
            if preview != nil { throw GpickError(.usage, "a preview is already showing (preview stop first)") }
            let session = try await runningSession()
            let kind = try sink ?? PreviewSink.automatic()
            var o = PreviewOptions()
            o.port = options.previewPort
            let emit = self.emit
            // Keys pressed in a window or terminal preview: f flips, q closes the preview; every
            // key is also an event, so a program driving `gpick session` can react (s, for one).
            let p = try await Preview.start(kind, in: session, options: o) { [weak self] key in
                emit("key", ["key": key.rawValue])
                Task { await self?.previewKey(key) }
            }
            preview = p
            var fields: EventFields = ["sink": kind.rawValue, "line": s.line]
            if let url = p.url { fields["url"] = url }
            emit("preview-started", fields)
        case .serve(true, let name):
            if serving != nil { throw GpickError(.usage, "the session is already being served (serve stop first)") }
            let session = try await runningSession()
            let server = try RTSPServer(port: options.rtspPort)
            do {
                let stream = try await RTSPStream.start(in: session, on: server, name: name ?? "cam")
                serving = (server, stream)
                emit("serve-started", ["url": stream.url, "line": s.line])
            } catch {
                await server.close()
                throw error
            }
        case .serve(false, _):
            guard let (server, stream) = serving else { throw GpickError(.usage, "nothing is being served") }
            serving = nil
            let frames = stream.framesEncoded
            await stream.stop()
            await server.close()
            emit("serve-stopped", ["frames": frames, "line": s.line])
        case .publish(true, let url?):
            try await startPublishing(url, session: try await runningSession(), line: s.line)
        case .publish(true, nil):
            throw GpickError(.usage, "publish start needs a URL")
        case .publish(false, _):
            guard publishing != nil else { throw GpickError(.usage, "nothing is being published") }
            await stopPublishing(line: s.line)
        case .preview(false, _):
            guard let p = preview else { throw GpickError(.usage, "no preview is showing") }
            preview = nil
            await p.stop()
            emit("preview-stopped", ["frames": p.framesShown, "camera-frames": p.framesOffered, "dropped": p.framesDropped, "line": s.line])
        }
    }

    private func previewKey(_ key: PreviewKey) async {
        switch key {
        case .flip:
            guard let session else { return }
            do { emit("flip", ["position": try await session.flip().rawValue]) } catch {
                emit("error", ["message": error.message])
            }
        case .quit:
            if let p = preview {
                preview = nil
                await p.stop()
                emit("preview-stopped", ["frames": p.framesShown, "camera-frames": p.framesOffered, "dropped": p.framesDropped])
            }
        case .snap:
            break
        }
    }

    // MARK: session and outputs

    @discardableResult
    func runningSession() async throws -> CaptureSession {
        if let session { return session }
        let s = CaptureSession(options.configuration)
        let emit = self.emit
        s.onEvent { e in
            let r = e.record
            emit(r.name, r.fields)
        }
        try await s.start()
        session = s
        var started: EventFields = ["source": "\(s.source)", "width": s.format.width, "height": s.format.height, "fps": s.format.fps]
        if let mode = s.cameraMode { started["mode"] = "\(mode)" }
        emit("session-started", started)
        return s
    }

    /// The session's encoder for a format, made once (off the pool).
    private func encoder(_ format: StillFormat) async throws(GpickError) -> StillEncoder {
        if let e = encoders[format] { return e }
        let e = try await StillEncoder.make(format: format, quality: options.jpegQuality, library: options.configuration.library)
        encoders[format] = e
        return e
    }

    private func output(_ path: String) throws(GpickError) -> OutputPath {
        try OutputPath(path, confinedTo: options.outputDirectory)
    }

    /// A still or a burst, through the five capture stages (each event carries a monotonic time).
    private func still(_ path: String, count: Int, every: Int, line: Int) async throws {
        let target = try output(path)
        let format = try StillFormat(path: target)
        let session = try await runningSession()
        let encoder = try await encoder(format)
        emit("capture-settings-resolved", ["line": line, "format": format.rawValue, "count": count,
                                            "width": session.format.width, "height": session.format.height])
        var taken = 0
        emit("capture-exposure-started", ["line": line])
        for try await frame in session.nextFrames(count, every: every) {
            let stamp = frame.withVideoFrame { FrameStamp.read(from: $0) } ?? nil
            emit("capture-exposure-complete", ["line": line, "index": taken + 1, "stamp": stamp?.description ?? "none"])
            let bytes = try await encoder.encode(frame, camera: session.camera)
            let file = count == 1 ? target : target.numbered(taken + 1, of: count)
            try await AtomicWrite.store(bytes, to: file)
            taken += 1
            emit("capture-data-delivered", ["line": line, "path": file.path, "bytes": bytes.count])
            if taken < count { emit("capture-exposure-started", ["line": line]) }
        }
        guard taken == count else {
            throw session.failureReason ?? GpickError(.runtime, "only \(taken) of \(count) stills were taken")
        }
        emit("capture-complete", ["line": line, "files": taken])
    }

    private func startRecording(_ path: String, duration: Double?) async throws -> MovieRecording {
        let target = try output(path)
        let container = try Container(path: target)
        let session = try await runningSession()
        return try await MovieRecording.start(in: session, to: target,
                                              settings: RecordingSettings(container: container, duration: duration))
    }

    /// Each file the recording wrote; a failed source is the line's error once its files are told.
    private func report(_ rec: OpenRecording, line: Int, throwing: Bool = false) async throws {
        do {
            let files = try await rec.finished()
            for r in files {
                emit("file-written", ["path": r.path, "bytes": r.bytes, "frames": r.frames, "duration": r.duration, "line": line])
            }
            if let r = files.last, let e = r.sourceError, throwing {
                throw GpickError(.device, "\(e) (kept \(files.reduce(0) { $0 + $1.frames }) frames in \(files.count == 1 ? r.path : "\(files.count) files ending with \(r.path)"))")
            }
        } catch {
            if throwing { throw error }
            emit("error", ["line": line, "message": "line \(line): \((error as? GpickError)?.message ?? "\(error)")"])
        }
    }

    // MARK: expect

    private func check(_ path: String, _ e: Expectation) async throws {
        let file = try output(path)
        func fail(_ m: String) -> GpickError { GpickError(.runtime, "expect \(file.name): \(m)") }
        if case .exists = e {
            guard FileManager.default.fileExists(atPath: file.path) else { throw fail("does not exist") }
            return
        }
        let decode: Bool = { if case .kind = e { return false }; if case .size = e { return false }; return true }()
        let report = try await MediaInspector.inspect(path: file.path, decode: decode, library: options.configuration.library)
        switch e {
        case .frames(let op, let n):
            let f = report.frames ?? 0
            let ok: Bool
            switch op {
            case .eq: ok = f == n
            case .ge: ok = f >= n
            case .le: ok = f <= n
            case .gt: ok = f > n
            case .lt: ok = f < n
            }
            if !ok { throw fail("has \(f) frames, expected \(op.rawValue) \(n)") }
        case .duration(let d, let tol):
            let fps = report.fps.flatMap { $0 > 0 ? $0 : nil } ?? Double(options.configuration.format.fps)
            let t = tol ?? 1 / fps
            if abs(report.duration - d) > t + 1e-6 {
                throw fail(cFormat("lasts %.3f s, expected %.3f s ± %.3f", report.duration, d, t))
            }
        case .size(let w, let h):
            if report.width != w || report.height != h { throw fail("is \(report.width ?? 0)x\(report.height ?? 0), expected \(w)x\(h)") }
        case .stamps(let first, let last):
            let idx = (report.stamps ?? []).map { $0.flatMap { Int($0.split(separator: ":").last ?? "") } }
            guard !idx.isEmpty else { throw fail("has no frames") }
            if let bad = idx.firstIndex(where: { $0 == nil }) { throw fail("frame \(bad) carries no stamp") }
            let values = idx.map { $0! }
            for i in 1..<values.count where values[i] != values[i - 1] + 1 {
                throw fail("stamps jump from \(values[i - 1]) to \(values[i]) at frame \(i)")
            }
            if let first, values.first != first { throw fail("first stamp is \(values[0]), expected \(first)") }
            if let last, values.last != last { throw fail("last stamp is \(values.last!), expected \(last)") }
        case .kind(let k):
            if report.kind != k { throw fail("is a \(report.kind), expected a \(k)") }
        case .exists:
            break
        }
    }


}
