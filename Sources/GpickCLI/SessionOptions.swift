import ArgumentParser
import GpickKit

/// The camera and pipeline options every capturing command takes (`snap`, `record`, `preview`,
/// and `pick`, which runs in gpick-library): shared so both executables spell them the same.
package struct PipelineOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: "Directory of pipeline files (overrides $GPICK_PIPELINES and the installed ones).")
    package var pipelines: String?

    package var library: PipelineLibrary { PipelineLibrary(override: pipelines) }
}

package struct SourceOptions: ParsableArguments {
    package init() {}

    @Option(name: [.customLong("source"), .customLong("back")],
            help: "The (back) camera: auto (PipeWire, libcamera, then V4L2; none is an error) | test[:PATTERN][?id=N&fail-after=N&warmup=SECONDS&latency=SECONDS] | v4l2:/dev/videoN | pipewire[:NAME|ID] | libcamera[:NAME] | file:PATH (gpick devices lists cameras)")
    package var source = "auto"

    @Option(name: .long, help: "The front camera, for flips, of any kind (default: a second test source, or another camera found).")
    package var front: String?

    @Flag(name: .customLong("mirror-front"), help: "Mirror the front camera left-right, as phones show selfies.")
    package var mirrorFront = false

    @Option(name: .long, parsing: .unconditional, help: "Frame width in pixels (even, 16…8192).")
    package var width = 1280

    @Option(name: .long, parsing: .unconditional, help: "Frame height in pixels (even, 16…8192).")
    package var height = 720

    @Option(name: .long, parsing: .unconditional, help: "Frames per second (1…240).")
    package var fps = 30

    @Option(name: .long, help: "Sound: none, test (a tone) or auto (the default microphone).")
    package var audio = "none"

    package mutating func validate() throws {
        do { _ = try SourceSpec.parse(source) } catch { throw ValidationError("--source: " + error.message) }
        if let front {
            do { _ = try SourceSpec.parse(front) } catch { throw ValidationError("--front: " + error.message) }
            if front == "auto" { throw ValidationError("--front auto is not allowed: name the front camera, or leave --front out") }
        }
        do { try SessionFormat(width: width, height: height, fps: fps).validate() } catch { throw ValidationError(error.message) }
        guard AudioSpec(rawValue: audio) != nil else {
            throw ValidationError("unknown --audio \"\(audio)\" (use none, test or auto)")
        }
    }

    package func configuration(library: PipelineLibrary, audioDefault: AudioSpec = .none) throws(GpickError) -> SessionConfiguration {
        var c = SessionConfiguration()
        c.source = try SourceSpec.parse(source, patterns: library.testPatterns)
        if let front { c.front = try SourceSpec.parse(front, patterns: library.testPatterns) }
        c.mirrorFront = mirrorFront
        c.audio = AudioSpec(rawValue: audio) ?? audioDefault
        c.format = SessionFormat(width: width, height: height, fps: fps)
        c.library = library
        return c
    }
}

