import CVips
import GpickBase

/// Drawing for contact sheets, all of it libvips operations (no pixel loops here): text rendered
/// by pango, masks, blends, centring and grids. Results are lazy like any libvips operation's,
/// except the small masks, which are drawn in memory.
///
/// A mask is one 8-bit band: 0 where nothing is drawn, 255 where all is, between at the edges.
extension VipsPicture {
    /// `text` (plain, not markup) as a mask, in `font` (a fontconfig family and style, "DejaVu
    /// Sans Bold") with an em of `pixels`. pango falls back to another installed font for a
    /// family that is missing.
    static func textMask(_ text: String, font: String, pixels: Int) throws(GpickError) -> VipsPicture {
        try Vips.start()
        var out: UnsafeMutablePointer<VipsImage>? = nil
        // At 72 dpi a point is a pixel, so the size in the font name is the em in pixels.
        let status = cvips_text(&out, markup(text), "\(font) \(max(1, pixels))", 72)
        if status != 0 { cvips_unref(out); out = nil }
        return VipsPicture(adopting: try Vips.check(out, "cannot draw", subject: "the text \"\(text)\"", kind: .runtime))
    }

    /// vips_text reads pango markup: the text's own <, > and & are escaped.
    static func markup(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }

    /// Black 8-bit pixels (lazy: nothing is allocated until they are read).
    static func blank(width: Int, height: Int, bands: Int) throws(GpickError) -> VipsPicture {
        try Vips.start()
        var made: UnsafeMutablePointer<VipsImage>? = nil
        let status = cvips_black(&made, Int32(max(1, width)), Int32(max(1, height)), Int32(bands))
        if status != 0 { cvips_unref(made); made = nil }
        return VipsPicture(adopting: try Vips.check(made, "cannot draw", subject: "the sheet", kind: .runtime))
    }

    /// A pill: a rectangle whose short ends are half circles (`height` wide each).
    static func pillMask(width: Int, height: Int) throws(GpickError) -> VipsPicture {
        let black = try blank(width: width, height: height, bands: 1)
        // Drawing writes in place: into a memory copy of our own, before anyone else holds it.
        let canvas = VipsPicture(adopting: try Vips.check(cvips_image_copy_memory(black.pointer), "cannot draw",
                                                          subject: "a badge", kind: .runtime))
        var ink = [255.0]
        let r = Int32(height / 2), w = Int32(width), h = Int32(height)
        try Vips.check(cvips_draw_rect_fill(canvas.pointer, &ink, 1, r, 0, max(0, w - 2 * r), h), "cannot draw",
                       subject: "a badge", kind: .runtime)
        try Vips.check(cvips_draw_circle_fill(canvas.pointer, &ink, 1, r, r, r), "cannot draw", subject: "a badge", kind: .runtime)
        try Vips.check(cvips_draw_circle_fill(canvas.pointer, &ink, 1, w - 1 - r, r, r), "cannot draw", subject: "a badge",
                       kind: .runtime)
        return canvas
    }

    /// A mask scaled by `opacity` (0–1): how much a blend through it covers.
    func masked(opacity: Double) throws(GpickError) -> VipsPicture {
        try derive("cannot draw", subject: "a badge") { cvips_linear1_uchar($0, $1, opacity, 0) }
    }

    /// This picture with `colour` laid over it through `mask`, whose top left is at (x, y);
    /// the picture keeps its size, bands and format.
    func blending(_ colour: [Double], through mask: VipsPicture, x: Int, y: Int) throws(GpickError) -> VipsPicture {
        let (w, h) = (Int32(width), Int32(height))
        let placed = try mask.derive("cannot draw", subject: "a badge") { cvips_embed_black($0, $1, Int32(x), Int32(y), w, h) }
        let layer = try filled(with: colour)
        var out: UnsafeMutablePointer<VipsImage>? = nil
        let status = cvips_ifthenelse_blend(placed.pointer, layer.pointer, pointer, &out)
        if status != 0 { cvips_unref(out); out = nil }
        return VipsPicture(adopting: try Vips.check(out, "cannot draw", subject: "a badge", kind: .runtime))
    }

