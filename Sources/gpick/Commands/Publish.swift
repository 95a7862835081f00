import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickBase
import GpickKit

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Push the camera to a server that already exists, over SRT, RTMP(S) or RTSP (H.264).",
        discussion: """
        URL is srt://HOST:PORT (caller mode; MediaMTX, srt-live-transmit, OBS), rtmp://HOST[:PORT]/APP/KEY \
        and rtmps://… (nginx-rtmp, MediaMTX, Owncast, YouTube Live), or rtsp://[USER:PASSWORD@]HOST[:PORT]/PATH \
        (RTSP's RECORD: MediaMTX, Wowza). The first connection must hold: a server \
        that is not there, or that refuses the stream or the passphrase, is an error (exit 69). When the server \
        goes away later, gpick says so in one line and connects again after growing pauses (0.5 s, doubling, \
        at most 8 s), until --retry-for runs out; capture goes on meanwhile. It publishes until --duration, \
        Ctrl-C or SIGTERM. With --audio, the sound goes too (AAC, in step with the picture). Parameters of \
        pipelines/publish-srt.yaml, publish-rtmp.yaml and publish-rtsp.yaml (bitrate, \
        key-interval, speed-preset, tune, psy-tune; latency for SRT; transport tcp or udp for RTSP) are set \
        with --set.

        Examples:
          gpick publish 'srt://192.168.1.20:8890?streamid=publish:cam' --passphrase-file key.txt
          gpick publish rtmp://127.0.0.1/live/cam --set bitrate=2500
          gpick publish rtsp://192.168.1.20:8554/cam
        """)

    @Argument(help: "Where to publish: srt://HOST:PORT, rtmp://HOST/APP/KEY, rtmps://HOST/APP/KEY or rtsp://HOST/PATH.")
    var url: String

    @Option(name: .long, help: "A file whose first line is the SRT passphrase (10 to 79 characters).")
    var passphraseFile: String?

    @Option(name: .long, parsing: .unconditional, help: "Seconds to publish (default: until Ctrl-C or SIGTERM).")
    var duration: Double?

    @Option(name: .long, parsing: .unconditional, help: "Give up when no connection has held for this many seconds (default: never).")
    var retryFor: Double?

    @OptionGroup var set: SetOptions
    @OptionGroup var capture: SourceOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        for (flag, value) in [("--duration", duration), ("--retry-for", retryFor)] {
            if let value, !(value > 0) || !value.isFinite { throw ValidationError("\(flag) \(value) must be a positive number of seconds") }
        }
    }

    func run() async throws {
        let events = Events(json: out.json, command: "publish")
        try await reporting(events) {
            let target = try PublishTarget(url)
            if passphraseFile != nil, target.scheme != .srt {
                throw GpickError(.usage, "--passphrase-file is for srt:// URLs; RTMP servers take their key in the URL, RTSP servers a user and password")
            }
            let passphrase = try passphraseFile.map(Self.readPassphrase)
            let library = pipelines.library
            let file = try library.load(target.pipelineName)
            let values = try set.resolve(for: file).values
            var config = try capture.configuration(library: library)
            try camera.apply(to: &config, capture: capture)
            let session = CaptureSession(config)
            let (ends, end) = AsyncStream<GpickError?>.makeStream()
            session.onEvent { e in
                events.sessionEvent(e)
                if case .sourceFailed = e { end.yield(nil) }
            }
            // Since when no connection has held (nil while one does).
            let down = Monitor<ContinuousClock.Instant?>(nil)
            let stopper = SignalStopper()
            let publication: Publication
            do {
                try await session.start()
                publication = try await Publication.start(in: session, to: target, values: values, passphrase: passphrase,
                                                          pipelineFile: file) { event in
                    switch event {
                    case .connected(let attempt):
                        down.withLock { $0 = nil }
                        events.emit("connected", ["url": "\(target)", "attempt": attempt])
                        if !events.json { Console.notice("publish: connected again to \(target)") }
                    case .lost(let reason, let retryIn):
                        down.withLock { $0 = $0 ?? .now }
                        events.emit("lost", ["url": "\(target)", "cause": reason, "retry_in": retryIn])
                        if !events.json { Console.notice("publish: lost \(target): \(reason); trying again in \(cFormat("%g", retryIn)) s") }
                    }
                }
            } catch {
                await session.stop()
                throw error
            }
            events.started((["url": "\(target)", "source": "\(session.source)",
                              "width": session.format.width, "height": session.format.height, "fps": session.format.fps] as JSONFields).mode(of: session))
            if !out.json { Console.notice("publishing to \(target)") }

            // Ready once publishing has started (the server may be reached only later: reconnecting
            // is publish's own job, and the watchdog watches the camera, not the network).
            let service = ServiceWatch.ready("publishing to \(target)", sessions: [session])
            stopper.onSignal { _ in end.yield(nil) }
            let timer = duration.map { d in Task { try? await Task.sleep(nanoseconds: UInt64(d * 1e9)); end.yield(nil) } }
            let giveUp = retryFor.map { limit in
                Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(nanoseconds: 200_000_000)
                        if let since = down.withLock({ $0 }), ContinuousClock.now - since > .seconds(limit) {
                            end.yield(GpickError(.network, "publish: \(target) stayed unreachable for \(cFormat("%g", limit)) s"))
                            return
                        }
                    }
                }
            }
            var failure: GpickError? = nil
            for await reason in ends { failure = reason; break }
            service?.stopping()
            timer?.cancel()
            giveUp?.cancel()
            await publication.stop()
            await session.stop()
            let frames = publication.framesEncoded
            events.finished(["frames": frames, "sent": publication.framesSent, "connections": publication.connections])
            if let failure { throw failure }
            if let failure = session.failureReason { throw failure }
            if !out.json { Console.notice("publish: \(frames) frames encoded in \(cFormat("%.1f", events.elapsed)) s") }
        }
    }

    /// The passphrase on the file's first line: never on the command line, where `ps` shows it.
    static func readPassphrase(_ path: String) throws(GpickError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GpickError(.input, "cannot read passphrase file \(path)")
        }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard (10...79).contains(line.utf8.count) else {
            throw GpickError(.input, "\(path):1: an SRT passphrase has 10 to 79 characters, not \(line.utf8.count)")
        }
        return line
    }
}
