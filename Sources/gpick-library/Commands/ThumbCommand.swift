import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickImages
import GpickPickCLI
import GpickLibrary

/// `gpick thumb SOURCE -o FILE`: one thumbnail of a file or of an asset of the library, written
/// atomically as PNG, JPEG or WebP by the output's name.
struct ThumbCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Make a thumbnail of a photo or a video: a file, a URL, an asset of the library, or a camera's frame.",
        discussion: """
            A photo is turned upright by its EXIF orientation; a Motion Photo gives its primary image and a live \
            photo its still; a video gives a frame about a third in, skipping black frames. A file is told photo or \
            video by its content, not its name. --fit (the default) keeps the whole picture inside the box with its \
            aspect ratio, never enlarging it; --fill covers the box exactly, cropped around the centre. \
            The output is written atomically (a temp file in the same folder, renamed): its name is literal, \
            and a symlink there is replaced, not written through. Its format follows its extension: \
            \(ThumbnailFormat.extensions).
            """
    )

    @Argument(help: ArgumentHelp("A photo or video file, an http(s) URL, asset:ID (the id `gpick library list` shows), or camera[:SPEC] (the newest frame of a camera; SPEC as gpick's --source takes it, default auto).", valueName: "SOURCE"))
    var source: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the thumbnail: a .png, .jpg, .jpeg or .webp file.", valueName: "FILE"))
    var output: String

    @Option(name: .long, help: ArgumentHelp("The box: WxH, or N for a square; each side 1 to \(ThumbSize.maxSide).", valueName: "WxH"))
    var size = "256x256"

    @Flag(help: "How the picture goes into the box (default --fit).")
    var mode: Mode = .fit

    @Flag(name: .long, help: "Write a cheap stand-in first when there is one (a cached thumbnail, the EXIF thumbnail, a kept copy of a URL's picture), then the final picture over it.")
    var progressive = false

    @Flag(name: .long, help: "Print one JSON object per event on stdout.")
    var json = false

    enum Mode: String, EnumerableFlag {
        case fit, fill

        static func help(for value: Mode) -> ArgumentHelp? {
            switch value {
            case .fit: "Stay inside the box, keeping the aspect ratio."
            case .fill: "Cover the box, centre-cropped to exactly its size."
            }
        }
    }

    func validate() throws {
        _ = try ThumbSize(size)
        _ = try ImageSourceArgument(source)
        guard !output.isEmpty else { throw ValidationError("-o: the file name is empty") }
        guard ThumbnailFormat(fileName: output) != nil else {
            throw ValidationError("cannot tell the format of \(output) from its name: end it in \(ThumbnailFormat.extensions)")
        }
    }

    func run() async throws {
        let events = Events(json: json, command: "thumb")
        let size = try ThumbSize(size)
        let source = try ImageSourceArgument(source)
        let request = ImageRequest(size: mode == .fill ? .fill(width: size.width, height: size.height) : .fit(width: size.width, height: size.height),
                                   delivery: progressive ? .progressive : .best)
        let name = self.source
        try await reporting(events) {
            // The output first: a missing or unwritable folder is said before anything is decoded.
            let target = try OutputPath(output)
            guard let format = ThumbnailFormat(fileName: target.name) else {
                throw GpickError(.usage, "cannot tell the format of \(output) from its name: end it in \(ThumbnailFormat.extensions)")
            }
            let thumbnails = ThumbnailCache(version: GpickVersion.current)
            var written = 0
            try await source.withSource(environment: ProcessInfo.processInfo.environment, thumbnails: thumbnails) { image throws(GpickError) in
                // Each result replaces the last, whole: a reader of FILE sees the stand-in, then the final.
                for try await result in image.image(request) {
                    let picture = result.picture
                    let bytes = try await OffPool.run { () throws(GpickError) in try picture.encoded(as: format) }
                    try await AtomicWrite.store(bytes, to: target)
                    written += 1
                    var extra: JSONFields = [
                        "width": picture.width, "height": picture.height, "source": name, "degraded": result.degraded,
                        "origin": result.origin.rawValue, "format": format.rawValue, "kind": Self.kind(of: image, result),
                    ]
                    if let file = Self.file(of: image) { extra["file"] = file }
                    events.fileWritten(target.path, bytes: Int64(bytes.count), extra: extra)
                }
            }
            events.finished(["files": 1, "results": written])
        }
    }
}

extension ThumbCommand {
    /// What the picture shows: photo, video or camera.
    static func kind(of source: any ImageSource, _ result: ImageResult) -> String {
        if let asset = source as? AssetImageSource { return asset.asset.kind.rawValue }
        switch result.origin {
        case .videoFrame: return "video"
        case .cameraFrame: return "camera"
        default: return "photo"
        }
    }

    /// The file read, for a file or an asset (an Apple pair's movie: its photo).
    static func file(of source: any ImageSource) -> String? {
        switch source {
        case let file as FileImageSource: file.path
        case let asset as AssetImageSource: asset.asset.path
        default: nil
        }
    }
}

/// `--size`: `WxH` (also `W×H`, `WXH`) or `N` for N×N.
struct ThumbSize: Equatable {
    static let maxSide = 4096
    let width: Int
    let height: Int

    init(_ text: String) throws(ValidationError) {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == "x" || $0 == "X" || $0 == "×" }
        let numbers = parts.map { Int($0) }
        guard (1...2).contains(parts.count), let w = numbers.first ?? nil, let h = numbers.last ?? nil,
              (1...Self.maxSide).contains(w), (1...Self.maxSide).contains(h) else {
            throw ValidationError("--size: give WxH (such as 320x240) or N, each side 1 to \(Self.maxSide), not \"\(text)\"")
        }
        width = w
        height = h
    }
}
