import Foundation
import GpickBase
import GpickImages
import GpickLibrary

/// A decoded picture for a background: straight 8-bit RGBA rows, upright sRGB.
public struct AvatarPicture: Sendable {
    public var rgba: [UInt8]
    public var width: Int
    public var height: Int

    public init(rgba: [UInt8], width: Int, height: Int) {
        self.rgba = rgba
        self.width = width
        self.height = height
    }

    /// The picture of any ImageSource, just large enough to cover a `side`-pixel square (never
    /// larger than the source: a small image is scaled up by the renderer).
    public static func covering(_ side: Int, from source: any ImageSource) async throws(GpickError) -> AvatarPicture {
        let size = try await source.size()
        guard size.width > 0, size.height > 0 else { throw GpickError(.input, "\(source.name): the image is empty") }
        let scale = max(Double(side) / Double(size.width), Double(side) / Double(size.height))
        let w = max(1, Int((Double(size.width) * scale).rounded(.up))), h = max(1, Int((Double(size.height) * scale).rounded(.up)))
        var picture: VipsPicture?
        for try await result in source.image(ImageRequest(size: .fit(width: w, height: h))) { picture = result.picture }
        guard let picture else { throw GpickError(.input, "\(source.name): no picture came") }
        let p = picture
        let packed = try await OffPool.run { () throws(GpickError) in try p.packedRGBA() }
        return AvatarPicture(rgba: packed.bytes, width: packed.width, height: packed.height)
    }
}

/// Where a model's image comes from: a library asset (found by id, so a moved file is still
/// found), a file or a URL, each checked against the SHA-256 the model saved.
public struct AvatarImages: Sendable {
    public var indexPath: String?
    public var thumbnails: ThumbnailCache

    public init(indexPath: String?, thumbnails: ThumbnailCache) {
        self.indexPath = indexPath
        self.thumbnails = thumbnails
    }

    /// The source for a reference, and its content hash (of the bytes it holds now).
    public func source(for reference: ImageReference) async throws(GpickError) -> (source: any ImageSource, sha256: String) {
        if let id = reference.asset {
            guard let indexPath, fileStatus(indexPath) != nil else {
                throw GpickError(.input, "asset:\(id): the library has no index yet", remedy: .scanLibrary)
            }
            let index = try await OffPool.run { () throws(GpickError) in try LibraryIndex.open(path: indexPath) }
            let source = try await AssetImageSource.open(id: id, index: index, thumbnails: thumbnails)
            let path = source.asset.path
            let hash = try await OffPool.run { () throws(GpickError) in try ContentHash.sha256(path: path) }
            return (source, hash)
        }
        if let path = reference.path {
            let hash = try await OffPool.run { () throws(GpickError) in try ContentHash.sha256(path: path) }
            return (FileImageSource(path: path, thumbnails: thumbnails), hash)
        }
        if let url = reference.url {
            let source = URLImageSource(url: url)
            let bytes = try await source.fullResolutionData()
            return (source, ContentHash.sha256(bytes: bytes))
        }
        throw GpickError(.input, "the image names no asset, path or url")
    }

    /// The picture a model's image shows, refusing one whose bytes changed since it was chosen.
    public func picture(_ reference: ImageReference, covering side: Int) async throws(GpickError) -> AvatarPicture {
        let (source, hash) = try await source(for: reference)
        if let saved = reference.sha256, saved != hash {
            throw GpickError(.input, "\(source.name) changed since the model was saved (its SHA-256 is \(hash.prefix(12))…, not \(saved.prefix(12))…): choose the image again")
        }
        return try await AvatarPicture.covering(side, from: source)
    }
}
