import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON object per event on stdout.")
    var json = false

    @Flag(name: .long, help: "Also print GStreamer's warnings, and its debug text after an error's line.")
    var verbose = false

    func validate() throws {
        if verbose { Console.verboseFlag.store(true, ordering: .relaxed) }
    }
}

struct PipelineOptions: ParsableArguments {
    @Option(name: .long, help: "Directory of pipeline files (overrides $GPICK_PIPELINES and the installed ones).")
    var pipelines: String?

    var library: PipelineLibrary { PipelineLibrary(override: pipelines) }
}

struct SourceOptions: ParsableArguments {
    @Option(name: [.customLong("source"), .customLong("back")],
            help: "The (back) camera: auto | test[:PATTERN][?id=N&fail-after=N&warmup=SECONDS] | v4l2:/dev/videoN | pipewire[:NAME|ID] | libcamera[:NAME] | file:PATH (gpick devices lists cameras)")
    var source = "auto"

    @Option(name: .long, help: "The front camera, for flips, of any kind (default: a second test source, or another camera found).")
    var front: String?

    @Flag(name: .customLong("mirror-front"), help: "Mirror the front camera left-right, as phones show selfies.")
    var mirrorFront = false

    @Option(name: .long, parsing: .unconditional, help: "Frame width in pixels (even, 16…8192).")
    var width = 1280

    @Option(name: .long, parsing: .unconditional, help: "Frame height in pixels (even, 16…8192).")
    var height = 720

    @Option(name: .long, parsing: .unconditional, help: "Frames per second (1…240).")
    var fps = 30

    @Option(name: .long, help: "Sound: none, test (a tone) or auto (the default microphone).")
    var audio = "none"

    mutating func validate() throws {
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

    func configuration(library: PipelineLibrary, audioDefault: AudioSpec = .none) throws(GpickError) -> SessionConfiguration {
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

/// What a pipeline file may do beyond gpick's own outputs (`run`, `pipelines check`).
struct PolicyOptions: ParsableArguments {
    @Flag(name: .customLong("allow-network"), help: "Allow elements that send data off the machine.")
    var allowNetwork = false

    @Flag(name: .customLong("allow-paths"), help: "Allow file-writing elements whose location is not a parameter.")
    var allowPaths = false

    var policy: PipelinePolicy { PipelinePolicy(allowNetwork: allowNetwork, allowPaths: allowPaths) }
}