    /// An image of this one's size and format with every pixel `colour` (one value per band).
    func filled(with colour: [Double]) throws(GpickError) -> VipsPicture {
        let made = colour.withUnsafeBufferPointer { cvips_image_new_from_image(pointer, $0.baseAddress, Int32($0.count)) }
        return VipsPicture(adopting: try Vips.check(made, "cannot draw", subject: "the sheet", kind: .runtime))
    }

    /// Centred in a `width` × `height` image of `background` (cropped around the centre when larger).
    func centred(width: Int, height: Int, background: [Double]) throws(GpickError) -> VipsPicture {
        let fill = background.withUnsafeBufferPointer { cvips_array_double_new($0.baseAddress, Int32($0.count)) }
        defer { cvips_array_double_unref(fill) }
        return try derive("cannot draw", subject: "the sheet") {
            cvips_gravity($0, $1, VIPS_COMPASS_DIRECTION_CENTRE, Int32(width), Int32(height), fill)
        }
    }

    /// 8-bit sRGB without alpha: transparency flattened onto `background` (three values).
    func opaque(on background: [Double]) throws(GpickError) -> VipsPicture {
        var image = try srgb8(subject: "the picture")
        if image.hasAlpha {
            let fill = background.withUnsafeBufferPointer { cvips_array_double_new($0.baseAddress, Int32($0.count)) }
            defer { cvips_array_double_unref(fill) }
            image = try image.derive("cannot draw", subject: "the picture") { cvips_flatten($0, $1, fill) }
        }
        if cvips_image_get_format(image.pointer) != VIPS_FORMAT_UCHAR {
            image = try image.derive("cannot draw", subject: "the picture") { cvips_cast($0, $1, VIPS_FORMAT_UCHAR) }
        }
        return image
    }

    /// The pixels as packed 8-bit RGB rows (no padding), transparency flattened onto
    /// `background`: what a terminal draws.
    public func packedRGB(on background: [Double] = [0, 0, 0]) throws(GpickError) -> (bytes: [UInt8], width: Int, height: Int) {
        try Vips.start()
        let image = try opaque(on: background)
        var size = 0
        guard image.bands == 3, let memory = cvips_image_write_to_memory(image.pointer, &size) else {
            throw Vips.failure("cannot draw", subject: "the picture", kind: .runtime)
        }
        defer { g_free(memory) }
        return (Array(UnsafeRawBufferPointer(start: memory, count: size)), image.width, image.height)
    }

    /// The picture as packed 8-bit RGBA rows, straight alpha (opaque when it had none).
    public func packedRGBA() throws(GpickError) -> (bytes: [UInt8], width: Int, height: Int) {
        try Vips.start()
        let image = try rgba8(subject: "the picture")
        var size = 0
        guard image.bands == 4, let memory = cvips_image_write_to_memory(image.pointer, &size) else {
            throw Vips.failure("cannot decode", subject: "the picture", kind: .runtime)
        }
        defer { g_free(memory) }
        return (Array(UnsafeRawBufferPointer(start: memory, count: size)), image.width, image.height)
    }

    /// Rendered into memory of its own: the result holds no file and no chain of operations.
    func inMemory() throws(GpickError) -> VipsPicture {
        VipsPicture(adopting: try Vips.check(cvips_image_copy_memory(pointer), "cannot draw", subject: "the sheet", kind: .runtime))
    }

    /// Pictures of one size in rows of `across`, `gap` pixels apart, the rest of the last row
    /// `background`. The grid holds references to the pictures (a picture may come more than once).
    static func grid(_ pictures: [VipsPicture], across: Int, gap: Int, background: [Double]) throws(GpickError) -> VipsPicture {
        guard !pictures.isEmpty else { throw GpickError(.runtime, "cannot draw an empty sheet") }
        let fill = background.withUnsafeBufferPointer { cvips_array_double_new($0.baseAddress, Int32($0.count)) }
        defer { cvips_array_double_unref(fill) }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = pictures.map(\.pointer)
        var out: UnsafeMutablePointer<VipsImage>? = nil
        let status = withExtendedLifetime(pictures) {
            pointers.withUnsafeMutableBufferPointer { list in
                cvips_arrayjoin(list.baseAddress, &out, Int32(list.count), Int32(across), Int32(gap), fill)
            }
        }
        if status != 0 { cvips_unref(out); out = nil }
        return VipsPicture(adopting: try Vips.check(out, "cannot draw", subject: "the sheet", kind: .runtime))
    }
}
