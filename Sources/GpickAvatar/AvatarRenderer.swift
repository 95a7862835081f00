import CPangoCairo
import Foundation
import GpickBase
import GpickImages

/// Draws profile images: the background (a colour, a vertical gradient, or an image covering the
/// square), the text fitted inside the square inscribed in the shape, in the colour that reads
/// best over the pixels under it, and the shape cut out. The same model gives the same pixels.
public struct AvatarRenderer: Sendable {
    public var images: AvatarImages?

    public init(images: AvatarImages? = nil) { self.images = images }

    /// The avatar of `model` at `size` (the model's own size when nil). `picture` is the image
    /// behind the text when the caller already has it (a camera's photo); otherwise the model's
    /// image is loaded through `images`.
    public func render(_ model: ProfileImage, size: Int? = nil, picture: AvatarPicture? = nil) async throws(GpickError) -> RenderedAvatar {
        var model = model
        if let size { model.size = size }
        try model.validate()
        var backdrop = picture
        if backdrop == nil, case .image(let reference) = model.resolvedBackground {
            guard let images else { throw GpickError(.input, "the model's image cannot be loaded here: no image sources") }
            backdrop = try await images.picture(reference, covering: model.size)
        }
        let m = model, b = backdrop
        return try await OffPool.run { () throws(GpickError) in try Self.draw(m, picture: b) }
    }

    /// The whole drawing, blocking (a render is a few milliseconds of cairo work).
    public static func draw(_ model: ProfileImage, picture: AvatarPicture?) throws(GpickError) -> RenderedAvatar {
        let side = model.size
        let canvas = try CairoCanvas(side: side)
        try paintBackground(model, picture: picture, on: canvas)
        let shown = model.shownText
        var textColour: AvatarColor?
        var scrim: [UInt8]?
        if !shown.isEmpty {
            let s = Double(side)
            let box = innerSquare(model.shape, side: s) - 2 * padding(side: s)
            let text = AvatarText(shown, on: canvas, box: box, preferred: 0.4 * s, smallest: 0.1 * s)
            defer { text.release() }
            if !text.isEmpty {
                var colour = model.textColor ?? .white
                if model.textColor == nil {
                    let region = TextContrast.Region(ink: text.ink, margin: max(2, 0.04 * s), side: side)
                    if !region.isEmpty {
                        let choice = TextContrast.choose(canvas, region)
                        colour = choice.colour
                        if choice.contrast < TextContrast.target {
                            // Full within 3 % of the side of the ink (the text's neighbourhood), and
                            // never less than 8 px: 5 px across a diagonal is 7.1 px away (a 200 px
                            // avatar once read 4.48:1 there). Then fading over 30 %: at most about
                            // 2.5 levels from pixel to pixel.
                            let halo = TextContrast.halo(on: canvas, text: text, colour: colour, near: max(8, 0.03 * s), falloff: 0.3 * s)
                            // The text's own neighbourhood can read well where the wider region
                            // the colour was chosen on did not: then the least halo is none.
                            scrim = halo.contains { $0 > 0 } ? halo : nil
                        }
                    }
                }
                text.draw(on: canvas, colour: colour)
                textColour = colour
            }
        }
        try canvas.check("the avatar")
        let shaped = try cut(canvas, to: model.shape)
        return RenderedAvatar(canvas: shaped, matte: model.matte, textColor: textColour, scrimAlpha: scrim)
    }

    /// The side of the largest centred square inside the shape.
    static func innerSquare(_ shape: AvatarShape, side: Double) -> Double {
        switch shape {
        case .square: side
        case .circle: side / 2.squareRoot()
        case .roundRect(let f): side - 2 * f * side * (1 - 1 / 2.squareRoot())
        }
    }

    /// Space kept between the text and the inner square's edge.
    static func padding(side: Double) -> Double { 0.06 * side }

    static func paintBackground(_ model: ProfileImage, picture: AvatarPicture?, on canvas: CairoCanvas) throws(GpickError) {
        let cr = canvas.cr
        let side = Double(canvas.side)
        switch model.resolvedBackground {
        case .color(let c):
            // A colour that is not opaque is laid over white: the text needs opaque pixels to be
            // measured against, and the avatar's own transparency is its shape's.
            canvas.setSource(.white)
            cairo_paint(cr)
            canvas.setSource(c)
            cairo_paint(cr)
        case .gradient(let top, let bottom):
            canvas.setSource(.white)
            cairo_paint(cr)
            let g = cairo_pattern_create_linear(0, 0, 0, side)
            defer { cairo_pattern_destroy(g) }
            // Pixel centres: the top row is exactly `top`, the bottom row exactly `bottom`.
            cairo_pattern_add_color_stop_rgba(g, 0.5 / side, Double(top.red) / 255, Double(top.green) / 255, Double(top.blue) / 255, Double(top.alpha) / 255)
            cairo_pattern_add_color_stop_rgba(g, 1 - 0.5 / side, Double(bottom.red) / 255, Double(bottom.green) / 255, Double(bottom.blue) / 255,
                                              Double(bottom.alpha) / 255)
            cairo_set_source(cr, g)
            cairo_paint(cr)
        case .image(let reference):
            guard let picture else { throw GpickError(.input, "the image behind the text was not loaded") }
            try paint(picture, focus: reference.focus, on: canvas)
        }
        try canvas.check("the background")
    }

