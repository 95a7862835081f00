import Glibc
import GpickBase
import GstCore

/// The mode a camera runs in, chosen from the modes it advertises for what is asked. Pure: the
/// same table and request always give the same mode, whatever the camera (its table comes from
/// GStreamer's device caps, or from a `v4l2-ctl --list-formats-ext` listing).
///
/// The rules, in order:
/// 1. Rate first: the mode delivers at least the rate asked for (default 30 fps), compared
///    exactly (30000/1001 is not 30). Only when no mode reaches it does the rate give way, to
///    the fastest the chosen size has.
/// 2. Size: the smallest size not below the one asked; the same aspect ratio before the nearest
///    one. With no size asked: the largest size that fits in 1920x1080. Larger than any mode
///    that keeps the rate: the largest of those, scaled up.
/// 3. Format at that size: raw when its rate suffices, else MJPEG, else H.264 (each decoded);
///    among raw formats 4:2:0 (NV12, I420) before 4:2:2 (YUYV) before the rest.
/// 4. Rate at that size and format: the slowest that keeps the rate asked (frames a session
///    would drop are not worth transferring or decoding).
public enum ModeChoice {
    public struct Chosen: Sendable, Equatable {
        public var mode: CameraMode
        /// Why this mode and not a nearer-looking one, where that matters
        /// (`YUYV 1920x1080 only at 5 fps: MJPG used`); "" when nothing needs saying.
        public var reason: String
    }

    /// The box the default mode fits in, and the rate it keeps.
    public static let defaultBox = ModeSize(width: 1920, height: 1080)
    public static let defaultRate = Fraction(30, 1)

    public static func choose(from offers: [ModeOffer], for request: ModeRequest) throws(GpickError) -> Chosen {
        guard !offers.isEmpty else { throw GpickError(.input, "the camera advertises no format gpick can take (raw, MJPG or H264)") }
        switch request {
        case .largest: return largest(offers)
        case .exact(let size, let rate, let format): return try exact(offers, size: size, rate: rate, format: format)
        case .deliver(let size, let rate): return deliver(offers, size: size, rate: rate ?? defaultRate)
        }
    }

    // MARK: - What the session delivers

    static func deliver(_ offers: [ModeOffer], size: ModeSize?, rate: Fraction) -> Chosen {
        let sizes = size.map { [($0.width, $0.height)] } ?? [(defaultBox.width, defaultBox.height)]
        let all = offers.flatMap { $0.modes(sizes: sizes, rate: rate) }
        var notes: [String] = []
        // 1. Rate.
        let keeping = all.filter { ModeRate.atLeast($0.rate, rate) }
        let pool: [CameraMode]
        if keeping.isEmpty {
            let fastest = all.map(\.rate).max { !ModeRate.atLeast($0, $1) }!
            notes.append("no mode reaches \(ModeRate.text(rate)) fps (the fastest is \(ModeRate.text(fastest)) fps)")
            pool = all
        } else {
            pool = keeping
        }
        // 2. Size.
        let chosenSize: (Int, Int)
        if let size {
            let notBelow = pool.filter { $0.width >= size.width && $0.height >= size.height }
            if notBelow.isEmpty {
                let biggest = pool.max { $0.area < $1.area }!
                chosenSize = (biggest.width, biggest.height)
                notes.append("no mode of \(size) or larger\(keeping.isEmpty ? "" : " keeps \(ModeRate.text(rate)) fps"): \(biggest.sizeText) scaled up")
            } else {
                let best = notBelow.min { sizeKey($0, for: size) < sizeKey($1, for: size) }!
                chosenSize = (best.width, best.height)
            }
        } else {
            let fitting = pool.filter { $0.width <= defaultBox.width && $0.height <= defaultBox.height }
            let best = fitting.isEmpty ? pool.min { $0.area < $1.area }! : fitting.max { ($0.area, aspectKey($0)) < ($1.area, aspectKey($1)) }!
            chosenSize = (best.width, best.height)
        }
        // 3 and 4. Format, then rate, at that size.
        let atSize = pool.filter { ($0.width, $0.height) == chosenSize }
        let mode = bestFormatAndRate(atSize, rate: rate, keepingRate: !keeping.isEmpty)
        return chosen(mode, among: all, notes: notes)
    }

    /// Among modes of one size: the most economical format that keeps the rate, at the slowest
    /// rate that keeps it; when none keeps it, the fastest.
    static func bestFormatAndRate(_ modes: [CameraMode], rate: Fraction, keepingRate: Bool) -> CameraMode {
        if keepingRate {
            let ok = modes.filter { ModeRate.atLeast($0.rate, rate) }
            return ok.min { a, b in
                if a.format.cost != b.format.cost { return a.format.cost < b.format.cost }
                return !ModeRate.atLeast(a.rate, b.rate)
            }!
        }
        // Fastest first; at equal rates the cheaper encoding.
        return modes.min { a, b in
            if !ModeRate.equal(a.rate, b.rate) { return ModeRate.atLeast(a.rate, b.rate) }
            return a.format.cost < b.format.cost
        }!
    }

