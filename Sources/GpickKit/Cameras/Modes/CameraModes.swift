import GpickBase
import GstCore

/// How a camera hands over its frames in one of its pixel formats: raw pixels (YUYV, NV12, GREY…),
/// JPEG images (MJPEG: decoded on the CPU), or an H.264 stream (decoded too). The order is the
/// order of preference when each delivers the rate asked for: raw costs nothing to decode.
public enum ModeEncoding: Int, Sendable, Comparable, CaseIterable {
    case raw, mjpeg, h264

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// A pixel format as V4L2 names it (its four-character code: "YUYV", "MJPG", "H264"), the name
/// users see in `v4l2-ctl --list-formats-ext` and bug reports.
public struct ModeFormat: Sendable, Hashable, CustomStringConvertible {
    public let fourcc: String
    public let encoding: ModeEncoding

    /// nil for a format gpick cannot take (vendor formats, Bayer, HEVC…).
    public init?(fourcc: String) {
        let code = fourcc.trimmed()
        guard let encoding = Self.encodings[code] else { return nil }
        self.fourcc = code
        self.encoding = encoding
    }

    public var description: String { fourcc }

    /// Among raw formats: 4:2:0 (NV12, I420) first, half the bytes of 4:2:2 and what the
    /// encoders take as they are; then 4:2:2 (YUYV); then the rest (RGB, grey).
    var rawRank: Int {
        switch fourcc {
        case "NV12", "NV21", "YU12", "YV12": return 0
        case "YUYV", "YVYU", "UYVY", "VYUY", "NV16", "NV61", "422P": return 1
        default: return 2
        }
    }

    /// The order of preference between formats that deliver the same: raw before MJPEG before
    /// H.264, and among raw ones by `rawRank`.
    var cost: Int { encoding.rawValue * 10 + (encoding == .raw ? rawRank : 0) }

    /// The V4L2 codes gpick decodes, by what they are. GStreamer's raw names for them are in
    /// `CapsModes`.
    static let encodings: [String: ModeEncoding] = {
        var e: [String: ModeEncoding] = ["MJPG": .mjpeg, "JPEG": .mjpeg, "H264": .h264]
        for raw in ["YUYV", "YVYU", "UYVY", "VYUY", "NV12", "NV21", "NV16", "NV61", "YU12", "YV12", "422P", "GREY",
                    "Y16", "RGB3", "BGR3", "RGBP", "RGB4", "BGR4", "XR24", "AR24", "XB24", "AB24", "BA24", "RX24"] {
            e[raw] = .raw
        }
        return e
    }()
}

/// Sizes a camera offers for one format: a list of sizes, or a range with a step (a Raspberry
/// Pi camera under bcm2835-v4l2 takes any even size from 32x32 to 2592x1944).
public enum ModeSizes: Sendable, Hashable {
    case discrete(width: Int, height: Int)
    case stepwise(minWidth: Int, minHeight: Int, maxWidth: Int, maxHeight: Int, stepWidth: Int, stepHeight: Int)

    public func contains(width: Int, height: Int) -> Bool {
        switch self {
        case .discrete(let w, let h): return w == width && h == height
        case .stepwise(let w0, let h0, let w1, let h1, let sw, let sh):
            return (w0...w1).contains(width) && (h0...h1).contains(height)
                && (width - w0) % max(sw, 1) == 0 && (height - h0) % max(sh, 1) == 0
        }
    }

    /// The sizes worth choosing from: a list's one size; for a range, the common sizes inside it
    /// (and its largest), plus `extra` (what was asked) rounded up onto the range's steps.
    func candidates(extra: [(Int, Int)]) -> [(Int, Int)] {
        switch self {
        case .discrete(let w, let h): return [(w, h)]
        case .stepwise(let w0, let h0, let w1, let h1, let sw, let sh):
            func onStep(_ v: Int, _ lo: Int, _ step: Int) -> Int { let s = max(step, 1); return lo + (v - lo + s - 1) / s * s }
            var out: [(Int, Int)] = []
            for (w, h) in Self.commonSizes + extra + [(w1, h1)] {
                let (cw, ch) = (onStep(max(w, w0), w0, sw), onStep(max(h, h0), h0, sh))
                if cw <= w1, ch <= h1, contains(width: cw, height: ch), !out.contains(where: { $0 == (cw, ch) }) { out.append((cw, ch)) }
            }
            return out
        }
    }

    static let commonSizes = [(320, 240), (640, 360), (640, 480), (800, 600), (1024, 768), (1280, 720), (1280, 960),
                              (1600, 1200), (1920, 1080), (2560, 1440), (3840, 2160)]
}

/// Frame rates a camera offers at one size: a list, a range (a continuous or stepwise frame
/// interval), or none listed at all (bcm2835-v4l2 lists sizes only: its driver takes any rate
/// up to what the sensor mode allows).
public enum ModeRates: Sendable, Hashable {
    case discrete([Fraction])
    case range(ClosedRange<Fraction>)
    case unlisted
}

/// One line of a camera's table: a format, its sizes, and the rates at those sizes.
public struct ModeOffer: Sendable, Hashable {
    public var format: ModeFormat
    public var sizes: ModeSizes
    public var rates: ModeRates