    /// The picture scaled to cover the square, the crop centred on `focus` as far as it can be.
    static func paint(_ picture: AvatarPicture, focus: FocusPoint, on canvas: CairoCanvas) throws(GpickError) {
        let w = picture.width, h = picture.height
        guard w > 0, h > 0, picture.rgba.count >= w * h * 4 else { throw GpickError(.input, "the image is empty") }
        guard let source = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else {
            throw GpickError(.runtime, "cannot draw the image: out of memory")
        }
        defer { cairo_surface_destroy(source) }
        guard cairo_surface_status(source) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(source) else {
            throw GpickError(.runtime, "cannot draw the image: \(String(cString: cairo_status_to_string(cairo_surface_status(source))))")
        }
        let stride = Int(cairo_image_surface_get_stride(source))
        picture.rgba.withUnsafeBufferPointer { px in
            for y in 0..<h {
                let row = data + y * stride
                for x in 0..<w {
                    let i = (y * w + x) * 4
                    let a = Int(px[i + 3])
                    row[x * 4] = UInt8((Int(px[i + 2]) * a + 127) / 255)
                    row[x * 4 + 1] = UInt8((Int(px[i + 1]) * a + 127) / 255)
                    row[x * 4 + 2] = UInt8((Int(px[i]) * a + 127) / 255)
                    row[x * 4 + 3] = UInt8(a)
                }
            }
        }
        cairo_surface_mark_dirty(source)
        let cr = canvas.cr
        let side = Double(canvas.side)
        let scale = max(side / Double(w), side / Double(h))
        let overX = Double(w) * scale - side, overY = Double(h) * scale - side
        canvas.setSource(.white)
        cairo_paint(cr)
        cairo_save(cr)
        cairo_translate(cr, -overX * focus.x, -overY * focus.y)
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, source, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        // Edge pixels repeat outward: no transparent seam where a scaled edge lands mid-pixel.
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    /// The square cut to the shape: outside it, transparent.
    static func cut(_ square: CairoCanvas, to shape: AvatarShape) throws(GpickError) -> CairoCanvas {
        if case .square = shape { return square }
        let out = try CairoCanvas(side: square.side)
        let s = Double(square.side)
        switch shape {
        case .circle: cairo_arc(out.cr, s / 2, s / 2, s / 2, 0, 2 * .pi)
        case .roundRect(let f): out.roundedRect(x: 0, y: 0, width: s, height: s, radius: f * s)
        case .square: break
        }
        cairo_set_source_surface(out.cr, square.surface, 0, 0)
        cairo_fill(out.cr)
        try out.check("the avatar's shape")
        return out
    }
}

/// A drawn avatar, ready to encode.
public struct RenderedAvatar: Sendable {
    let canvas: CairoCanvas
    let matte: AvatarColor
    /// The text's colour (chosen or given); nil without text.
    public let textColor: AvatarColor?
    /// The halo laid under the text for contrast (alpha 0–255 per pixel); nil when none was needed.
    let scrimAlpha: [UInt8]?

    public var size: Int { canvas.side }

    public enum Format: String, Sendable, CaseIterable {
        case png, jpeg, webp

        /// By the output's extension: .png, .jpg/.jpeg, .webp.
        public init?(fileExtension: String) {
            switch fileExtension.lowercased() {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            case "webp": self = .webp
            default: return nil
            }
        }
    }

    /// Straight RGBA rows.
    public func rgba() -> [UInt8] { canvas.straightRGBA() }

    /// The encoded file. PNG and WebP keep the transparent corners; JPEG's are the matte.
    public func encoded(as format: Format) throws(GpickError) -> [UInt8] {
        switch format {
        case .png:
            return try canvas.png()
        case .webp:
            return try Self.picture(rgba(), side: size).encoded(as: .webp)
        case .jpeg:
            let flat = try CairoCanvas(side: size)
            flat.setSource(AvatarColor(red: matte.red, green: matte.green, blue: matte.blue))
            cairo_paint(flat.cr)
            cairo_set_source_surface(flat.cr, canvas.surface, 0, 0)
            cairo_paint(flat.cr)
            try flat.check("the avatar")
            return try Self.picture(flat.straightRGBA(), side: size).encoded(as: .jpeg)
        }
    }

    /// RGBA rows as a libvips picture, to encode (libvips loads only for JPEG and WebP).
    static func picture(_ bytes: [UInt8], side: Int) throws(GpickError) -> VipsPicture {
        let made = bytes.withUnsafeBytes { b in Result { () throws(GpickError) in try VipsPicture.rgba(b, width: side, height: side, stride: side * 4) } }
        return try made.get()
    }
}
