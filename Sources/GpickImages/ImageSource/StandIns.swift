import CVips
import GpickBase
import GpickFormats
import Glibc

/// Cheap pictures to show before the final one (a progressive request's degraded results), each
/// with the final picture's aspect ratio and upright, so a caller can show one in the other's
/// place, scaled to the same box. A stand-in is never enlarged past what it has (at most the
/// final size): enlarging a 160×120 EXIF thumbnail to 256 px took libvips 3 of the 5 ms the whole
/// stand-in took, for no more detail. Every function blocks (small reads and decodes): run them
/// off the pool.
enum StandIns {
    /// The largest size with `target`'s aspect ratio that a picture of `available` covers, and
    /// never larger than `target`.
    static func size(_ target: PixelSize, within available: PixelSize) -> PixelSize {
        let scale = min(1, Double(available.width) / Double(target.width), Double(available.height) / Double(target.height))
        guard scale < 1 else { return target }
        return PixelSize(width: max(1, Int((Double(target.width) * scale).rounded(.down))),
                         height: max(1, Int((Double(target.height) * scale).rounded(.down))))
    }

    /// The size the final picture of something shown at `shown` will have in `box`, as libvips'
    /// thumbnail computes it (fit: never enlarged; fill: the box).
    static func finalSize(of shown: PixelSize, in box: ImageBox) -> PixelSize {
        guard box.mode == .fit else { return PixelSize(width: box.width, height: box.height) }
        var scale = min(Double(box.width) / Double(shown.width), Double(box.height) / Double(shown.height))
        if !box.enlarge { scale = min(scale, 1) }
        return PixelSize(width: max(1, Int((Double(shown.width) * scale).rounded())),
                         height: max(1, Int((Double(shown.height) * scale).rounded())))
    }

    /// The size `shown` is scaled to so that it covers `box` (before the crop).
    static func coverSize(of shown: PixelSize, box: ImageBox) -> PixelSize {
        let scale = max(Double(box.width) / Double(shown.width), Double(box.height) / Double(shown.height))
        return PixelSize(width: Int((Double(shown.width) * scale).rounded(.up)), height: Int((Double(shown.height) * scale).rounded(.up)))
    }

    /// The JPEG thumbnail in the photo's EXIF (IFD1): typically 160×120, stored the way the
    /// sensor saw it. One libvips call crops it to the photo's aspect ratio (cameras letterbox
    /// 16:9 photos into a 4:3 thumbnail), shrinking it if it is larger than `target`, before
    /// turning; then the photo's orientation turns it upright.
    static func exifThumbnail(path: String, metadata: MediaMetadata, target: PixelSize) -> VipsPicture? {
        guard let range = metadata.exifThumbnail, range.length > 0, range.length <= 256 << 10,
              let bytes = try? FileBytes(path: path).read(at: range.offset, count: range.length), bytes.count == range.length else {
            return nil
        }
        let orientation = metadata.orientation ?? 1
        let stored = (5...8).contains(orientation) ? PixelSize(width: target.height, height: target.width) : target
        let made = try? StillImage.thumbnail(data: bytes, name: path, limits: DecodeLimits(maxPixels: 4_000_000)) { header in
            let fitted = size(stored, within: PixelSize(width: header.width, height: header.height))
            return ImageBox(width: fitted.width, height: fitted.height, mode: .fill, enlarge: false)
        }
        guard var picture = made else { return nil }
        if (2...8).contains(orientation) {
            cvips_image_set_int(picture.pointer, "orientation", Int32(orientation))
            guard let upright = try? picture.derive("cannot turn", subject: path, { cvips_autorot($0, $1) }) else { return nil }
            picture = upright
        }
        return try? picture.srgb8(subject: path)
    }

    /// A valid freedesktop thumbnail of the file in `cache`, of any size but `except` (that one
    /// the caller is about to use or make as the final picture), the largest first.
    static func cachedThumbnail(of path: String, in cache: ThumbnailCache, except: ThumbnailCache.Size?,
                                target: PixelSize) -> VipsPicture? {
        let sizes = ThumbnailCache.Size.allCases.reversed().filter { $0 != except }
        guard let found = cache.existing(for: path, sizes: sizes),
              let picture = try? StillImage.thumbnail(path: found.path, box: .square(found.size.pixels)) else { return nil }
        return sized(picture, as: target)
    }

    /// `picture` centre-cropped to `target`'s aspect ratio, and shrunk to `target` if larger.
    static func sized(_ picture: VipsPicture, as target: PixelSize) -> VipsPicture? {
        let fitted = size(target, within: PixelSize(width: picture.width, height: picture.height))
        if picture.width == fitted.width, picture.height == fitted.height { return try? picture.srgb8(subject: "the picture") }
        let box = ImageBox(width: fitted.width, height: fitted.height, mode: .fill, enlarge: false)
        return try? picture.scaled(to: box).srgb8(subject: "the picture")
    }

    /// The shown (upright) size the metadata gives, when it gives one.
    static func shownSize(_ m: MediaMetadata) -> PixelSize? {
        guard let w = m.width, let h = m.height, w > 0, h > 0 else { return nil }
        return (5...8).contains(m.orientation ?? 1) ? PixelSize(width: h, height: w) : PixelSize(width: w, height: h)
    }
}
