import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct TimelapseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timelapse",
        abstract: "Make a timelapse: a frame every --every, encoded as it is taken, into one MP4.",
        discussion: """
        Frames are taken on the monotonic clock (one at the start, then one every --every; a late \
        one does not shift the rest) and play at --playback-fps: eight hours at one frame in ten \
        seconds play in 96 s at 30 fps. One frame is held at a time, so memory stays flat, and the \
        MP4's index is rewritten after every frame: Ctrl-C and SIGTERM end it whole, and kill -9 or \
        a power cut leave a file that plays with every frame taken but the newest (an MP4 writes a \
        frame once the next one's time is known). Runs for --for, or until Ctrl-C or SIGTERM.
        """)

    @Option(name: [.short, .customLong("output")], help: "The MP4 to write.")
    var output: String

    @Option(name: .long, help: "Time between two frames taken (e.g. 10s, 1m, 500ms).")
    var every: String

    @Option(name: .customLong("for"), help: "How long to take frames (e.g. 8h, 90m); default: until Ctrl-C or SIGTERM.")
    var length: String?

    @Option(name: .customLong("playback-fps"), parsing: .unconditional, help: "Frames a second when it plays (1…240, default 30).")
    var playbackFPS = 30

    @OptionGroup var capture: SourceOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        _ = try settings()
        guard output.lowercased().hasSuffix(".mp4") else { throw ValidationError("-o \(output): a timelapse is an MP4 (.mp4)") }
    }

    func settings() throws -> Timelapse.Settings {
        var s = Timelapse.Settings()
        guard let e = DurationText.parse(every), e > 0 else { throw ValidationError("--every \(every) must be a duration above 0 (e.g. 10s, 1m, 500ms)") }
        s.every = e
        if let length {
            guard let d = DurationText.parse(length), d > 0 else { throw ValidationError("--for \(length) must be a duration above 0 (e.g. 8h, 90m)") }
            guard d >= e else { throw ValidationError("--for \(length) is shorter than --every \(every): no second frame") }
            s.duration = d
        }
        guard (1...240).contains(playbackFPS) else { throw ValidationError("--playback-fps \(playbackFPS) must be 1…240") }
        s.fps = playbackFPS
        return s
    }

    func run() async throws {
        let events = Events(json: out.json, command: "timelapse")
        try await reporting(events) {
            let settings = try self.settings()
            let target = try OutputPath(output)
            var config = try capture.configuration(library: pipelines.library)
            try camera.apply(to: &config, capture: capture)
            config.audio = .none
            let session = CaptureSession(config)
            session.onEvent { events.sessionEvent($0) }
            let stopper = SignalStopper()
            let lapse: Timelapse
            do {
                try await session.start()
                lapse = try await Timelapse.start(in: session, to: target, settings: settings) { f in
                    events.emit("frame-taken", ["number": f.number, "time": (f.time * 1000).rounded() / 1000])
                    Console.progress("timelapse: frame \(f.number)\(settings.frames.map { " of \($0)" } ?? "")")
                }
            } catch {
                await session.stop()
                throw error
            }
            var started: JSONFields = ["path": target.path, "every": settings.every, "playback-fps": settings.fps]
            if let n = settings.frames { started["frames"] = n }
            events.started(started.mode(of: session))
            let service = ServiceWatch.ready("timelapse of \(session.source) into \(target.path)", sessions: [session])
            stopper.onSignal { _ in lapse.requestStop() }
            let result: Timelapse.Result
            do {
                result = try await lapse.finished()
            } catch {
                await session.stop()
                throw error
            }
            service?.stopping()
            await session.stop()
            Console.endProgress()
            events.fileWritten(result.path, bytes: fileStatus(result.path).map { Int64($0.st_size) } ?? 0,
                               extra: ["frames": result.frames, "duration": result.duration])
            events.finished()
        }
    }
}
