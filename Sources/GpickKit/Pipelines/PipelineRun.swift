import FoundationEssentials
import Glibc
import GstCore

/// Runs a complete pipeline file (kind `pipeline`) on its own: outputs go through our temp files
/// (published only on success), it ends at EOS, after `duration` (EOS sent), or when `stop` fires.
public enum PipelineRun {
    public struct Outcome: Sendable {
        public var files: [String]
        public var seconds: Double
    }

    public static func run(_ file: PipelineFile, values: [String: Parameter.Value], outputs: [String: OutputPath],
                           inputs: [String: String] = [:], duration: Double?, policy: PipelinePolicy,
                           stop: AsyncStream<Void>? = nil) async throws(GpickError) -> Outcome {
        guard !file.taps.contains(where: { $0.value.role == .appsrc }) else {
            throw GpickError(.usage, "\(file.path): an appsrc tap needs frames from gpick; give it kind encoder")
        }
        var temps: [TempFile] = []
        var props: [String: PropertyValue] = [:]
        do {
            for p in file.parameters where p.type == .outputPath {
                guard let out = outputs[p.name] else {
                    if p.required { throw GpickError(.usage, "\(file.name): \(p.name) is required", remedy: .giveParameter(p.name)) }
                    continue
                }
                let t = try TempFile(for: out)
                temps.append(t)
                let prop = file.bindings.first { $0.parameter == p.name }?.property
                props[p.name] = prop == "fd" ? .int(Int64(t.fd)) : .string(t.tempPath)
            }
            for (name, path) in inputs {
                guard FileManager.default.isReadableFile(atPath: path) else { throw GpickError(.input, "cannot read \(path)") }
                props[name] = .string(path)
            }
            let bin = try await PipelineBuilder.build(file, values: values, outputs: props, policy: policy, asPipeline: true)
            guard let pipeline = bin as? Pipeline else { throw GpickError(.runtime, "\(file.path) did not build a pipeline") }
            for tap in file.taps where tap.value.role == .appsink {
                // Nobody reads an appsink here: keep only the newest buffer so it never blocks.
                let e = try? pipeline.requireElement(named: tap.value.element)
                try? e?.set("drop", true)
                try? e?.set("max-buffers", 1)
                try? e?.set("wait-on-eos", false)
            }
            let start = Date()
            let error = await play(pipeline, duration: duration, stop: stop)
            if let error { throw error }
            for t in temps { try t.finish() }
            return Outcome(files: temps.map(\.target.path), seconds: Date().timeIntervalSince(start))
        } catch let error as GpickError {
            for t in temps { t.discard() }
            throw error
        } catch {
            for t in temps { t.discard() }
            throw GpickError(.runtime, "\(error)")
        }
    }

    /// Plays until EOS or an error; a deadline or a stop request sends EOS and waits for it.
    private static func play(_ pipeline: Pipeline, duration: Double?, stop: AsyncStream<Void>?) async -> GpickError? {
        let messages = pipeline.bus.messages()
        do { try await pipeline.setState(.playing) } catch {}
        let eosSender = Task {
            if let duration { try? await Task.sleep(nanoseconds: UInt64(duration * 1e9)) }
            else if let stop { for await _ in stop { break } }
            else { return }
            if !Task.isCancelled { pipeline.sendEvent(.endOfStream()) }
        }
        let stopper = stop.map { s in Task { for await _ in s { pipeline.sendEvent(.endOfStream()); break } } }
        var result: GpickError?
        for await m in messages {
            if case .endOfStream = m { break }
            if case .error(let e) = m { result = GpickError(.runtime, e.description, detail: e.diagnostic); break }
            if case .missingPlugin(_, let d) = m { result = GpickError(.plugin, "missing GStreamer plugin: \(d)"); break }
        }
        eosSender.cancel()
        stopper?.cancel()
        _ = try? await pipeline.setState(.null)
        return result
    }
}