    /// The choice with its reasons: `notes` of the rate and size, why a raw format was passed
    /// over (unless the format was asked for), and a rate the camera does not list.
    static func chosen(_ mode: CameraMode, among all: [CameraMode], notes: [String] = [], explainFormat: Bool = true) -> Chosen {
        var notes = notes
        if explainFormat, let why = formatNote(mode, among: all) { notes.append(why) }
        if !mode.rateListed { notes.append("the camera lists no frame rates: \(ModeRate.text(mode.rate)) fps asked for") }
        return Chosen(mode: mode, reason: notes.joined(separator: "; "))
    }

    /// Says why a raw format at the chosen size was passed over: `YUYV 1920x1080 only at 5 fps: MJPG used`.
    static func formatNote(_ mode: CameraMode, among all: [CameraMode]) -> String? {
        guard mode.format.encoding != .raw else { return nil }
        let raw = all.filter { $0.format.encoding == .raw && $0.width == mode.width && $0.height == mode.height }
        guard let fastest = raw.max(by: { !ModeRate.atLeast($0.rate, $1.rate) }) else { return nil }
        return "\(fastest.format) \(mode.sizeText) only at \(ModeRate.text(fastest.rate)) fps: \(mode.format) used"
    }

    /// Smaller is better: the same aspect ratio first, then the nearest one, then the smaller area.
    static func sizeKey(_ m: CameraMode, for size: ModeSize) -> (Int, Double, Int) {
        let same = m.width * size.height == m.height * size.width
        let distance = abs(log(Double(m.width) / Double(m.height)) - log(Double(size.width) / Double(size.height)))
        return (same ? 0 : 1, same ? 0 : distance, m.area)
    }

    /// Between two default candidates of equal area: 16:9 before others (what a session
    /// delivers by default).
    static func aspectKey(_ m: CameraMode) -> Int { m.width * 9 == m.height * 16 ? 1 : 0 }

    // MARK: - The largest

    static func largest(_ offers: [ModeOffer]) -> Chosen {
        let all = offers.flatMap { $0.modes(sizes: [], rate: defaultRate) }
        let top = all.max { $0.area < $1.area }!
        let atSize = all.filter { $0.width == top.width && $0.height == top.height }
        let mode = bestFormatAndRate(atSize, rate: defaultRate, keepingRate: false)
        return chosen(mode, among: all)
    }

    // MARK: - By hand

    static func exact(_ offers: [ModeOffer], size: ModeSize, rate: Fraction?, format: String?) throws(GpickError) -> Chosen {
        let wanted = rate ?? defaultRate
        let all = offers.flatMap { $0.modes(sizes: [(size.width, size.height)], rate: wanted) }
        var matching = all.filter { $0.width == size.width && $0.height == size.height }
        if let format { matching = matching.filter { $0.format.fourcc == format || sameJPEG($0.format.fourcc, format) } }
        if let rate { matching = matching.filter { ModeRate.equal($0.rate, rate) } }
        guard !matching.isEmpty else {
            let asked = ModeRequest.exact(size: size, rate: rate, format: format)
            let near = nearest(all, to: size, rate: wanted, format: format).map(\.description).joined(separator: ", ")
            throw GpickError(.usage, "the camera has no mode \(asked); nearest: \(near)")
        }
        // Without a rate: the slowest at that size that keeps 30 fps, else the fastest.
        let keeps = matching.contains { ModeRate.atLeast($0.rate, wanted) }
        let mode = bestFormatAndRate(matching, rate: wanted, keepingRate: keeps)
        return chosen(mode, among: all, explainFormat: format == nil)
    }

    static func sameJPEG(_ a: String, _ b: String) -> Bool { Set([a, b]).isSubset(of: ["MJPG", "JPEG"]) }

    /// Up to three distinct modes nearest to what was asked: by size (the ratio of areas), then
    /// rate, the asked format first.
    static func nearest(_ all: [CameraMode], to size: ModeSize, rate: Fraction, format: String?) -> [CameraMode] {
        func distance(_ m: CameraMode) -> (Double, Double, Int) {
            let s = abs(log(Double(m.area) / Double(size.area)))
            let r = abs(log(m.rate.value / max(rate.value, 0.001)))
            let f = format.map { m.format.fourcc == $0 || sameJPEG(m.format.fourcc, $0) ? 0 : 1 } ?? 0
            return (s + r, Double(f), m.format.encoding.rawValue)
        }
        var seen = Set<String>()
        return all.sorted { distance($0) < distance($1) }.filter { seen.insert($0.description).inserted }.prefix(3).map { $0 }
    }
}
