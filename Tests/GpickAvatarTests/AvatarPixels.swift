import GpickAvatar
import GpickBase

/// A rendered avatar's pixels, straight RGBA, with what the tests measure on them.
struct Pixels {
    let side: Int
    let rgba: [UInt8]

    /// Decoded off the cooperative pool, as every measurement here should be: these loops take
    /// tens of milliseconds in a debug build, and the suite's other tests share the pool's threads.
    static func of(_ avatar: RenderedAvatar) async -> Pixels { await OffPool.run { Pixels(avatar) } }

    init(_ avatar: RenderedAvatar) {
        side = avatar.size
        rgba = avatar.rgba()
    }

    func at(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int, a: Int) {
        let i = (y * side + x) * 4
        return (Int(rgba[i]), Int(rgba[i + 1]), Int(rgba[i + 2]), Int(rgba[i + 3]))
    }

    func colour(_ x: Int, _ y: Int) -> AvatarColor {
        let p = at(x, y)
        return AvatarColor(red: UInt8(p.r), green: UInt8(p.g), blue: UInt8(p.b), alpha: UInt8(p.a))
    }

    /// Pixels exactly `c` (opaque): the inside of glyphs drawn in `c`.
    func mask(equalTo c: AvatarColor) -> [Bool] {
        let (r0, g0, b0) = (Int(c.red), Int(c.green), Int(c.blue))
        return mask { r, g, b, a in r == r0 && g == g0 && b == b0 && a == 255 }
    }

    /// The pixels whose channels pass `test`. The loops here run over buffer pointers: in a
    /// debug build, indexing arrays pixel by pixel cost these tests seconds of CPU.
    func mask(_ test: (_ r: Int, _ g: Int, _ b: Int, _ a: Int) -> Bool) -> [Bool] {
        let count = side * side
        return rgba.withUnsafeBufferPointer { p in
            [Bool](unsafeUninitializedCapacity: count) { out, made in
                for i in 0..<count { out[i] = test(Int(p[i * 4]), Int(p[i * 4 + 1]), Int(p[i * 4 + 2]), Int(p[i * 4 + 3])) }
                made = count
            }
        }
    }

    /// `mask` grown by `r` pixels (a square neighbourhood), by sliding-window counts: along
    /// the rows, then down the columns.
    func dilated(_ mask: [Bool], by r: Int) -> [Bool] {
        let n = side
        var rows = [Bool](repeating: false, count: n * n), out = rows
        mask.withUnsafeBufferPointer { m in rows.withUnsafeMutableBufferPointer { Self.spread(m, into: $0, n: n, r: r, line: n, step: 1) } }
        rows.withUnsafeBufferPointer { m in out.withUnsafeMutableBufferPointer { Self.spread(m, into: $0, n: n, r: r, line: 1, step: n) } }
        return out
    }

    /// One pass of `dilated` over n lines of n pixels: line k starts at k·`line`, and its pixels
    /// are `step` apart. A pixel is set when one within `r` of it along its line is.
    private static func spread(_ m: UnsafeBufferPointer<Bool>, into out: UnsafeMutableBufferPointer<Bool>, n: Int, r: Int, line: Int, step: Int) {
        for k in 0..<n {
            let start = k * line
            var count = 0
            for i in 0..<min(n, r) where m[start + i * step] { count += 1 }
            for i in 0..<n {
                if i + r < n, m[start + (i + r) * step] { count += 1 }
                if i - r - 1 >= 0, m[start + (i - r - 1) * step] { count -= 1 }
                out[start + i * step] = count > 0
            }
        }
    }

    /// The worst WCAG contrast between `text` and the background pixels around its glyphs: those
    /// 3 to 5 pixels from a pixel of the glyphs' inside (nearer ones are the glyphs' own
    /// anti-aliased edges). Also how many glyph pixels there are. With `plain` (the same avatar
    /// without text), pixels already of the text's colour there are not glyphs.
    func textContrast(_ text: AvatarColor, plain: Pixels? = nil) -> (worst: Double, glyphPixels: Int, ringPixels: Int) {
        var inside = mask(equalTo: text)
        if let plain {
            let before = plain.mask(equalTo: text)
            for i in inside.indices where before[i] { inside[i] = false }
        }
        let near = dilated(inside, by: 2), zone = dilated(inside, by: 5)
        let t = Contrast.luminance(text)
        var worst = 21.0, ring = 0, glyphPixels = 0
        rgba.withUnsafeBufferPointer { p in
            for i in 0..<side * side {
                if inside[i] { glyphPixels += 1 }
                guard zone[i], !near[i] else { continue }
                ring += 1
                let l = Contrast.luminance(p[i * 4], p[i * 4 + 1], p[i * 4 + 2])
                worst = min(worst, Contrast.ratio(t, l))
            }
        }
        return (worst, glyphPixels, ring)
    }

    /// The box of pixels that differ from `background` by more than `tolerance` on any channel.
    func inkBox(against background: AvatarColor, tolerance: Int = 24) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        var box: (Int, Int, Int, Int)?
        for y in 0..<side {
            for x in 0..<side {
                let p = at(x, y)
                guard p.a == 255 else { continue }
                if abs(p.r - Int(background.red)) > tolerance || abs(p.g - Int(background.green)) > tolerance || abs(p.b - Int(background.blue)) > tolerance {
                    box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
                }
            }
        }
        return box
    }
}
