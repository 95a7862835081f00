import CPangoCairo
import Glibc

/// The automatic text colour: black or white, whichever has the higher WCAG 2 contrast with the
/// worst of the pixels actually under and around the text; and when neither reaches 4.5:1 (a busy
/// photo, a gradient from dark to light), a soft scrim under the text, just dark (or light) enough.
struct TextContrast {
    /// The pixels looked at: the text's ink box and a margin around it.
    struct Region {
        var x0: Int, y0: Int, x1: Int, y1: Int
        init(ink: (x: Double, y: Double, width: Double, height: Double), margin: Double, side: Int) {
            x0 = max(0, Int((ink.x - margin).rounded(.down)))
            y0 = max(0, Int((ink.y - margin).rounded(.down)))
            x1 = min(side, Int((ink.x + ink.width + margin).rounded(.up)))
            y1 = min(side, Int((ink.y + ink.height + margin).rounded(.up)))
        }
        var isEmpty: Bool { x1 <= x0 || y1 <= y0 }
    }

    /// The darkest and lightest luminance in the region of an opaque canvas.
    static func luminanceRange(_ canvas: CairoCanvas, _ r: Region) -> (min: Double, max: Double) {
        canvas.withPixels { data, stride in
            var lo = 1.0, hi = 0.0
            for y in r.y0..<r.y1 {
                let row = data + y * stride
                for x in r.x0..<r.x1 {
                    let p = row + x * 4
                    let l = Contrast.luminance(p[2], p[1], p[0])
                    if l < lo { lo = l }
                    if l > hi { hi = l }
                }
            }
            return (lo, hi)
        }
    }

    /// The worst contrast `text` has over the region.
    static func worst(_ text: AvatarColor, over range: (min: Double, max: Double)) -> Double {
        let t = Contrast.luminance(text)
        return min(Contrast.ratio(t, range.min), Contrast.ratio(t, range.max))
    }

    /// Black or white, the better over the region, and its worst contrast there.
    static func choose(_ canvas: CairoCanvas, _ region: Region) -> (colour: AvatarColor, contrast: Double) {
        let range = luminanceRange(canvas, region)
        let black = worst(.black, over: range), white = worst(.white, over: range)
        return black >= white ? (.black, black) : (.white, white)
    }

    /// A little over AA, so that rounding in later steps (8-bit blending, encoding) cannot take
    /// the measured contrast under 4.5.
    static let target = Contrast.minimum + 0.15

    /// Lays a soft scrim of the text's opposite colour under the region, the least opaque that
    /// gives `text` the target contrast everywhere in it; its edges fade out over `feather` pixels.
    static func scrim(on canvas: CairoCanvas, region: Region, text: AvatarColor, feather: Double) {
        let shade: AvatarColor = text == .white ? .black : .white
        let before = snapshot(canvas, region)
        var lo = 0.0, hi = 1.0
        for _ in 0..<12 {
            let a = (lo + hi) / 2
            if worstAfterScrim(before, shade: shade, alpha: a, text: text) >= target { hi = a } else { lo = a }
        }
        var alpha = hi
        // Drawn, the layers round at every step: measure what was drawn, and darken until it holds.
        let saved = canvas.withPixels { data, stride in Array(UnsafeBufferPointer(start: data, count: stride * canvas.side)) }
        for _ in 0..<20 {
            draw(canvas, region: region, shade: shade, alpha: alpha, feather: feather)
            if worst(text, over: luminanceRange(canvas, region)) >= target || alpha >= 1 { return }
            canvas.withPixels { data, _ in saved.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: $0.count) } }
            canvas.markDirty()
            alpha = min(1, alpha + 0.03)
        }
    }

    /// The soft scrim: layers growing out from the region, each `b` opaque, so that the region
    /// itself (under all of them) is `alpha` opaque and the edge fades out.
    static func draw(_ canvas: CairoCanvas, region r: Region, shade: AvatarColor, alpha: Double, feather: Double) {
        let layers = 6
        let b = 1 - Glibc.pow(1 - min(alpha, 0.9999), 1 / Double(layers))
        var c = shade
        for k in 0..<layers {
            let grow = feather * Double(k) / Double(layers - 1)
            c.alpha = 255
            cairo_set_source_rgba(canvas.cr, Double(c.red) / 255, Double(c.green) / 255, Double(c.blue) / 255, alpha >= 1 && k == 0 ? 1 : b)
            canvas.roundedRect(x: Double(r.x0) - grow, y: Double(r.y0) - grow, width: Double(r.x1 - r.x0) + 2 * grow,
                               height: Double(r.y1 - r.y0) + 2 * grow, radius: feather / 2 + grow)
            cairo_fill(canvas.cr)
        }
    }

    /// The region's pixels (B, G, R per pixel), to try scrims on without drawing.
    static func snapshot(_ canvas: CairoCanvas, _ r: Region) -> [UInt8] {
        canvas.withPixels { data, stride in
            var out: [UInt8] = []
            out.reserveCapacity((r.x1 - r.x0) * (r.y1 - r.y0) * 4)
            for y in r.y0..<r.y1 {
                out.append(contentsOf: UnsafeBufferPointer(start: data + y * stride + r.x0 * 4, count: (r.x1 - r.x0) * 4))
            }
            return out
        }
    }

    /// The worst contrast after blending `shade` at `alpha` over each pixel (as OVER does).
    static func worstAfterScrim(_ pixels: [UInt8], shade: AvatarColor, alpha: Double, text: AvatarColor) -> Double {
        var lut = [UInt8](repeating: 0, count: 256)
        let s = Double(shade.red)
        for v in 0..<256 { lut[v] = UInt8((s * alpha + Double(v) * (1 - alpha)).rounded()) }
        var lo = 1.0, hi = 0.0
        var i = 0
        while i < pixels.count {
            let l = Contrast.luminance(lut[Int(pixels[i + 2])], lut[Int(pixels[i + 1])], lut[Int(pixels[i])])
            if l < lo { lo = l }
            if l > hi { hi = l }
            i += 4
        }
        return worst(text, over: (lo, hi))
    }
}
