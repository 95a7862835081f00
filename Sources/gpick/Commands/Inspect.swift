import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickFormats
import GpickKit

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe a photo or movie: kind, size, codec, duration, frame count, streams, frame stamps.",
        discussion: """
            A photo (JPEG, HEIC, AVIF, JPEG XL, WebP, PNG, GIF, TIFF, camera RAW) is read by gpick's own \
            metadata readers and libvips: its stored and upright size, when it was taken, the camera, the images \
            it holds, and its Motion Photo video or Apple pairing. A movie is read by GStreamer.
            """)

    @Argument(help: "The file to inspect.")
    var file: String

    @Flag(name: .long, help: "Decode every frame and print its frame stamp.")
    var stamps = false

    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func run() async throws {
        // Photos are read where libvips is (gpick-library, beside gpick): gpick itself never loads it.
        if MetadataReader.looksLikeStill(path: file) {
            var args = ["inspect", file]
            if stamps { args.append("--stamps") }
            if out.json { args.append("--json") }
            if out.verbose { args.append("--verbose") }
            if let dir = pipelines.pipelines { args += ["--pipelines", dir] }
            throw PickHalf.exec(args)
        }
        let events = Events(json: out.json, command: "inspect")
        try await reporting(events) {
            let report = try await MediaInspector.inspect(path: file, decode: true, library: pipelines.library)
            try InspectOutput.emit(report, json: out.json, stamps: stamps, events: events)
        }
    }
}
