import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the camera over RTSP (H.264): for VLC, ffplay, Home Assistant, Frigate or an NVR.",
        discussion: """
        Prints the stream's URL, rtsp://HOST:PORT/NAME, and serves until --duration, Ctrl-C or SIGTERM. \
        Every viewer shares one encoder: ten viewers cost about what one does, and a viewer who joins \
        gets a keyframe at once. With --audio, viewers hear the session too (Opus, in step with the \
        picture). --camera NAME=SOURCE serves more cameras beside it, each at its own URL (the sound \
        goes with the first). It listens on 127.0.0.1 unless --listen says otherwise; anywhere else \
        viewers need RTSP digest credentials: user gpick and a random password, printed once, or those \
        of --credentials FILE (one line USER:PASSWORD). Parameters of pipelines/serve-rtsp.yaml \
        (bitrate, key-interval, speed-preset, tune, psy-tune) are set with --set.
        """)

    @Option(name: .long, help: "Stream name: the URL's path.")
    var name = "cam"

    @Option(name: .customLong("camera"), help: ArgumentHelp("Another camera on the same server: NAME=SOURCE (repeatable), its own session and mount, in the same format.", valueName: "name=source"))
    var cameras: [String] = []

    @Option(name: .long, parsing: .unconditional, help: "RTSP port (0: any free port).")
    var port = 8554

    @Option(name: .long, help: "Address to listen on (127.0.0.1; 0.0.0.0 for every network, with credentials).")
    var listen = "127.0.0.1"

    @Option(name: .long, help: "A file holding USER:PASSWORD, the credentials viewers need.")
    var credentials: String?

    @Option(name: .long, parsing: .unconditional, help: "Seconds to serve (default: until Ctrl-C or SIGTERM).")
    var duration: Double?

    @OptionGroup var set: SetOptions
    @OptionGroup var capture: SourceOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        if let duration, !(duration > 0) || !duration.isFinite {
            throw ValidationError("--duration \(duration) must be a positive number of seconds")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) must be 0…65535") }
        var names = [name]
        for c in cameras {
            guard let eq = c.firstIndex(of: "="), eq != c.startIndex, c.index(after: eq) != c.endIndex else {
                throw ValidationError("--camera \(c) must be NAME=SOURCE, e.g. door=v4l2:/dev/video2")
            }
            let n = String(c[..<eq])
            guard !names.contains(n) else { throw ValidationError("--camera \(c): the name \(n) is taken (each camera has its own)") }
            names.append(n)
        }
    }

    /// The cameras to serve: --source as --name, then each --camera NAME=SOURCE.
    func mounts(_ first: SessionConfiguration, library: PipelineLibrary) throws(GpickError) -> [(name: String, config: SessionConfiguration)] {
        var out = [(name: name, config: first)]
        for c in cameras {
            let eq = c.firstIndex(of: "=")!
            var config = first
            config.source = try SourceSpec.parse(String(c[c.index(after: eq)...]), patterns: library.testPatterns)
            config.front = nil
            config.audio = .none
            out.append((String(c[..<eq]), config))
        }
        return out
    }

    func run() async throws {
        let events = Events(json: out.json, command: "serve")
        try await reporting(events) {
            let given = try credentials.map(Self.readCredentials)
            let required = given ?? (RTSPServer.isLoopback(listen) ? nil : RTSPCredentials.random())
            let library = pipelines.library
            let file = try library.load("serve-rtsp")
            let values = try set.resolve(for: file).values
            var config = try capture.configuration(library: library)
            try camera.apply(to: &config, capture: capture)
            let mounts = try mounts(config, library: library)
            let server = try RTSPServer(address: listen, port: port, credentials: required)
            // Ended by the duration, a signal, or a source failing that cannot come back: a lost
            // camera is served as its blurred last frame until it is back, and then live again.
            let (ends, end) = AsyncStream<Void>.makeStream()
            let stopper = SignalStopper()
            var served: [(session: CaptureSession, stream: RTSPStream)] = []
            do {
                for (name, config) in mounts {
                    let session = CaptureSession(config)
                    let camera = config.source.isCamera || config.source == .auto
                    session.onEvent { e in
                        events.sessionEvent(e)
                        if case .sourceFailed = e, !camera { end.yield() }
                    }
                    try await session.start()
                    do {
                        served.append((session, try await RTSPStream.start(in: session, on: server, name: name, values: values, pipelineFile: file)))
                    } catch {
                        await session.stop()
                        throw error
                    }
                }
            } catch {
                for (session, stream) in served { await stream.stop(); await session.stop() }
                await server.close()
                throw error
            }
            let first = served[0]
            var started: JSONFields = ["url": first.stream.url, "source": "\(first.session.source)", "audio": first.session.hasAudio,
                                       "width": first.session.format.width, "height": first.session.format.height, "fps": first.session.format.fps]
            if served.count > 1 {
                started["mounts"] = served.map { JSONValue(fields: ["name": $0.stream.name, "url": $0.stream.url, "source": "\($0.session.source)"]) }
            }
            if let required { started["user"] = required.user }
            events.started(started.mode(of: first.session))
            if !out.json { for s in served { print(s.stream.url) } }
            if let required, given == nil {
                // Printed once, where the user reads it; never in the --json events.
                Console.notice("viewers need user \(required.user), password \(required.password)")
            }

            // Viewers coming and going: events with --json (the text output stays the URL alone).
            let watching = Task {
                for await viewer in server.events where events.json {
                    switch viewer {
                    case .connected(let id, let address):
                        events.emit("viewer-connected", ["viewer": id, "address": address])
                    case .closed(let id, let address):
                        events.emit("viewer-closed", ["viewer": id, "address": address])
                    }
                }
            }
            let service = ServiceWatch.ready("serving " + served.map(\.stream.url).joined(separator: ", "), sessions: served.map(\.session))
            stopper.onSignal { _ in end.yield() }
            let timer = duration.map { d in Task { try? await Task.sleep(nanoseconds: UInt64(d * 1e9)); end.yield() } }
            for await _ in ends { break }
            service?.stopping()
            timer?.cancel()
            let frames = served.map { $0.stream.framesEncoded }
            for (session, stream) in served {
                await stream.stop()
                await session.stop()
            }
            await server.close()
            await watching.value
            var finished: JSONFields = ["frames": frames[0]]
            if served.count > 1 { finished["frames-by-mount"] = Dictionary(uniqueKeysWithValues: zip(served.map(\.stream.name), frames)) }
            events.finished(finished)
            if let failure = served.lazy.compactMap({ $0.session.failureReason }).first { throw failure }
            if !out.json { Console.notice("serve: \(frames.reduce(0, +)) frames encoded in \(cFormat("%.1f", events.elapsed)) s") }
        }
    }

    /// USER:PASSWORD on the file's first line: the password is never on the command line, where
    /// `ps` shows it.
    static func readCredentials(_ path: String) throws(GpickError) -> RTSPCredentials {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GpickError(.input, "cannot read credentials file \(path)")
        }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex, line.index(after: colon) != line.endIndex else {
            throw GpickError(.input, "\(path):1: credentials must be one line USER:PASSWORD")
        }
        return RTSPCredentials(user: String(line[..<colon]), password: String(line[line.index(after: colon)...]))
    }
}
