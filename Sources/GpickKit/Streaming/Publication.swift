import GpickBase
import GstCore
import Synchronization

/// A session pushed to a server that already exists (an SRT listener, an RTMP server, an RTSP
/// server taking a RECORD): a branch on the session's video tee (and audio tee, with sound)
/// encodes once (pipelines' `publish-srt`, `publish-rtmp`, `publish-rtsp`), and a sender,
/// a pipeline of its own, carries what it gives to the URL. When the server goes away the sender
/// is torn down and built again after growing pauses (0.5 s, doubling, at most `maxPause`), while
/// stills, recordings, live photos and flips go on: the session never waits for the network.
public final class Publication: SessionOutput {
    public enum Event: Sendable, Equatable {
        /// The server takes the stream (bytes it acknowledged, or sent over SRT). `attempt` counts
        /// connections tried since the last one that held.
        case connected(attempt: Int)
        /// The connection failed or broke; the next attempt is in `retryIn` seconds.
        case lost(reason: String, retryIn: Double)
    }

    public let target: PublishTarget
    private weak let session: CaptureSession?
    let branch: Branch
    let feeds: EncodedFeeds
    private let sender: PipelineFile
    private let values: [String: Parameter.Value]
    private let passphrase: String?
    private let onEvent: @Sendable (Event) -> Void
    private let eventSink: AsyncStream<Event>.Continuation
    /// Losses and reconnections as they happen, ending when the publication stops (the newest 64
    /// are kept for a reader that lags).
    public let events: AsyncStream<Event>
    private let state = Locked(State())
    /// The longest pause between two attempts, in seconds.
    public static let maxPause = 8.0
    /// How long a connection may take before it counts as failed.
    public static let connectTimeout = 10.0

    private struct State {
        /// The sender of the connection being made or held.
        var current: Connection?
        var connected = false
        var stopped = false
        var connections = 0
        var watcher: Task<Void, Never>?
    }

    /// Frames encoded so far (each connection gets them from its first keyframe on).
    public var framesEncoded: Int { feeds.framesEncoded }
    /// Frames handed to the connections, each counted once per connection it went to: what
    /// servers can have received. Frames encoded while no connection held are not in it.
    public var framesSent: Int { feeds.framesSent }
    /// Whether the server takes the stream now.
    public var isConnected: Bool { state.withLock { $0.connected } }
    /// Connections made so far (1 until the server first goes away).
    public var connections: Int { state.withLock { $0.connections } }
    var bin: Bin { branch.bin }

