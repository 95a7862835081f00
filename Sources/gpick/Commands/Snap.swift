import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit
import GstCore

struct Snap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snap",
        abstract: "Take a still (or a burst of consecutive stills) from the running stream.",
        discussion: "Each still is written atomically (temp file, then rename) and its path printed on its own line.")

    @Option(name: [.short, .customLong("output")], help: "Image file to write (.jpg or .png). With --count, numbered names are derived from it.")
    var output: String

    @Option(name: .long, help: "jpeg or png (default: from the file extension).")
    var format: String?

    @Option(name: .long, parsing: .unconditional, help: "JPEG quality 1…100.")
    var quality: Int?

    @Option(name: .long, parsing: .unconditional, help: "Number of stills (consecutive frames).")
    var count = 1

    @Option(name: .long, parsing: .unconditional, help: "With --count: take every K-th frame.")
    var every = 1

    @OptionGroup var capture: SourceOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var saving: LibrarySaveOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        if let format, StillFormat(rawValue: format) == nil {
            throw ValidationError("unknown --format \"\(format)\" (use jpeg or png)")
        }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality \(quality) must be 1…100") }
        guard (1...100_000).contains(count) else { throw ValidationError("--count \(count) must be 1…100000") }
        guard (1...10_000).contains(every) else { throw ValidationError("--every \(every) must be 1…10000") }
    }

    func run() async throws {
        let events = Events(json: out.json, command: "snap")
        try await reporting(events) {
            let target = try OutputPath(output)
            let stillFormat: StillFormat
            if let format {
                stillFormat = StillFormat(rawValue: format)!
                if let fromName = try? StillFormat(path: target), fromName != stillFormat {
                    throw GpickError(.usage, "--format \(format) does not match the extension of \(target.name)")
                }
            } else {
                stillFormat = try StillFormat(path: target)
            }
            let library = pipelines.library
            var config = try capture.configuration(library: library)
            try camera.apply(to: &config, capture: capture)
            config.audio = .none
            config.framesOnly = true
            let session = CaptureSession(config)
            session.onEvent { events.sessionEvent($0) }
            // The encoder pipeline is built while the camera makes its first frame (two cores): after
            // the session's own parsing, which it would only slow down.
            try await session.prepare()
            // The stills are the camera's first frames after warm-up, whenever the encoder is
            // ready (a loaded machine can take several frame intervals to build it); the camera
            // ends its stream with the last of them instead of making one more.
            let shots = try session.lastFrames(count, every: every)
            let quality = self.quality
            let encoderBuild = OffPool.start { () throws(GpickError) in
                try StillEncoder(format: stillFormat, quality: quality, library: library)
            }
            events.started((["source": "\(session.source)", "width": session.format.width, "height": session.format.height] as JSONFields).mode(of: session))
            // The five capture stages a session's snap reports (--json), the first two before the
            // camera plays: its first frames are the stills.
            events.emit("capture-settings-resolved", ["format": stillFormat.rawValue, "count": count, "every": every,
                                                      "width": session.format.width, "height": session.format.height])
            events.emit("capture-exposure-started")
            do {
                try await session.play()
            } catch {
                if let e = try? await encoderBuild.value() { await e.close() }
                throw error
            }
            let encoder: StillEncoder
            do { encoder = try await encoderBuild.value() } catch {
                await session.stop()
                throw error
            }
            var written = 0, received = 0
            var paths: [String] = []
            // Once the last frame is in hand the camera is done: the session stops while that
            // frame is encoded and written, so its teardown is off the critical path and the
            // camera paints no frames that nobody takes.
            var stopping: Task<Void, Never>?
            do {
                for try await frame in shots {
                    received += 1
                    if received == count { stopping = Task { await session.stop() } }
                    if events.json {
                        let stamp = frame.withVideoFrame { FrameStamp.read(from: $0) } ?? nil
                        events.emit("capture-exposure-complete", ["index": received, "stamp": stamp?.description ?? "none"])
                    }
                    let path = count == 1 ? target : target.numbered(written + 1, of: count)
                    let bytes = try await encoder.encode(frame, storingTo: path, camera: session.camera)
                    written += 1
                    paths.append(path.path)
                    events.emit("capture-data-delivered", ["index": written, "path": path.path, "bytes": bytes.count])
                    events.fileWritten(path.path, bytes: Int64(bytes.count))
                    if received < count { events.emit("capture-exposure-started") }
                }
            } catch let e as GpickError {
                await encoder.close()
                if let stopping { await stopping.value } else { await session.stop() }
                throw e
            }
            // The encoder stops beside the session.
            async let closed: Void = encoder.close()
            if let stopping { await stopping.value } else { await session.stop() }
            await closed
            if written < count {
                throw session.failureReason ?? GpickError(.runtime, "only \(written) of \(count) stills were taken")
            }
            events.emit("capture-complete", ["files": written])
            try await saving.save(paths, events: events)
            events.finished(["files": written])
        }
    }
}
