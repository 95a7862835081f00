import ArgumentParser
import Foundation
import GpickBase
import GpickCLI
import GpickFormats
import GpickImages
import GpickKit

/// `gpick inspect PHOTO`: gpick hands photos over to this executable, which has libvips (gpick
/// keeps movies, which GStreamer reads). The facts come from gpick's own metadata readers; libvips
/// says whether, and at what size, it decodes the pixels.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe a photo: its size upright, when it was taken, the camera, the images it holds, its live-photo video.",
        shouldDisplay: false)

    @Argument(help: "The photo to inspect.")
    var file: String

    @Flag(name: .long, help: "Decode a JPEG or PNG still with GStreamer and print its frame stamp.")
    var stamps = false

    @Option(name: .long, help: "Directory of pipeline files (overrides $GPICK_PIPELINES and the installed ones).")
    var pipelines: String?

    @Flag(name: .long, help: "Print one JSON object per event on stdout.")
    var json = false

    @Flag(name: .long, help: "Also print the decoders' own warnings.")
    var verbose = false

    func validate() throws {
        if verbose { Console.beVerbose() }
    }

    func run() async throws {
        let events = Events(json: json, command: "inspect")
        let path = file
        try await reporting(events) {
            let meta = try await OffPool.run { () throws(GpickError) in try MetadataReader.read(path: path) }
            let decoder = try await StillInspector.decoderFacts(path: path, metadata: meta)
            let report = try await MediaInspector.inspectStill(path: path, metadata: meta, decoder: decoder, stamps: stamps,
                                                               library: PipelineLibrary(override: pipelines))
            try InspectOutput.emit(report, json: json, stamps: stamps, events: events)
        }
    }
}
