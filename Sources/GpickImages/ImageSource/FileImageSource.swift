import GpickBase
import GpickFormats
import Glibc

/// A photo or video file. The final picture is decoded with shrink-on-load (a photo) or taken a
/// third of the way in (a video); a progressive request first gets a cached freedesktop
/// thumbnail of the file, else the photo's EXIF thumbnail, when there is one.
public struct FileImageSource: ImageSource {
    public let path: String
    /// What the file is, when the caller knows (the library's index); nil: told by its content.
    public var content: ThumbnailRequest.Content?
    /// The freedesktop cache looked in for cheap pictures.
    public var thumbnails: ThumbnailCache
    /// How long a video may take to give a frame.
    public var videoTimeout: Double

    public init(path: String, content: ThumbnailRequest.Content? = nil, thumbnails: ThumbnailCache,
                videoTimeout: Double = 10) {
        self.path = path
        self.content = content
        self.thumbnails = thumbnails
        self.videoTimeout = videoTimeout
    }

    public var name: String { path }

    public func image(_ request: ImageRequest) -> ImageResults {
        let source = self
        return ImageResults(delivery: request.delivery) { outlet throws(GpickError) in
            var shown: PixelSize? = nil
            if request.delivery == .progressive {
                let cheap = await OffPool.run { () -> (ImageResult?, PixelSize?) in source.standIn(for: request) }
                shown = cheap.1
                if let result = cheap.0, !outlet.yield(result) { return }
            }
            if case .fullResolution = request.size, shown == nil { shown = try await source.size() }
            let made = try await ThumbnailRequest(path: source.path, box: request.box(for: shown), content: source.content,
                                                  limits: request.limits, videoTimeout: source.videoTimeout).make()
            outlet.yield(ImageResult(picture: made.picture, degraded: false, origin: made.content == .video ? .videoFrame : .decoded))
        }
    }

    public func fullResolutionData() async throws(GpickError) -> [UInt8] {
        let path = self.path
        return try await OffPool.run { () throws(GpickError) in try Self.readWhole(path) }
    }

    public func size() async throws(GpickError) -> PixelSize {
        let path = self.path
        return try await OffPool.run { () throws(GpickError) in try Self.size(path: path) }
    }

    /// The size from the headers: gpick's own readers (a few small reads, photos and videos),
    /// else libvips' header for what they do not measure.
    @available(*, noasync, message: "it reads the file: await size() from async code")
    public static func size(path: String) throws(GpickError) -> PixelSize {
        _ = try OpenFile(path)  // the user's terms for a missing or unreadable file
        if let meta = try? MetadataReader.read(path: path), let shown = StandIns.shownSize(meta) { return shown }
        let header = try StillImage.header(path: path)
        return PixelSize(width: header.width, height: header.height)
    }

    /// The cheapest degraded picture there is, and the shown size when it was learnt on the way.
    @available(*, noasync)
    func standIn(for request: ImageRequest) -> (ImageResult?, PixelSize?) {
        let meta = try? MetadataReader.read(path: path)
        guard let shown = meta.flatMap(StandIns.shownSize) ?? (try? StillImage.header(path: path)).map({ PixelSize(width: $0.width, height: $0.height) }) else {
            return (nil, nil)
        }
        let target = StandIns.finalSize(of: shown, in: request.box(for: shown))
        if let picture = StandIns.cachedThumbnail(of: path, in: thumbnails, except: nil, target: target) {
            return (ImageResult(picture: picture, degraded: true, origin: .cachedThumbnail), shown)
        }
        if let meta, let picture = StandIns.exifThumbnail(path: path, metadata: meta, target: target) {
            return (ImageResult(picture: picture, degraded: true, origin: .exifThumbnail), shown)
        }
        return (nil, shown)
    }

    /// The whole file, up to a bound (a picture's original is not a movie's gigabytes).
    package static func readWhole(_ path: String, limit: Int = 512 << 20) throws(GpickError) -> [UInt8] {
        let file = try OpenFile(path)
        let bytes = try FileBytes(fd: file.fd, path: path)
        guard bytes.size <= limit else {
            throw GpickError(.input, "\(path) is too large to hold in memory: \(bytes.size >> 20) MiB (limit \(limit >> 20) MiB)")
        }
        let all = try bytes.read(at: 0, count: bytes.size)
        guard all.count == bytes.size else { throw GpickError(.input, "cannot read \(path): it changed while being read") }
        return all
    }
}
