import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct Live: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Take a live photo: the still at the shutter plus a clip from --before to --after around it.",
        discussion: """
        apple writes NAME.jpg + NAME.mov sharing one UUID (Apple MakerNote tag 17 in the JPEG, the \
        com.apple.quicktime.content.identifier key in the MOV, and a still-image-time track at the still); \
        motion writes NAME.MP.jpg, a Google Motion Photo (the JPEG with the MP4 clip appended and described \
        in its XMP); both (the default) writes all three. The session waits until --before seconds are \
        buffered, so the clip is complete.
        """)

    @Option(name: [.short, .customLong("output")], help: "Name of the live photo (NAME.MP.jpg is written).")
    var output: String

    @Option(name: .long, parsing: .unconditional, help: "Seconds of clip before the shutter (0 < s ≤ 10).")
    var before = 1.5

    @Option(name: .long, parsing: .unconditional, help: "Seconds of clip after the shutter (0 < s ≤ 10).")
    var after = 1.5

    @Option(name: .long, help: "apple (NAME.jpg + NAME.mov), motion (NAME.MP.jpg) or both.")
    var format = "both"

    @Flag(name: .long, help: "Replace existing outputs.")
    var force = false

    @Option(name: .long, parsing: .unconditional, help: "JPEG quality 1…100.")
    var quality: Int?

    @OptionGroup var capture: SourceOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var saving: LibrarySaveOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        guard LivePhotoFormat(rawValue: format) != nil else { throw ValidationError("unknown --format \"\(format)\" (use apple, motion or both)") }
        for (n, v) in [("before", before), ("after", after)] where !(v > 0 && v <= 10) {
            throw ValidationError("--\(n) \(v) must be more than 0 and at most 10 seconds")
        }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality \(quality) must be 1…100") }
    }

    func run() async throws {
        let events = Events(json: out.json, command: "live")
        try await reporting(events) {
            var settings = LivePhotoSettings()
            settings.before = before
            settings.after = after
            settings.format = LivePhotoFormat(rawValue: format)!
            settings.force = force
            settings.quality = quality
            let name = try OutputPath(output)
            _ = try LivePhotoCapture.outputs(for: name, format: settings.format, force: force)  // refuse before starting
            let library = pipelines.library
            let encoder = try await StillEncoder.make(format: .jpeg, quality: quality, library: library)
            do {
                var config = try capture.configuration(library: library)
                try camera.apply(to: &config, capture: capture)
                let r = try await withSession(config, events: events) { session in
                    let ring = try await LiveRing.arm(in: session, seconds: before + 0.5)
                    events.started(["before": before, "after": after])
                    try await ring.waitForPreroll(before)
                    events.emit("shutter", [:])
                    return try await LivePhotoCapture.capture(session: session, ring: ring, encoder: encoder, name: name, settings: settings)
                }
                let files = [r.still, r.movie, r.motionPhoto].compactMap { $0 }
                for p in files {
                    events.fileWritten(p, bytes: fileBytes(p), extra: ["still-time": r.stillTime, "clip-duration": r.clipDuration,
                                                                       "clip-frames": r.clipFrames, "content-identifier": r.contentIdentifier ?? ""])
                }
                try await saving.save(files, events: events)
                events.finished(["still-time": r.stillTime, "clip-duration": r.clipDuration, "clip-frames": r.clipFrames])
            } catch {
                await encoder.close()
                throw error
            }
            await encoder.close()
        }
    }
}
