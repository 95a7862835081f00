import GstCore

/// What a camera can deliver, one line per pixel format, with ranges written as ranges:
/// `YUY2 640x480…1920x1080 @ 5–30 fps`, `RGB, UYVY any size @ any rate`.
public struct FormatSummary: Sendable, Equatable {
    /// Pixel formats that share these sizes and rates ("YUY2"; "MJPG" for image/jpeg).
    public var formats: [String]
    /// Smallest and largest size (by area), or nil when the device names none.
    public var smallest: (width: Int, height: Int)?
    public var largest: (width: Int, height: Int)?
    /// Frame rates, slowest to fastest.
    public var rates: ClosedRange<Fraction>?

    public static func == (a: Self, b: Self) -> Bool { a.line == b.line }

    /// Sizes and rates past these are a provider saying "anything" (PipeWire's [1, 2³¹−1]).
    static let anySize = 16384
    static let anyRate = 1000.0

    public var sizeText: String {
        guard let s = smallest, let l = largest else { return "any size" }
        if l.width >= Self.anySize || l.height >= Self.anySize {
            return s.width <= 1 && s.height <= 1 ? "any size" : "\(s.width)x\(s.height) or larger"
        }
        return s == l ? "\(s.width)x\(s.height)" : "\(s.width)x\(s.height)…\(l.width)x\(l.height)"
    }

    public var rateText: String {
        guard let r = rates else { return "any rate" }
        if r.upperBound.value >= Self.anyRate { return r.lowerBound.value <= 0 ? "any rate" : "\(Self.fps(r.lowerBound)) fps or faster" }
        if r.lowerBound == r.upperBound || r.lowerBound.value == r.upperBound.value { return "\(Self.fps(r.upperBound)) fps" }
        return "\(Self.fps(r.lowerBound))–\(Self.fps(r.upperBound)) fps"
    }

    public var line: String { "\(formats.joined(separator: ", ")) \(sizeText) @ \(rateText)" }

    static func fps(_ f: Fraction) -> String {
        if f.denominator != 0, f.numerator % f.denominator == 0 { return "\(f.numerator / f.denominator)" }
        let v = (f.value * 100).rounded() / 100
        return v == v.rounded() ? "\(Int(v))" : "\(v)"
    }

    /// One summary per pixel format; formats with the same sizes and rates share a line.
    public static func of(_ structures: [CapsStructure]) -> [FormatSummary] {
        struct Acc { var smallest: (Int, Int)?; var largest: (Int, Int)?; var lo: Fraction?; var hi: Fraction? }
        var order: [String] = []
        var byFormat: [String: Acc] = [:]
        for s in structures {
            let names: [String]
            switch s.mediaType {
            case "video/x-raw": names = s["format"]?.strings.nilIfEmpty ?? ["raw"]
            case "image/jpeg": names = ["MJPG"]
            default: names = [s.mediaType.split(separator: "/").last.map(String.init) ?? s.mediaType]
            }
            let w = s["width"]?.intBounds, h = s["height"]?.intBounds, r = s["framerate"]?.fractionBounds
            for name in names {
                if byFormat[name] == nil { order.append(name); byFormat[name] = Acc() }
                var a = byFormat[name]!
                if let w, let h {
                    let small = (w.lowerBound, h.lowerBound), large = (w.upperBound, h.upperBound)
                    if a.smallest.map({ small.0 * small.1 < $0.0 * $0.1 }) ?? true { a.smallest = small }
                    if a.largest.map({ large.0 * large.1 > $0.0 * $0.1 }) ?? true { a.largest = large }
                }
                if let r {
                    a.lo = a.lo.map { min($0, r.lowerBound) } ?? r.lowerBound
                    a.hi = a.hi.map { max($0, r.upperBound) } ?? r.upperBound
                }
                byFormat[name] = a
            }
        }
        var out: [FormatSummary] = []
        for name in order {
            let a = byFormat[name]!
            let rates: ClosedRange<Fraction>? = a.lo.flatMap { lo in a.hi.map { lo...$0 } }
            let summary = FormatSummary(formats: [name], smallest: a.smallest.map { (width: $0.0, height: $0.1) },
                                        largest: a.largest.map { (width: $0.0, height: $0.1) }, rates: rates)
            if let i = out.firstIndex(where: { $0.sizeText == summary.sizeText && $0.rateText == summary.rateText }) {
                out[i].formats.append(name)
            } else {
                out.append(summary)
            }
        }
        return out
    }
}

extension Array {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
