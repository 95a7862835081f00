import FoundationEssentials
import Glibc
import GstCore

/// Which camera of a session: like a phone, a session has a back and a front position.
public enum CameraPosition: String, Sendable, CaseIterable {
    case back, front
    public var other: CameraPosition { self == .back ? .front : .back }
}

/// One running source: a bin in the session pipeline holding the source part, the session's
/// `input` stage (convert, scale, format caps) and an appsink that hands frames to the switch.
/// Each start of a source is a new generation, so frames and errors of a stopped one are ignored.
final class SourceStage: @unchecked Sendable {
    // `@unchecked Sendable` invariant: immutable after init; the bin is only changed (state, parent)
    // on the session's control queue.
    let bin: Bin
    let position: CameraPosition
    let spec: SourceSpec
    let generation: Int

    init(_ parts: [PipelineBuilder.Part], text: String, position: CameraPosition, spec: SourceSpec,
         generation: Int, testOptions: SourceSpec.TestOptions?, format: SessionFormat,
         deliver: @escaping @Sendable (Sample) -> AppSink.Flow, ended: @escaping @Sendable () -> Void) throws(GpickError) {
        self.position = position
        self.spec = spec
        self.generation = generation
        bin = try PipelineBuilder.compose(text + " ! appsink name=out sync=false async=false max-buffers=4 drop=false enable-last-sample=false",
                                          parts: parts, asPipeline: false)
        bin.setName("source-\(position.rawValue)-\(generation)")
        do {
            let f = format
            let caps = try Caps("video/x-raw,format=I420,width=\(f.width),height=\(f.height),framerate=\(f.fps)/1,pixel-aspect-ratio=1/1")
            let formatElement = try bin.requireElement(named: "format")
            try formatElement.set("caps", caps: caps)
            // A file source ends; its end stops at this appsink (the session's stream goes on).
            try AppSink(try bin.requireElement(named: "out")).setCallbacks(deciding: deliver, onEOS: ended)
            if let o = testOptions, let pad = formatElement.staticPad("src") {
                TestSourceProbe(options: o).install(on: pad, source: try bin.requireElement(named: "src"))
            }
        } catch {
            throw GpickError(.pipeline, "source \(spec): \(error.message)")
        }
    }

    /// The generation an element path belongs to ("/GstPipeline:pipeline0/GstBin:source-front-3/…").
    static func generation(inPath path: String) -> Int? {
        guard let r = path.firstRange(of: ":source-") else { return nil }
        let rest = path[r.upperBound...]
        guard let dash = rest.firstIndex(of: "-") else { return nil }
        return Int(rest[rest.index(after: dash)...].prefix { $0.isNumber })
    }

    /// Adds the bin to the running pipeline and starts it (control queue or before play).
    func start(in pipeline: Pipeline) throws(GpickError) {
        // A test source added to a running session counts its timestamps from 0; offset them to
        // now, as a camera's would be, so it paces itself by the clock instead of catching up.
        if case .test = spec, let now = pipeline.runningTime, now > 0, let src = bin.element(named: "src"),
           src.hasProperty("timestamp-offset") {
            try? src.set("timestamp-offset", .int(Int64(now)))
        }
        do {
            try pipeline.add(bin)
            try bin.syncStateWithParent()
        } catch {
            throw GpickError(.device, "\(spec) could not start: \(error.message)")
        }
    }

    /// Stops the source and removes it (control queue only: this waits for its streaming thread).
    func stop(in pipeline: Pipeline) {
        _ = try? bin.setState(.null)
        pipeline.remove(bin)
    }
}
