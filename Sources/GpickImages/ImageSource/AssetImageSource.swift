import GpickBase
import GpickFormats
import GpickLibrary

/// An asset of the library. Its size comes from the index (no file is read); its pictures come
/// through the freedesktop cache, so a grid shown twice (or by a file manager first) decodes
/// nothing the second time. A live photo shows its still, a video a frame a third in.
public struct AssetImageSource: ImageSource {
    /// The asset shown: an Apple pair's movie stands for its photo, as listings show it.
    public let asset: Asset
    public let thumbnails: ThumbnailCache

    public init(asset: Asset, thumbnails: ThumbnailCache) {
        self.asset = asset
        self.thumbnails = thumbnails
    }

    /// The asset with this id, or its photo when it is the movie of a pair.
    public static func open(id: Int64, index: LibraryIndex, thumbnails: ThumbnailCache) async throws(GpickError) -> AssetImageSource {
        let asset = try await OffPool.run { () throws(GpickError) -> Asset? in
            guard let asset = try index.asset(id: id) else { return nil }
            if let photo = asset.companionOf, let still = try index.asset(id: photo) { return still }
            return asset
        }
        guard let asset else { throw GpickError(.input, "no asset \(id) in the library") }
        return AssetImageSource(asset: asset, thumbnails: thumbnails)
    }

    public var name: String { "asset:\(asset.id ?? 0)" }

    var file: FileImageSource {
        FileImageSource(path: asset.path, content: asset.kind == .video ? .video : .still, thumbnails: thumbnails)
    }

    var shown: PixelSize? { asset.displaySize.map { PixelSize(width: $0.width, height: $0.height) } }

    public func image(_ request: ImageRequest) -> ImageResults {
        if let reason = asset.unreadable {
            return .failing(GpickError(.input, "\(name): \(asset.path) cannot be read: \(reason)"))
        }
        guard let shown, let cached = cacheSize(for: request, shown: shown) else { return file.image(request) }
        let source = self
        let box = request.box(for: shown)
        let target = StandIns.finalSize(of: shown, in: box)
        return ImageResults(delivery: request.delivery) { outlet throws(GpickError) in
            if request.delivery == .progressive {
                let cheap = await OffPool.run { () -> ImageResult? in source.standIn(except: cached, target: target) }
                if let cheap, !outlet.yield(cheap) { return }
            }
            let path = try await source.thumbnails.thumbnail(for: source.asset.path, mimeType: source.asset.mimeType, size: cached)
            let picture = try await DecodeGate.shared.run { () async throws(GpickError) in
                try await OffPool.run { () throws(GpickError) in
                    try StillImage.thumbnail(path: path, box: box.with(enlarge: false)).srgb8(subject: path)
                }
            }
            outlet.yield(ImageResult(picture: picture, degraded: false, origin: .cachedThumbnail))
        }
    }

    public func fullResolutionData() async throws(GpickError) -> [UInt8] {
        try await file.fullResolutionData()
    }

    public func size() async throws(GpickError) -> PixelSize {
        if let shown { return shown }
        return try await file.size()
    }

    /// The smallest freedesktop size whose thumbnail holds the final picture at full detail; nil
    /// when the request is larger than the largest (1024) or the full resolution.
    func cacheSize(for request: ImageRequest, shown: PixelSize) -> ThumbnailCache.Size? {
        guard request.longSide != nil else { return nil }
        let box = request.box(for: shown)
        let need = StandIns.finalSize(of: shown, in: box)
        // fill: the picture is scaled to cover the box, then cropped.
        let cover = box.mode == .fill ? StandIns.coverSize(of: shown, box: box) : need
        return ThumbnailCache.Size.allCases.first { size in
            let has = StandIns.finalSize(of: shown, in: .square(size.pixels))
            return has.width >= cover.width && has.height >= cover.height
        }
    }

    @available(*, noasync)
    func standIn(except size: ThumbnailCache.Size, target: PixelSize) -> ImageResult? {
        if let picture = StandIns.cachedThumbnail(of: asset.path, in: thumbnails, except: size, target: target) {
            return ImageResult(picture: picture, degraded: true, origin: .cachedThumbnail)
        }
        if asset.kind == .photo, let meta = try? MetadataReader.read(path: asset.path),
           let picture = StandIns.exifThumbnail(path: asset.path, metadata: meta, target: target) {
            return ImageResult(picture: picture, degraded: true, origin: .exifThumbnail)
        }
        return nil
    }
}

extension ImageBox {
    func with(enlarge: Bool) -> ImageBox {
        var b = self
        b.enlarge = enlarge
        return b
    }
}
