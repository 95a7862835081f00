import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline file by name or path, with typed parameters.",
        discussion: """
        A pipeline file runs as what it is: a pipeline on its own; a source, audio source or session \
        middle as a capture session; a branch as a recording on the test source; an encoder as one still. \
        Output paths stay inside --output-dir.
        """)

    @Argument(help: "A pipeline file path, or the name of one (see `gpick pipelines list`).")
    var pipeline: String

    @OptionGroup var set: SetOptions

    @Option(name: .long, parsing: .unconditional, help: "Seconds to run (pipelines and recordings: then EOS).")
    var duration: Double?

    @Option(name: [.short, .customLong("output")], help: "For encoders: the still to write.")
    var output: String?

    @Option(name: .customLong("output-dir"), help: "Directory output paths are confined to.")
    var outputDir: String = "."

    @OptionGroup var policy: PolicyOptions
    @OptionGroup var capture: SourceOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration \(duration) must be a positive number of seconds") }
    }

    func run() async throws {
        let events = Events(json: out.json, command: "run")
        try await reporting(events) {
            let library = pipelines.library
            let file = try library.load(pipeline)
            try await PipelineBuilder.validate(file, policy: policy.policy)
            let (values, paths) = try set.resolve(for: file)
            let root = URL(fileURLWithPath: outputDir).standardized.path
            func confined(_ p: String) throws(GpickError) -> OutputPath { try OutputPath(p, confinedTo: root) }
            events.started(["pipeline": file.path, "kind": file.kind.rawValue])
            var config = try capture.configuration(library: library)
            let seconds = duration ?? 2
            switch file.kind {
            case .pipeline:
                var outputs: [String: OutputPath] = [:], inputs: [String: String] = [:]
                for (k, v) in paths {
                    if file.parameter(k)?.type == .inputPath { inputs[k] = v } else { outputs[k] = try confined(v) }
                }
                let stopper = SignalStopper()
                let (stop, cont) = AsyncStream<Void>.makeStream()
                stopper.onSignal { _ in cont.yield() }
                let outcome = try await PipelineRun.run(file, values: values, outputs: outputs, inputs: inputs, duration: duration,
                                                        policy: policy.policy, stop: stop)
                for f in outcome.files { events.fileWritten(f, bytes: fileBytes(f)) }
            case .source, .audioSource, .session:
                if config.source == .auto { config.source = .test(.init()) }
                let part = PipelineBuilder.Part(file, values: values, outputs: paths.mapValues { .string($0) })
                switch file.kind {
                case .source: config.sourceFile = part
                case .audioSource: config.audioFile = part
                default: config.sessionFile = part
                }
                let frames = try await withSession(config, events: events) { session in
                    try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                    if let f = session.failureReason { throw f }
                    return session.deliveredFrames
                }
                events.emit("frames", ["frames": frames])
                if !out.json { print("\(file.name): \(frames) frames in \(seconds) s") }
            case .branch where !file.parameters.contains(where: { $0.type == .outputPath }):
                // A branch that only feeds appsinks (the live-photo ring): fill it for --duration.
                let n = try await withSession(config, events: events) { session in
                    let ring = try await LiveRing.arm(in: session, seconds: seconds, file: file, values: values)
                    try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                    let n = ring.frameCount
                    await ring.disarm()
                    return n
                }
                events.emit("frames", ["frames": n])
                if !out.json { print("\(file.name): \(n) encoded frames held") }
            case .encoder where file.tap("output") == nil:
                // An encoder fed with encoded samples (live-clip): a ring fills for --duration,
                // then all of it goes through this file.
                guard let path = paths["output"] else { throw GpickError(.usage, "\(file.name): give the output with --set output=PATH") }
                let target = try confined(path)
                let r = try await withSession(config, events: events) { session in
                    let ring = try await LiveRing.arm(in: session, seconds: seconds + 1)
                    try await ring.waitForPreroll(seconds)
                    let r = try await ring.writeAll(to: target, file: file)
                    await ring.disarm()
                    return r
                }
                events.fileWritten(target.path, bytes: fileBytes(target.path), extra: ["frames": r.frames, "duration": r.duration])
            case .branch:
                guard let outParam = file.parameters.first(where: { $0.type == .outputPath }), let path = paths[outParam.name] else {
                    throw GpickError(.usage, "\(file.name): give the output with --set \(file.parameters.first { $0.type == .outputPath }?.name ?? "output")=PATH")
                }
                let target = try confined(path)
                var settings = RecordingSettings(container: try Container(path: target), duration: seconds)
                settings.pipelineFile = file
                settings.values = set.values.filter { $0.key != outParam.name }
                let files = try await withSession(config, events: events, prepareOnly: true) { session in
                    // Without --duration, an MP4 goes on in NAME-002.mp4, … past its header space.
                    let rec = try await OpenRecording.start(in: session, to: target, settings: settings)
                    try await session.play()
                    let stopper = SignalStopper()
                    stopper.onSignal { _ in rec.requestStop() }
                    return try await rec.finished()
                }
                for r in files { events.fileWritten(r.path, bytes: r.bytes, extra: ["frames": r.frames]) }
            case .encoder:
                guard let output else { throw GpickError(.usage, "\(file.name): give the still to write with -o PATH") }
                let target = try confined(output)
                let format = (try? StillFormat(path: target)) ?? .jpeg
                let encoder = try await OffPool.run { () throws(GpickError) in try StillEncoder(file: file, values: values, format: format) }
                do {
                    try await withSession(config, events: events) { session in
                        var written = false
                        for try await frame in session.nextFrames(1) {
                            let bytes = try await encoder.encode(frame, camera: session.camera)
                            try await AtomicWrite.store(bytes, to: target)
                            events.fileWritten(target.path, bytes: Int64(bytes.count))
                            written = true
                        }
                        if !written { throw session.failureReason ?? GpickError(.runtime, "no frame was encoded") }
                    }
                } catch {
                    await encoder.close()
                    throw error
                }
                await encoder.close()
            }
            events.finished([:])
        }
    }
}