    public init(format: ModeFormat, sizes: ModeSizes, rates: ModeRates) {
        self.format = format
        self.sizes = sizes
        self.rates = rates
    }
}

/// One mode a camera runs in: a format, a size and a frame rate. `rateListed` is false when the
/// camera lists no rates and the one here is what gpick will ask for.
public struct CameraMode: Sendable, Hashable, CustomStringConvertible {
    public var format: ModeFormat
    public var width: Int
    public var height: Int
    public var rate: Fraction
    public var rateListed: Bool

    public init(format: ModeFormat, width: Int, height: Int, rate: Fraction, rateListed: Bool = true) {
        self.format = format
        self.width = width
        self.height = height
        self.rate = rate
        self.rateListed = rateListed
    }

    public var area: Int { width * height }
    public var sizeText: String { "\(width)x\(height)" }
    /// `YUYV 1280x720 @ 30 fps`, `MJPG 1920x1080 @ 29.97 fps`.
    public var description: String { "\(format) \(sizeText) @ \(ModeRate.text(rate)) fps" }
    /// The rate as caps and JSON write it: "30/1", "30000/1001".
    public var framerate: String { "\(rate.numerator)/\(rate.denominator)" }
}

/// Frame rates compared exactly, as fractions (30000/1001 is not 30), and written for people.
public enum ModeRate {
    /// a ≥ b, exactly.
    static func atLeast(_ a: Fraction, _ b: Fraction) -> Bool {
        guard a.denominator > 0, b.denominator > 0 else { return a.value >= b.value }
        return a.numerator * b.denominator >= b.numerator * a.denominator
    }

    static func equal(_ a: Fraction, _ b: Fraction) -> Bool { atLeast(a, b) && atLeast(b, a) }

    /// "30", "7.5", "29.97".
    public static func text(_ f: Fraction) -> String {
        if f.denominator != 0, f.numerator % f.denominator == 0 { return "\(f.numerator / f.denominator)" }
        let v = (f.value * 100).rounded() / 100
        return v == v.rounded() ? "\(Int(v))" : "\(v)"
    }

    /// A rate as people write it: "30", "7.5", "29.97" (30000/1001, as NTSC rates are), "30000/1001".
    public static func parse(_ text: String) -> Fraction? {
        let t = text.trimmed()
        if let slash = t.firstIndex(of: "/") {
            guard let n = Int(t[..<slash]), let d = Int(t[t.index(after: slash)...]), n > 0, d > 0 else { return nil }
            return Fraction(n, d)
        }
        guard let v = Double(t), v > 0, v <= 100_000 else { return nil }
        return fromDecimal(v)
    }

    /// The fraction a decimal rate stands for: whole numbers, the NTSC rates (n × 1000/1001:
    /// 29.97, 59.94, 23.976, 14.985) and halves (7.5), else thousandths.
    static func fromDecimal(_ v: Double) -> Fraction {
        let whole = v.rounded()
        if abs(v - whole) < 0.0005 { return Fraction(Int(whole), 1) }
        let ntsc = (v * 1.001).rounded()
        if abs(v - ntsc * 1000 / 1001) < 0.0015 { return Fraction(Int(ntsc) * 1000, 1001) }
        if abs(v * 2 - (v * 2).rounded()) < 0.001 { return Fraction(Int((v * 2).rounded()), 2) }
        let n = Int((v * 1000).rounded())
        let g = gcd(n, 1000)
        return Fraction(n / g, 1000 / g)
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? max(a, 1) : gcd(b, a % b) }
}

extension ModeOffer {
    /// The modes this line stands for, for a choice that wants `sizes` and `rate` considered.
    func modes(sizes extra: [(Int, Int)], rate wanted: Fraction) -> [CameraMode] {
        sizes.candidates(extra: extra).flatMap { (w, h) -> [CameraMode] in
            switch rates {
            case .discrete(let list):
                return list.map { CameraMode(format: format, width: w, height: h, rate: $0) }
            case .range(let r):
                // The range's ends, and the rate wanted when it is inside.
                var picks = [r.lowerBound, r.upperBound]
                if ModeRate.atLeast(wanted, r.lowerBound), ModeRate.atLeast(r.upperBound, wanted) { picks.append(wanted) }
                return picks.map { CameraMode(format: format, width: w, height: h, rate: $0) }
            case .unlisted:
                return [CameraMode(format: format, width: w, height: h, rate: wanted, rateListed: false)]
            }
        }
    }
}
