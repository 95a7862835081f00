import CVips
import GpickBase
import GpickFormats
import Glibc

/// Cheap pictures to show before the final one (a progressive request's degraded results), each
/// sized as the final picture will be, so a caller can swap one for the other in place. Every
/// function blocks (small reads and decodes): run them off the pool.
enum StandIns {
    /// The size the final picture of something shown at `shown` will have in `box`, as libvips'
    /// thumbnail computes it (fit: never enlarged; fill: the box).
    static func finalSize(of shown: PixelSize, in box: ImageBox) -> PixelSize {
        guard box.mode == .fit else { return PixelSize(width: box.width, height: box.height) }
        var scale = min(Double(box.width) / Double(shown.width), Double(box.height) / Double(shown.height))
        if !box.enlarge { scale = min(scale, 1) }
        return PixelSize(width: max(1, Int((Double(shown.width) * scale).rounded())),
                         height: max(1, Int((Double(shown.height) * scale).rounded())))
    }

    /// The JPEG thumbnail in the photo's EXIF (IFD1): typically 160×120, stored the way the
    /// sensor saw it. It is turned upright by the photo's orientation, cropped to the photo's
    /// aspect ratio (cameras letterbox 16:9 photos into a 4:3 thumbnail), then sized as `target`.
    static func exifThumbnail(path: String, metadata: MediaMetadata, target: PixelSize) -> VipsPicture? {
        guard let range = metadata.exifThumbnail, range.length > 0, range.length <= 256 << 10,
              let bytes = try? FileBytes(path: path).read(at: range.offset, count: range.length), bytes.count == range.length,
              let shown = shownSize(metadata) else { return nil }
        guard var picture = try? StillImage.thumbnail(data: bytes, name: path, box: ImageBox(width: 1024, height: 1024),
                                                       limits: DecodeLimits(maxPixels: 4_000_000)) else { return nil }
        if let o = metadata.orientation, (2...8).contains(o) {
            cvips_image_set_int(picture.pointer, "orientation", Int32(o))
            guard let upright = try? picture.derive("cannot turn", subject: path, { cvips_autorot($0, $1) }) else { return nil }
            picture = upright
        }
        guard let cropped = croppedToAspect(picture, of: shown) else { return nil }
        return sized(cropped, as: target)
    }

    /// A valid freedesktop thumbnail of the file in `cache`, of any size but `except` (that one
    /// the caller is about to use or make as the final picture), the largest first.
    static func cachedThumbnail(of path: String, in cache: ThumbnailCache, except: ThumbnailCache.Size?,
                                target: PixelSize) -> VipsPicture? {
        for size in ThumbnailCache.Size.allCases.reversed() where size != except {
            guard let file = cache.existing(for: path, size: size) else { continue }
            if let picture = try? StillImage.thumbnail(path: file, box: ImageBox(width: size.pixels, height: size.pixels)) {
                return sized(picture, as: target)
            }
        }
        return nil
    }

    /// `picture` scaled (up or down) and centre-cropped to exactly `target`.
    static func sized(_ picture: VipsPicture, as target: PixelSize) -> VipsPicture? {
        let box = ImageBox(width: target.width, height: target.height, mode: .fill, enlarge: true)
        if picture.width == target.width, picture.height == target.height { return try? picture.srgb8(subject: "the picture") }
        return try? picture.scaled(to: box).srgb8(subject: "the picture")
    }

    /// The shown (upright) size the metadata gives, when it gives one.
    static func shownSize(_ m: MediaMetadata) -> PixelSize? {
        guard let w = m.width, let h = m.height, w > 0, h > 0 else { return nil }
        return (5...8).contains(m.orientation ?? 1) ? PixelSize(width: h, height: w) : PixelSize(width: w, height: h)
    }

    /// The centre of `picture` with the aspect ratio of `shown`, when they differ by more than a
    /// pixel's worth.
    private static func croppedToAspect(_ picture: VipsPicture, of shown: PixelSize) -> VipsPicture? {
        let w = Double(picture.width), h = Double(picture.height)
        let want = Double(shown.width) / Double(shown.height)
        if abs(w / h - want) * min(w, h) < 1 { return picture }
        let (cw, ch) = w / h > want ? (Int((h * want).rounded()), picture.height) : (picture.width, Int((w / want).rounded()))
        guard cw > 0, ch > 0 else { return nil }
        let left = Int32((picture.width - cw) / 2), top = Int32((picture.height - ch) / 2)
        return try? picture.derive("cannot crop", subject: "the EXIF thumbnail") {
            cvips_extract_area($0, $1, left, top, Int32(cw), Int32(ch))
        }
    }
}
