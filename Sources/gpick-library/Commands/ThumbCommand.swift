import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickImages
import GpickLibrary

/// `gpick thumb SOURCE -o FILE`: one thumbnail of a file or of an asset of the library, written
/// atomically as PNG, JPEG or WebP by the output's name.
struct ThumbCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Make a thumbnail of a photo or a video: a file, or an asset of the library.",
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

    @Argument(help: ArgumentHelp("A photo or video file, or asset:ID (the id `gpick library list` shows).", valueName: "SOURCE"))
    var source: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the thumbnail: a .png, .jpg, .jpeg or .webp file.", valueName: "FILE"))
    var output: String

    @Option(name: .long, help: ArgumentHelp("The box: WxH, or N for a square; each side 1 to \(ThumbSize.maxSide).", valueName: "WxH"))
    var size = "256x256"

    @Flag(help: "How the picture goes into the box (default --fit).")
    var mode: Mode = .fit

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
        _ = try ThumbSource(source)
        guard !output.isEmpty else { throw ValidationError("-o: the file name is empty") }
        guard ThumbnailFormat(fileName: output) != nil else {
            throw ValidationError("cannot tell the format of \(output) from its name: end it in \(ThumbnailFormat.extensions)")
        }
    }

    func run() async throws {
        let events = Events(json: json, command: "thumb")
        let size = try ThumbSize(size)
        let source = try ThumbSource(source)
        let box = ImageBox(width: size.width, height: size.height, mode: mode == .fill ? .fill : .fit)
        try await reporting(events) {
            // The output first: a missing or unwritable folder is said before anything is decoded.
            let target = try OutputPath(output)
            guard let format = ThumbnailFormat(fileName: target.name) else {
                throw GpickError(.usage, "cannot tell the format of \(output) from its name: end it in \(ThumbnailFormat.extensions)")
            }
            let request = try await source.request(box: box, environment: ProcessInfo.processInfo.environment)
            let made = try await source.naming { () async throws(GpickError) in try await request.make() }
            let picture = made.picture
            let bytes = try await OffPool.run { () throws(GpickError) in try picture.encoded(as: format) }
            try await AtomicWrite.store(bytes, to: target)
            events.fileWritten(target.path, bytes: Int64(bytes.count), extra: [
                "width": picture.width, "height": picture.height, "source": self.source,
                "file": request.path, "kind": made.content.rawValue, "format": format.rawValue,
            ])
            events.finished(["files": 1])
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

/// What SOURCE names: a file, or an asset of the library's index.
enum ThumbSource {
    case file(String)
    case asset(Int64)

    static let supported = "give a photo or video file, or asset:ID"

    init(_ text: String) throws(ValidationError) {
        guard !text.isEmpty else { throw ValidationError("SOURCE is empty: \(Self.supported)") }
        if text.hasPrefix("asset:") {
            guard let id = Int64(text.dropFirst("asset:".count)), id > 0 else {
                throw ValidationError("\(text): an asset id is a whole number, as `gpick library list` shows")
            }
            self = .asset(id)
            return
        }
        if text == "camera" {
            throw ValidationError("camera: thumbnails of a camera are not supported yet: \(Self.supported) (a file named camera: ./camera)")
        }
        if let scheme = Self.urlScheme(text) {
            throw ValidationError("\(text): \(scheme) URLs are not supported yet: \(Self.supported)")
        }
        self = .file(text)
    }

    /// "https" of "https://host/a.jpg": `scheme://`, as RFC 3986 spells a scheme.
    static func urlScheme(_ text: String) -> String? {
        guard let colon = text.range(of: "://") else { return nil }
        let scheme = text[..<colon.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return String(scheme)
    }

    /// The file to read, and what it is when the index says. An Apple pair's movie stands for its
    /// photo, as the listing shows it: the thumbnail is the still.
    func request(box: ImageBox, environment: [String: String]) async throws(GpickError) -> ThumbnailRequest {
        switch self {
        case .file(let path):
            return ThumbnailRequest(path: path, box: box)
        case .asset(let id):
            let indexPath = LibraryPaths.indexPath(environment: environment)
            guard fileStatus(indexPath) != nil else {
                throw GpickError(.input, "no asset \(id) in the library: it has no index yet (`gpick library scan` makes one)")
            }
            let asset = try await OffPool.run { () throws(GpickError) -> Asset? in
                let index = try LibraryIndex(path: indexPath)
                guard let asset = try index.asset(id: id) else { return nil }
                if let photo = asset.companionOf, let still = try index.asset(id: photo) { return still }
                return asset
            }
            guard let asset else { throw GpickError(.input, "no asset \(id) in the library") }
            return ThumbnailRequest(path: asset.path, box: box, content: asset.kind == .video ? .video : .still)
        }
    }

    /// Runs `work`, its errors naming the asset they are about (they name its file already).
    func naming<T>(_ work: () async throws(GpickError) -> T) async throws(GpickError) -> T {
        do {
            return try await work()
        } catch {
            guard case .asset(let id) = self else { throw error }
            var e = error
            e.message = "asset:\(id): \(e.message)"
            throw e
        }
    }
}
