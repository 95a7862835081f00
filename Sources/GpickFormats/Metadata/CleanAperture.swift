import GpickBase

/// The part of a HEIF or AVIF image that is shown (`clap`, ISO/IEC 14496-12 12.1.4): the coded
/// picture (`ispe`) cropped, before it is turned. libheif, libvips and every viewer crop it, so
/// gpick reports the cropped size as the image's size and keeps the coded one as the stored size.
public struct CleanAperture: Sendable, Equatable, Codable {
    /// The crop in the coded picture, in pixels.
    public var left: Int
    public var top: Int
    public var width: Int
    public var height: Int

    public init(left: Int, top: Int, width: Int, height: Int) {
        (self.left, self.top, self.width, self.height) = (left, top, width, height)
    }

    /// The crop that `clap`'s fractions (width, height, horizontal and vertical offset of the
    /// centre, each numerator and denominator) make of a `codedWidth` × `codedHeight` picture,
    /// rounded as libheif rounds them (1.15, Debian 12's): its size is the fractions rounded half
    /// up, its left edge the centre less half the width rounded down, its top rounded half up,
    /// all kept inside the picture. Nil when the box says nothing sensible.
    static func from(_ f: [Int64], codedWidth: Int, codedHeight: Int) -> CleanAperture? {
        guard f.count == 8, f[1] > 0, f[3] > 0, f[5] > 0, f[7] > 0, f[0] > 0, f[2] > 0, codedWidth > 0, codedHeight > 0 else { return nil }
        func round(_ n: Int64, _ d: Int64) -> Int64 { (n + d / 2) / d }
        // The edge: offset + (coded - 1)/2 - (clean - 1)/2, over one denominator.
        func edge(offset: (Int64, Int64), clean: (Int64, Int64), coded: Int) -> (Int64, Int64) {
            let d = 2 * offset.1 * clean.1
            return (2 * offset.0 * clean.1 + Int64(coded - 1) * offset.1 * clean.1 - (clean.0 - clean.1) * offset.1, d)
        }
        let l = edge(offset: (f[4], f[5]), clean: (f[0], f[1]), coded: codedWidth)
        let t = edge(offset: (f[6], f[7]), clean: (f[2], f[3]), coded: codedHeight)
        let left = max(0, l.0 / l.1), top = max(0, round(t.0, t.1))
        let right = min(Int64(codedWidth - 1), round(f[0] - f[1] + left * f[1], f[1]))
        let bottom = min(Int64(codedHeight - 1), round(f[2] - f[3] + top * f[3], f[3]))
        let width = min(round(f[0], f[1]), right - left + 1), height = min(round(f[2], f[3]), bottom - top + 1)
        guard width >= 1, height >= 1, left <= right, top <= bottom else { return nil }
        // A crop of nothing is no crop.
        if width == codedWidth, height == codedHeight { return nil }
        return CleanAperture(left: Int(left), top: Int(top), width: Int(width), height: Int(height))
    }
}

extension HEIFItems {
    /// `item`'s clean aperture on its `ispe` size, when it has one.
    func cleanAperture(of item: Int) -> CleanAperture? {
        guard let clap = properties(of: item).first(where: { $0.type == "clap" }), let size = size(of: item) else { return nil }
        let p = clap.payload.lowerBound
        // Widths and heights are unsigned, offsets signed (as libheif reads them).
        let f: [Int64] = (0..<8).compactMap { k in
            view.u32(p + 4 * k).map { k >= 4 && k % 2 == 0 ? Int64(Int32(truncatingIfNeeded: $0)) : Int64($0) }
        }
        return CleanAperture.from(f, codedWidth: size.width, codedHeight: size.height)
    }
}
