import CPangoCairo
import GpickBase

/// The avatar's text laid out by Pango (shaping through HarfBuzz, fallback fonts through
/// fontconfig, colour emoji through cairo), sized to fit a square box and centred on its ink.
///
/// The text starts at `preferred` pixels per em and shrinks until its ink fits the box; below
/// `smallest` it stops shrinking and is cut with an ellipsis: any length works, and only what fits
/// is shown.
struct AvatarText {
    /// What was drawn, in canvas pixels: the ink's box.
    var ink: (x: Double, y: Double, width: Double, height: Double)
    let layout: OpaquePointer
    /// Where the layout's origin goes so that its ink is centred.
    let origin: (x: Double, y: Double)

    /// The font: fontconfig's sans-serif in bold (DejaVu Sans on Debian), with its fallbacks for
    /// other scripts and emoji.
    static let family = "Sans Bold"

    init(_ text: String, on canvas: CairoCanvas, box: Double, preferred: Double, smallest: Double) {
        let cr = canvas.cr
        let layout = pango_cairo_create_layout(cr)!
        // The same layout at any size: metrics not snapped to the pixel grid.
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        pango_cairo_context_set_font_options(pango_layout_get_context(layout), options)
        cairo_font_options_destroy(options)
        pango_layout_context_changed(layout)
        pango_layout_set_single_paragraph_mode(layout, 1)
        // Newlines and tabs would be shown as symbols: a profile text is one line.
        let oneLine = text.map { $0.isNewline || $0 == "\t" ? " " : String($0) }.joined()
        pango_layout_set_text(layout, oneLine, -1)

        func measure(_ pixels: Double) -> PangoRectangle {
            let font = pango_font_description_from_string(Self.family)
            pango_font_description_set_absolute_size(font, pixels * Double(cpango_scale()))
            pango_layout_set_font_description(layout, font)
            pango_font_description_free(font)
            var ink = PangoRectangle(), logical = PangoRectangle()
            pango_layout_get_extents(layout, &ink, &logical)
            return ink
        }
        let scale = Double(cpango_scale())
        var size = preferred
        var ink = measure(size)
        let width = Double(ink.width) / scale, height = Double(ink.height) / scale
        if width > 0, height > 0 {
            let fit = min(1, box / width, box / height)
            if fit < 1 {
                // Ink is nearly proportional to the size; one more step corrects the rest.
                size = max(smallest, preferred * fit)
                ink = measure(size)
                let again = min(1, box / (Double(ink.width) / scale), box / (Double(ink.height) / scale))
                if again < 1 && size > smallest {
                    size = max(smallest, size * again * 0.98)
                    ink = measure(size)
                }
            }
            if Double(ink.width) / scale > box {
                pango_layout_set_width(layout, Int32(box * scale))
                pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
                ink = measure(size)
            }
        }
        let x = Double(ink.x) / scale, y = Double(ink.y) / scale
        let w = Double(ink.width) / scale, h = Double(ink.height) / scale
        let side = Double(canvas.side)
        origin = ((side - w) / 2 - x, (side - h) / 2 - y)
        self.ink = ((side - w) / 2, (side - h) / 2, w, h)
        self.layout = layout
    }

    func release() { g_object_unref(UnsafeMutableRawPointer(layout)) }

    /// Draws the text in `colour` (colour glyphs keep their own colours).
    func draw(on canvas: CairoCanvas, colour: AvatarColor) {
        canvas.setSource(colour)
        cairo_move_to(canvas.cr, origin.x, origin.y)
        pango_cairo_show_layout(canvas.cr, layout)
    }

    var isEmpty: Bool { ink.width <= 0 || ink.height <= 0 }
}
