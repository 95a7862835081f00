import CVips
import GpickBase

/// One libvips image we hold a reference to: the reference is released when this goes. libvips
/// computes pixels lazily, so an operation's result costs little until it is saved or measured.
///
/// `@unchecked Sendable` invariant: owns exactly one reference for its whole life and never
/// changes the image after it is made (libvips images may be read from any thread).
public final class VipsPicture: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<VipsImage>

    /// Takes over a reference a libvips call returned (transfer full).
    init(adopting pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }
    deinit { cvips_unref(pointer) }

    public var width: Int { Int(cvips_image_get_width(pointer)) }
    public var height: Int { Int(cvips_image_get_height(pointer)) }
    public var bands: Int { Int(cvips_image_get_bands(pointer)) }
    public var hasAlpha: Bool { cvips_image_hasalpha(pointer) != 0 }

    /// Runs a libvips operation that writes a new image to its out-parameter.
    func derive(_ what: @autoclosure () -> String, subject: @autoclosure () -> String,
                _ op: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32)
        throws(GpickError) -> VipsPicture {
        var out: UnsafeMutablePointer<VipsImage>? = nil
        let status = op(pointer, &out)
        if status != 0 { cvips_unref(out); out = nil }
        return VipsPicture(adopting: try Vips.check(out, what(), subject: subject()))
    }

    /// 8-bit sRGB with alpha, what thumbnails and terminals want, whatever the source was (grey,
    /// 16-bit, CMYK, with or without alpha).
    func rgba8(subject: String) throws(GpickError) -> VipsPicture {
        var image = try srgb8(subject: subject)
        if image.bands == 3 {
            image = try image.derive("cannot convert", subject: subject) { cvips_addalpha($0, $1) }
        }
        return image
    }

    /// Scaled to fit inside (or fill) a box, as `thumbnail` does for files.
    public func scaled(to box: ImageBox) throws(GpickError) -> VipsPicture {
        try Vips.start()
        return try derive("cannot scale", subject: "the image") {
            cvips_thumbnail_image($0, $1, Int32(box.width), Int32(box.height), box.crop, box.vipsSize)
        }
    }

    /// The mean luma, 0–255 (ITU-R 601 weights, as libvips' B_W conversion uses).
    public func meanLuma() throws(GpickError) -> Double {
        try Vips.start()
        var image = self
        if image.hasAlpha { image = try image.derive("cannot measure", subject: "the image") { cvips_extract_bands($0, $1, 0, Int32(image.bands - 1)) } }
        let grey = try image.derive("cannot measure", subject: "the image") { cvips_colourspace($0, $1, VIPS_INTERPRETATION_B_W) }
        var mean = 0.0
        try Vips.check(cvips_avg(grey.pointer, &mean), "cannot measure", subject: "the image")
        return mean
    }

    /// The image as an 8-bit RGBA PNG, not interlaced, with these text chunks (tEXt, in order)
    /// and no other metadata: no EXIF, XMP or ICC of the source, no comments it carried.
    /// zlib level 3 by default: a third of level 6's time on a 256 px thumbnail, ~7% larger.
    public func pngData(text: [(key: String, value: String)] = [], compression: Int = 3) throws(GpickError) -> [UInt8] {
        try Vips.start()
        let rgba = try rgba8(subject: "the thumbnail")
        var buffer: UnsafeMutableRawPointer? = nil
        var length = 0
        try Vips.check(cvips_pngsave_buffer(rgba.pointer, &buffer, &length, Int32(compression)),
                       "cannot encode", subject: "the thumbnail", kind: .runtime)
        defer { g_free(buffer) }
        guard let buffer else { throw GpickError(.runtime, "cannot encode the thumbnail: no data") }
        let png = Array(UnsafeRawBufferPointer(start: buffer, count: length))
        // libvips 8.14 writes its text fields as zTXt, and only without `strip`, which would
        // carry the source's metadata along: the tEXt chunks are added here instead.
        guard let withText = PNGChunks.inserting(text: text, into: png) else {
            throw GpickError(.runtime, "cannot encode the thumbnail: libvips wrote no PNG header")
        }
        return withText
    }

    /// An image from packed 8-bit RGBA rows (a decoded video frame), copied: the caller's memory
    /// may go as soon as this returns. `stride` is the bytes from one row to the next.
    public static func rgba(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) throws(GpickError) -> VipsPicture {
        try Vips.start()
        guard width > 0, height > 0, stride >= width * 4, stride % 4 == 0, bytes.count >= stride * height,
              let base = bytes.baseAddress else {
            throw GpickError(.runtime, "a video frame of \(width)×\(height) does not fit its \(bytes.count) bytes")
        }
        // Rows padded to `stride` are an image `stride / 4` wide, cut to `width` (no copy loop).
        let rowPixels = stride / 4
        let made = cvips_image_new_from_memory_copy(base, stride * height, Int32(rowPixels), Int32(height), 4, VIPS_FORMAT_UCHAR)
        var image = VipsPicture(adopting: try Vips.check(made, "cannot use", subject: "the video frame", kind: .runtime))
        if rowPixels != width {
            image = try image.derive("cannot use", subject: "the video frame") { cvips_extract_area($0, $1, 0, 0, Int32(width), Int32(height)) }
        }
        if cvips_image_get_interpretation(image.pointer) != VIPS_INTERPRETATION_sRGB {
            image = try image.derive("cannot use", subject: "the video frame") { cvips_copy_as($0, $1, VIPS_INTERPRETATION_sRGB) }
        }
        return image
    }
}

/// A box to scale into: `fit` keeps the whole picture inside it, `fill` covers it exactly and
/// crops the overflow around the centre. Neither distorts.
public struct ImageBox: Sendable, Equatable {
    public enum Mode: Sendable { case fit, fill }
    public var width: Int
    public var height: Int
    public var mode: Mode
    /// Whether a picture smaller than the box is enlarged. `fill` always covers the box.
    public var enlarge: Bool

    public init(width: Int, height: Int, mode: Mode = .fit, enlarge: Bool = false) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.mode = mode
        self.enlarge = enlarge
    }

    /// A square box, as thumbnail sizes are.
    public static func square(_ side: Int, mode: Mode = .fit) -> ImageBox { ImageBox(width: side, height: side, mode: mode) }

    /// How many of a picture's pixels go to one of the box's, along the side that decides (fit:
    /// the one that shrinks most; fill: the one that shrinks least), for a picture stored
    /// `width`×`height` and shown turned by EXIF `orientation` (5–8 swap the sides).
    func scale(width: Int, height: Int, orientation: Int) -> Double {
        let upright = orientation >= 5 ? (height, width) : (width, height)
        let sx = Double(upright.0) / Double(self.width), sy = Double(upright.1) / Double(self.height)
        return mode == .fill ? min(sx, sy) : max(sx, sy)
    }

    var crop: VipsInteresting { mode == .fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE }
    var vipsSize: VipsSize { mode == .fill || enlarge ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN }
}
