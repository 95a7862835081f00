import FoundationEssentials
import Glibc
import GstCore

/// Muxes a live photo's encoded samples into an MP4 (pipeline file `live-clip`): the ring's
/// buffers are pushed as retimed copies so the clip starts at 0.
enum ClipWriter {
    struct Clip {
        var bytes: [UInt8]
        var frames: Int
        var duration: Double
    }

    static func write(video: [LiveRing.Entry], audio: [LiveRing.Entry], start: UInt64, scratch: OutputPath,
                      library: PipelineLibrary, file custom: PipelineFile? = nil) async throws(GpickError) -> Clip {
        guard let first = video.first, let vcaps = first.sample.caps else { throw GpickError(.runtime, "the live-photo ring holds no video yet") }
        let file: PipelineFile
        if let custom { file = custom } else { file = try library.load("live-clip") }
        let tmp = try TempFile(for: scratch)
        defer { tmp.discard() }
        let bin = try await PipelineBuilder.build(file, audio: !audio.isEmpty, outputs: ["output": .int(Int64(tmp.fd))], asPipeline: true)
        guard let pipeline = bin as? Pipeline else { throw GpickError(.runtime, "\(file.path) did not build a pipeline") }
        let messages = pipeline.bus.messages()
        do throws(GStreamerError) {
            let vin = try AppSrc(try pipeline.requireElement(named: file.tap("input")?.element ?? "vin"))
            vin.setCaps(vcaps)
            var ain: AppSrc?
            if let a = audio.first, let acaps = a.sample.caps {
                ain = try AppSrc(try pipeline.requireElement(named: file.tap("audio-input")?.element ?? "ain"))
                ain?.setCaps(acaps)
            }
            try await pipeline.setState(.playing)
            // appsrc queues without limit by default: pushing the whole clip up front is fine (≈ 2–4 MB).
            for e in video where e.time >= start {
                if let b = e.sample.retimedBuffer(pts: e.time - start, duration: e.duration) { try vin.push(b) }
            }
            vin.endOfStream()
            if let ain {
                for e in audio where e.time >= start {
                    if let b = e.sample.retimedBuffer(pts: e.time - start, duration: e.duration) { try ain.push(b) }
                }
                ain.endOfStream()
            }
        } catch {
            _ = try? await pipeline.setState(.null)
            throw GpickError(.runtime, "live-photo clip: \(error.message)", detail: error.diagnostic)
        }
        var failure: GpickError?
        do {
            failure = try await withTimeout(20) { () async -> GpickError? in
                await MuxerEnd.wait(messages, what: "live-photo clip", file: scratch.name, directory: scratch.directory)
            }
        } catch {
            failure = GpickError(.runtime, "live-photo clip: writing took longer than 20 s")
        }
        _ = try? await pipeline.setState(.null)
        if let failure { throw failure }
        guard let data = FileManager.default.contents(atPath: tmp.tempPath) else { throw GpickError(.output, "cannot read back \(tmp.tempPath)") }
        let frames = video.filter { $0.time >= start }
        let end = (frames.last.map { $0.time + ($0.duration ?? 0) } ?? start)
        return Clip(bytes: [UInt8](data), frames: frames.count, duration: Double(end - start) / 1e9)
    }
}
