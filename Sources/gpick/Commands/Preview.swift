import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct PreviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show the camera live: in a window, in this terminal, or as a page on 127.0.0.1.",
        discussion: """
        Keys (window and terminal): f flips between the back and front camera (the blurred last \
        frame shows while the other one starts), s takes a still into --output-dir, q quits. \
        Without --sink: a window when a display is available, the terminal when stdout is one. \
        With --source auto and no camera, it waits for one to be plugged in.
        """)

    @Option(name: .long, help: "window | terminal | http")
    var sink: String?

    @Option(name: .long, parsing: .unconditional, help: "Seconds to run (default: until q, Ctrl-C or SIGTERM).")
    var duration: Double?

    @Option(name: .long, parsing: .unconditional, help: "HTTP port on 127.0.0.1 (0: any free port).")
    var port = 8080

    @Option(name: .customLong("output-dir"), help: "Where stills taken with the s key go.")
    var outputDir = "."

    @OptionGroup var capture: SourceOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        if let sink, PreviewSink(rawValue: sink) == nil {
            throw ValidationError("unknown --sink \"\(sink)\" (use window, terminal or http)")
        }
        if let duration, !(duration > 0) { throw ValidationError("--duration \(duration) must be a positive number of seconds") }
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) must be 0…65535") }
    }

    func run() async throws {
        let events = Events(json: out.json, command: "preview")
        try await reporting(events) {
            let kind = try sink.map { PreviewSink(rawValue: $0)! } ?? PreviewSink.automatic()
            guard isDirectory(outputDir) == true else {
                throw GpickError(.output, "output directory does not exist: \(outputDir)")
            }
            let directory = URL(fileURLWithPath: outputDir).standardized.path
            let library = pipelines.library
            var config = try capture.configuration(library: library)
            try camera.apply(to: &config, capture: capture)
            let stopper = SignalStopper()
            if config.source == .auto { try await Self.waitForACamera(events: events, stopper: stopper, duration: duration) }
            let session = CaptureSession(config)
            session.onEvent { events.sessionEvent($0) }
            try await session.start()
            let (keys, keyInput) = AsyncStream<PreviewKey>.makeStream()
            var options = PreviewOptions()
            options.port = port
            let preview: Preview
            do {
                preview = try await Preview.start(kind, in: session, options: options) { keyInput.yield($0) }
            } catch {
                await session.stop()
                throw error
            }
            // A preview that fails (its window's compositor ended the connection, an element
            // failed) ends the command with that error, once the session has stopped cleanly.
            let failure = Locked<GpickError?>(nil)
            preview.onClosed { error in
                if let error { failure.withLock { $0 = $0 ?? error } }
                keyInput.yield(.quit)
            }
            var started: JSONFields = ["sink": kind.rawValue, "source": "\(session.source)",
                                          "width": session.format.width, "height": session.format.height]
            if let window = preview.windowSinkName { started["window-sink"] = window }
            if let url = preview.url {
                started["url"] = url
                if !out.json { print(url) }
            }
            events.started(started.mode(of: session))

            stopper.onSignal { _ in keyInput.yield(.quit) }
            let timer = duration.map { d in
                Task { try? await Task.sleep(nanoseconds: UInt64(d * 1e9)); keyInput.yield(.quit) }
            }
            let snapper = KeySnapper(session: session, directory: directory, library: library, events: events)
            for await key in keys {
                switch key {
                case .quit: break
                case .flip:
                    do {
                        let p = try await session.flip()
                        events.emit("flip", ["position": p.rawValue])
                    } catch {
                        events.emit("error", ["message": (error as? GpickError)?.line ?? "\(error)"])
                    }
                    continue
                case .snap:
                    await snapper.snap()
                    continue
                }
                break
            }
            timer?.cancel()
            let seconds = events.elapsed
            await preview.stop()
            let shown = preview.framesShown, offered = preview.framesOffered, dropped = preview.framesDropped
            await snapper.close()
            await session.stop()
            if let failed = failure.withLock({ $0 }) { throw failed }
            events.finished(["frames": shown, "camera-frames": offered, "dropped": dropped])
            if !out.json {
                Console.notice("preview: \(shown) frames shown of \(offered) from the camera in \(cFormat("%.1f", seconds)) s (\(dropped) dropped while busy)")
            }
        }
    }

    /// `auto` with no camera at all: a preview, unlike a capture, waits for one to be plugged in,
    /// as Cheese does, saying once what was looked for (`waiting-for-camera`). A signal or the
    /// end of `--duration` first ends it with that reason, as a command that found no camera.
    static func waitForACamera(events: Events, stopper: SignalStopper, duration: Double?) async throws(GpickError) {
        let reason = Locked<GpickError?>(nil)
        let waiting = Task {
            await AutoCamera.waitForOne { error in
                let first = reason.withLock { r in defer { r = error }; return r == nil }
                if first {
                    events.emit("waiting-for-camera", ["reason": error.message])
                    if !events.json { Console.notice("preview: \(error.message): waiting for a camera to be plugged in (Ctrl-C stops)") }
                }
                return true
            }
        }
        // A signal or the end of --duration stops the wait at once (not at the next look).
        stopper.onSignal { _ in waiting.cancel() }
        let timer = duration.map { d in Task { try? await Task.sleep(for: .milliseconds(Int64(d * 1000))); waiting.cancel() } }
        let found = await waiting.value
        timer?.cancel()
        let missing = reason.withLock { $0 }
        if found == nil, let missing { throw missing }
        if missing != nil { events.emit("camera-arrived", [:]) }
    }
}

/// Stills taken with the s key: the retained frame (zero lag), numbered names that never clobber.
actor KeySnapper {
    private let session: CaptureSession
    private let directory: String
    private let library: PipelineLibrary
    private let events: Events
    private var encoder: StillEncoder?
    private var next = 1

    init(session: CaptureSession, directory: String, library: PipelineLibrary, events: Events) {
        self.session = session
        self.directory = directory
        self.library = library
        self.events = events
    }

    func snap() async {
        do {
            if encoder == nil { encoder = try await StillEncoder.make(format: .jpeg, quality: nil, library: library) }
            var target: OutputPath
            repeat {
                target = try OutputPath(cFormat("snap-%04d.jpg", next), confinedTo: directory)
                next += 1
            } while FileManager.default.fileExists(atPath: target.path)
            for try await frame in session.nextFrames(1) {
                let bytes = try await encoder!.encode(frame, camera: session.camera)
                try await AtomicWrite.store(bytes, to: target)
                events.fileWritten(target.path, bytes: Int64(bytes.count))
            }
        } catch {
            events.emit("error", ["message": (error as? GpickError)?.line ?? "\(error)"])
            if !events.json { Console.error((error as? GpickError)?.line ?? "\(error)") }
        }
    }

    func close() async { await encoder?.close() }
}
