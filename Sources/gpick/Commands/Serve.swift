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
        gets a keyframe at once. It listens on 127.0.0.1 unless --listen says otherwise; anywhere else \
        viewers need RTSP digest credentials: user gpick and a random password, printed once, or those \
        of --credentials FILE (one line USER:PASSWORD). Parameters of pipelines/serve-rtsp.yaml \
        (bitrate, key-interval, speed-preset, tune) are set with --set.
        """)

    @Option(name: .long, help: "Stream name: the URL's path.")
    var name = "cam"

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
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        if let duration, !(duration > 0) || !duration.isFinite {
            throw ValidationError("--duration \(duration) must be a positive number of seconds")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) must be 0…65535") }
    }

    func run() async throws {
        let events = Events(json: out.json, command: "serve")
        try await reporting(events) {
            let given = try credentials.map(Self.readCredentials)
            let required = given ?? (RTSPServer.isLoopback(listen) ? nil : RTSPCredentials.random())
            let library = pipelines.library
            let file = try library.load("serve-rtsp")
            let values = try set.resolve(for: file).values
            let config = try capture.configuration(library: library)
            let server = try RTSPServer(address: listen, port: port, credentials: required)
            let session = CaptureSession(config)
            // Ended by the duration, a signal, or the camera failing.
            let (ends, end) = AsyncStream<Void>.makeStream()
            session.onEvent { e in
                events.sessionEvent(e)
                if case .sourceFailed = e { end.yield() }
            }
            let stopper = SignalStopper()
            let stream: RTSPStream
            do {
                try await session.start()
                stream = try await RTSPStream.start(in: session, on: server, name: name, values: values, pipelineFile: file)
            } catch {
                await session.stop()
                await server.close()
                throw error
            }
            var started: JSONFields = ["url": stream.url, "source": "\(session.source)",
                                       "width": config.format.width, "height": config.format.height, "fps": config.format.fps]
            if let required { started["user"] = required.user }
            events.started(started)
            if !out.json { print(stream.url) }
            if let required, given == nil {
                // Printed once, where the user reads it; never in the --json events.
                Console.notice("viewers need user \(required.user), password \(required.password)")
            }

            stopper.onSignal { _ in end.yield() }
            let timer = duration.map { d in Task { try? await Task.sleep(nanoseconds: UInt64(d * 1e9)); end.yield() } }
            for await _ in ends { break }
            timer?.cancel()
            let frames = stream.framesEncoded
            await stream.stop()
            await session.stop()
            await server.close()
            let failure = session.failureReason
            events.finished(["frames": frames])
            if let failure { throw failure }
            if !out.json { Console.notice("serve: \(frames) frames encoded in \(cFormat("%.1f", events.elapsed)) s") }
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
