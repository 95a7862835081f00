import CImaging
import CPangoCairo
import Glibc

/// The automatic text colour: black or white, whichever has the higher WCAG 2 contrast with the
/// worst of the pixels actually under and around the text; and when neither reaches 4.5:1 (a busy
/// photo, a gradient from dark to light), a soft halo under the text that follows its glyphs,
/// just dark (or light) enough.
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

    /// Lays a halo of the text's opposite colour under the text: fully there within `near` pixels
    /// of the glyphs' ink, fading out with a smoothstep over `falloff` pixels, so that its edge
    /// follows the glyphs and no two neighbouring pixels differ by more than a few levels. Its
    /// opacity is the least that gives `text` the target contrast on every pixel within `near` of
    /// the ink, found on the pixels themselves and checked again once drawn. Returns the scrim's
    /// alpha (0–255 per pixel), for the tests that measure its smoothness.
    @discardableResult
    static func halo(on canvas: CairoCanvas, text: AvatarText, colour: AvatarColor, near: Double,
                     falloff: Double) -> [UInt8] {
        let side = canvas.side
        let shade: AvatarColor = colour == .white ? .black : .white
        // The ink's coverage: the text drawn alone on a transparent canvas of the same size.
        guard let mask = try? CairoCanvas(side: side) else { return [] }
        text.draw(on: mask, colour: .white)
        var distance = [UInt16](repeating: 0, count: side * side)
        mask.withPixels { data, stride in
            distance.withUnsafeMutableBufferPointer { gpick_chamfer_distance(data + 3, 4, Int32(stride), Int32(side), Int32(side), 128, $0.baseAddress) }
        }
        // The pixels that must read well: within `near` of the ink.
        let zone = canvas.withPixels { data, stride -> [UInt8] in
            var out: [UInt8] = []
            for y in 0..<side {
                for x in 0..<side where Double(distance[y * side + x]) / 3 <= near {
                    let p = data + y * stride + x * 4
                    out += [p[0], p[1], p[2], 255]
                }
            }
            return out
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<12 {
            let a = (lo + hi) / 2
            if worstAfterScrim(zone, shade: shade, alpha: a, text: colour) >= target { hi = a } else { lo = a }
        }
        var alpha = hi
        let saved = canvas.withPixels { data, stride in Array(UnsafeBufferPointer(start: data, count: stride * side)) }
        var alphas = [UInt8](repeating: 0, count: side * side)
        for _ in 0..<20 {
            canvas.withPixels { data, stride in
                distance.withUnsafeBufferPointer { d in
                    alphas.withUnsafeMutableBufferPointer { out in
                        gpick_halo_blend(data, Int32(stride), Int32(side), Int32(side), d.baseAddress, near, falloff, alpha, shade.red,
                                         out.baseAddress)
                    }
                }
            }
            canvas.markDirty()
            // Drawn, the blend rounds: measure what was drawn, and strengthen until it holds.
            if worstWithin(canvas, distance: distance, near: near, text: colour) >= target || alpha >= 1 { return alphas }
            canvas.withPixels { data, _ in saved.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: $0.count) } }
            canvas.markDirty()
            alpha = min(1, alpha + 0.03)
        }
        return alphas
    }

    /// The worst contrast `text` has over the canvas's pixels within `near` of the ink.
    static func worstWithin(_ canvas: CairoCanvas, distance: [UInt16], near: Double, text: AvatarColor) -> Double {
        canvas.withPixels { data, stride in
            var lo = 1.0, hi = 0.0
            for y in 0..<canvas.side {
                for x in 0..<canvas.side where Double(distance[y * canvas.side + x]) / 3 <= near {
                    let p = data + y * stride + x * 4
                    let l = Contrast.luminance(p[2], p[1], p[0])
                    lo = min(lo, l)
                    hi = max(hi, l)
                }
            }
            return hi < lo ? 21 : worst(text, over: (lo, hi))
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