    private init(target: PublishTarget, session: CaptureSession, branch: Branch, feeds: EncodedFeeds, sender: PipelineFile,
                 values: [String: Parameter.Value], passphrase: String?, onEvent: @escaping @Sendable (Event) -> Void) {
        self.target = target
        self.session = session
        self.branch = branch
        self.feeds = feeds
        self.sender = sender
        self.values = values
        self.passphrase = passphrase
        self.onEvent = onEvent
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    private func tell(_ event: Event) {
        onEvent(event)
        eventSink.yield(event)
    }

    /// Starts publishing the running session to `target`. The first connection must hold: a server
    /// that is not there, refuses the stream or the passphrase is an error now, not a retry loop.
    /// `values` set the pipeline file's parameters (bitrate, key-interval, speed-preset, tune,
    /// psy-tune, and latency for SRT). `onEvent` hears later losses and reconnections.
    public static func start(in session: CaptureSession, to target: PublishTarget, values: [String: Parameter.Value] = [:],
                             passphrase: String? = nil, pipelineFile: PipelineFile? = nil,
                             onEvent: @escaping @Sendable (Event) -> Void = { _ in }) async throws(GpickError) -> Publication {
        let graph = try session.graphForOutput()
        let file: PipelineFile
        if let pipelineFile { file = pipelineFile } else { file = try session.configuration.library.load(target.pipelineName) }
        let audio = session.hasAudio
        guard let (branchFile, senderFile) = file.sendingParts(audio: audio) else {
            throw file.error(file.pipeline.line, "\(file.name) has no send: the pipeline that carries the stream to the server")
        }
        if audio, file.audio == nil || file.sendAudio == nil {
            throw file.error(file.pipeline.line, "\(file.name) has no audio and send-audio: it cannot publish the session's sound")
        }
        if let passphrase, !(10...79).contains(passphrase.utf8.count) {
            throw GpickError(.usage, "an SRT passphrase has 10 to 79 characters, not \(passphrase.utf8.count)")
        }
        // Built once now, so a missing plugin or a bad value stops here, before the session changes.
        _ = try await OffPool.run { () throws(GpickError) in try PipelineBuilder.buildSender(senderFile, values: values) }
        let (branch, feeds) = try await EncodedFeeds.branch(branchFile, values: values, in: session, named: "publish", audio: audio)
        let publication = Publication(target: target, session: session, branch: branch, feeds: feeds, sender: senderFile,
                                      values: values, passphrase: passphrase, onEvent: onEvent)
        try await session.attach(publication, branch: branch, to: graph)
        switch await publication.connect() {
        case .failed(let reason):
            await publication.finish(drain: false)
            throw GpickError(.network, "cannot publish to \(target): \(reason)")
        case .up(let lost):
            publication.watch(lost)
        }
        return publication
    }

    /// Stops publishing: the server gets every frame captured before the stop (the encoder drains,
    /// within a few seconds), then the end of the stream; the branch leaves the session.
    public func stop() async { await finish(drain: true) }

    func finishBeforeStop() async { await finish(drain: true) }

    func elementFailed(_ error: GStreamerError, source: SourceSpec) {
        Task { await self.finish(drain: false) }
    }

    func sessionFailed(_ error: GpickError) {
        Task { await self.finish(drain: false) }
    }

    private func finish(drain: Bool) async {
        let watcher = state.withLock { s -> Task<Void, Never>?? in
            guard !s.stopped else { return .none }
            s.stopped = true
            return .some(s.watcher)
        }
        guard let watcher else { return }
        watcher?.cancel()
        if drain {
            branch.endVideoInput()
            branch.endAudioInput()
            await feeds.drained.wait(timeout: 5)
        } else {
            await branch.cutInputAndWait()
        }
        feeds.endAll()
        if let current = state.withLock({ s -> Connection? in defer { s.current = nil; s.connected = false }; return s.current }) {
            // The end of the stream reaches the server (FLV's and SRT's last packets) before the close.
            if drain, await current.lost.signal.wait(timeout: 2), let linger = Self.linger(current.pipeline) {
                try? await Task.sleep(nanoseconds: UInt64(linger * 1e9))
            }
            _ = try? await current.pipeline.setState(.null)
        }
        await branch.detach()
        session?.unregister(self)
        eventSink.finish()
    }

    // MARK: - Connections

    private enum Outcome {
        /// Connected; its signal fires when the connection breaks, with the reason beside it.
        case up(Lost)
        case failed(String)
    }

    /// One sender: built for one connection, dropped when it breaks.
    private struct Connection: Sendable {
        let pipeline: Pipeline
        let src: Element
        let lost: Lost
    }

    /// A connection's end, told by its sender's bus on the posting thread.
    private final class Lost: Sendable {
        let signal = Signal()
        private let reason = Locked<String?>(nil)
        var why: String { reason.withLock { $0 } ?? "the stream ended" }
        func record(_ r: String) {
            reason.withLock { if $0 == nil { $0 = r } }
            signal.fire()
        }
    }

    /// Builds a sender, starts it and waits until the server takes bytes, the sender fails, or
    /// `connectTimeout` passes.
    private func connect() async -> Outcome {
        let pipeline: Pipeline
        do {
            let (sender, values) = (self.sender, self.values)
            pipeline = try await OffPool.run { () throws(GpickError) in try PipelineBuilder.buildSender(sender, values: values) }
        } catch {
            return .failed(error.message)
        }
        guard let out = pipeline.element(named: "out"), let src = pipeline.element(named: "src") else {
            return .failed("the send part lost its src or out")
        }
        do {
            try out.set(out.hasProperty("uri") ? "uri" : "location", target.url)
            if let passphrase { try out.set("passphrase", passphrase) }
        } catch {
            return .failed(error.message)
        }
        let lost = Lost()
        // rtspclientsink counts no bytes. It holds the first buffer of each stream until the
        // server answered RECORD, so a second one out of the appsrc means the server takes it.
        let pushed = Atomic<Int>(0)
        if out.factoryName == "rtspclientsink", let pad = src.staticPad("src") {
            pad.addProbe(.buffer) { _ in pushed.add(1, ordering: .relaxed).newValue >= 2 ? .remove : .ok }
        }
        pipeline.bus.observeSync { message in
            switch message {
            case .error(let e): lost.record(Self.reason(e))
            case .endOfStream: lost.record("the server ended the stream")
            default: break
            }
        }
        let connection = Connection(pipeline: pipeline, src: src, lost: lost)
        guard state.withLock({ s -> Bool in
            guard !s.stopped else { return false }
            s.current = connection
            return true
        }) else { return .failed("stopped") }
        feeds.feedAdded(src, audio: pipeline.element(named: "asrc"))
        do {
            _ = try await pipeline.setState(.playing)
        } catch {
            await drop(connection)
            return .failed(Self.reason(error))
        }
        // Up once the stream's own bytes flow, which no protocol sends before the server took
        // it: srtsink counts bytes sent (none before SRT's handshake is done); rtmp2sink counts
        // every byte, and sends media only after the server accepted the publish: past the
        // handshake and commands (about 3.5 KiB) come frames. (Its acknowledged count comes only
        // every window, 2.5 MB on nginx-rtmp.) rtspclientsink: see `pushed`.
        let deadline = ContinuousClock.now + .seconds(Self.connectTimeout)
        while ContinuousClock.now < deadline {
            if await lost.signal.wait(timeout: 0.05) {
                await drop(connection)
                return .failed(lost.why)
            }
            let flowing = (out.counter("bytes-sent-total", inStructure: "stats") ?? 0) > 0
                || (out.counter("out-bytes-total", inStructure: "stats") ?? 0) > 8192
                || pushed.load(ordering: .relaxed) >= 2
            if flowing {
                state.withLock { $0.connected = true; $0.connections += 1 }
                return .up(lost)
            }
            if state.withLock({ $0.stopped }) { return .failed("stopped") }
        }
        await drop(connection)
        return .failed("no answer within \(Int(Self.connectTimeout)) s")
    }

    /// How long a sender's last packets may still be on their way after its end of stream: SRT in
    /// live mode drops what is unsent when its socket closes, and gives up on a packet anyway once
    /// its latency has passed. TCP (RTMP) delivers what it was given after the close.
    static func linger(_ pipeline: Pipeline) -> Double? {
        guard let out = pipeline.element(named: "out"), out.hasProperty("latency"),
              case .int(let ms)? = try? out.get("latency") else { return nil }
        return Double(ms) / 1000 + 0.1
    }

    /// Tears a sender down: its appsrc stops being fed first.
    private func drop(_ connection: Connection) async {
        feeds.feedRemoved(connection.src)
        state.withLock { s in
            if s.current?.pipeline === connection.pipeline { s.current = nil; s.connected = false }
        }
        _ = try? await connection.pipeline.setState(.null)
    }

    /// After a connection is up: when it breaks, pauses and connects again until one holds or
    /// the publication stops.
    private func watch(_ first: Lost) {
        let task = Task { [weak self] in
            var lost = first
            while let self {
                guard await lost.signal.wait() else { return }  // cancelled: stopping
                if let broken = self.state.withLock({ $0.current }) { await self.drop(broken) }
                var pause = 0.5, attempt = 0, reason = lost.why
                while true {
                    attempt += 1
                    if Task.isCancelled || self.state.withLock({ $0.stopped }) { return }
                    self.tell(.lost(reason: reason, retryIn: pause))
                    try? await Task.sleep(nanoseconds: UInt64(pause * 1e9))
                    if Task.isCancelled || self.state.withLock({ $0.stopped }) { return }
                    switch await self.connect() {
                    case .up(let next):
                        self.tell(.connected(attempt: attempt))
                        lost = next
                    case .failed(let why):
                        reason = why
                        pause = min(pause * 2, Self.maxPause)
                        continue
                    }
                    break
                }
            }
        }
        state.withLock { $0.watcher = task }
    }

    /// What a sender's error says, in the user's terms: SRT says "Connection does not exist" both
    /// when nobody listens and when the listener refuses the passphrase, and names no cause when
    /// a connection breaks; rtspclientsink's message is generic ("Could not read from
    /// resource."), and the server's answer is in its debug text.
    static func reason(_ error: GStreamerError) -> String {
        let m = error.message
        if m.contains("Connection does not exist") {
            return "no SRT connection (nobody listens there, or the listener refused the passphrase)"
        }
        if m.hasPrefix("Failed to write to SRT socket") {
            return "the SRT connection broke (the listener went away or stopped answering)"
        }
        let debug = error.debug ?? ""
        if let (code, text) = rtspAnswer(error) {
            let said = "the RTSP server answered \(code) \(text)"
            switch code {
            case "401", "403": return said + " (its user and password go in the URL: rtsp://USER:PASSWORD@HOST/PATH)"
            case "404": return said + " (no such path there)"
            case "415", "461": return said + " (it does not take this stream: H.264, with Opus sound)"
            default: return said
            }
        }
        if debug.contains("Failed to connect") || debug.contains("Could not connect to server") {
            return "could not connect (nobody listens there, or a firewall is in the way)"
        }
        return m
    }

    /// The RTSP server's answer that rtspclientsink failed on, as code and text: its debug text
    /// says "Got error response: 415 (Unsupported Media Type).", or for a 404 only "Not Found".
    private static func rtspAnswer(_ error: GStreamerError) -> (code: Substring, text: Substring)? {
        let debug = error.debug ?? ""
        if let r = debug.firstRange(of: "Got error response: ") {
            let answer = debug[r.upperBound...].prefix { $0 != "\n" }
            return (answer.prefix { $0.isNumber }, answer.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" })
        }
        if error.sourcePath?.contains("GstRTSPClientSink") == true, debug.hasSuffix("Not Found") { return ("404", "Not Found") }
        return nil
    }
}
