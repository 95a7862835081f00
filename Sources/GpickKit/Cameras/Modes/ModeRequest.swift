import GpickBase
import GstCore

/// What a camera's mode is chosen for.
///
/// - `.deliver(size:rate:)`: what the session will deliver (its `--width`, `--height` and
///   `--fps`); the mode is the cheapest that keeps it, and the session scales what differs.
///   Both nil: the largest mode up to 1920x1080 that keeps 30 fps.
/// - `.exact(...)`: a mode chosen by hand (`--mode 1280x720@60`, `--mode 1920x1080@30/MJPG`,
///   `?mode=` in a source): the camera must have it, or the choice fails with its nearest modes.
/// - `.largest`: `--mode max`, the largest size the camera has, at its fastest rate there.
public enum ModeRequest: Sendable, Hashable, CustomStringConvertible {
    case deliver(size: ModeSize?, rate: Fraction?)
    case exact(size: ModeSize, rate: Fraction?, format: String?)
    case largest

    /// The default: nothing asked.
    public static let automatic = ModeRequest.deliver(size: nil, rate: nil)

    /// `WxH`, `WxH@RATE`, `WxH@RATE/FORMAT`, `WxH/FORMAT` or `max`; RATE as `30`, `7.5`, `29.97` or
    /// `30000/1001`; FORMAT a V4L2 code (`MJPG`, `YUYV`, `H264`…). The error says what is wrong
    /// in the value's own terms; the CLI adds the flag.
    public init(parsing text: String) throws(GpickError) {
        let t = text.trimmed()
        if t.lowercased() == "max" { self = .largest; return }
        let bad = { (why: String) in GpickError(.usage, "mode \"\(text)\": \(why); give WxH, WxH@FPS, WxH@FPS/FORMAT (such as 1920x1080@30/MJPG) or max") }
        var rest = Substring(t)
        var format: String? = nil
        // The format comes last, after the last slash that is not inside a rate's fraction.
        if let slash = rest.lastIndex(of: "/"), Int(rest[rest.index(after: slash)...]) == nil {
            let code = rest[rest.index(after: slash)...].uppercased()
            guard ModeFormat(fourcc: code) != nil else { throw bad("\(code) is not a format gpick can take (raw formats such as YUYV, NV12 or GREY; MJPG; H264)") }
            format = code
            rest = rest[..<slash]
        }
        var rate: Fraction? = nil
        if let at = rest.firstIndex(of: "@") {
            guard let r = ModeRate.parse(String(rest[rest.index(after: at)...])) else { throw bad("the frame rate is not a positive number") }
            rate = r
            rest = rest[..<at]
        }
        guard let size = ModeSize(parsing: String(rest)) else { throw bad("the size is not WxH") }
        self = .exact(size: size, rate: rate, format: format)
    }

    public var description: String {
        switch self {
        case .largest: return "max"
        case .deliver(nil, nil): return "default"
        case .deliver(let size, let rate):
            return "\(size.map(\.description) ?? "any size")\(rate.map { " @ \(ModeRate.text($0)) fps" } ?? "")"
        case .exact(let size, let rate, let format):
            return "\(size)\(rate.map { "@\(ModeRate.text($0))" } ?? "")\(format.map { "/\($0)" } ?? "")"
        }
    }
}

/// A size in pixels.
public struct ModeSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `1280x720` (also `1280X720`, `1280×720`).
    public init?(parsing text: String) {
        let parts = text.trimmed().split(omittingEmptySubsequences: false) { $0 == "x" || $0 == "X" || $0 == "×" }
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...65536).contains(w), (1...65536).contains(h) else { return nil }
        self.init(width: w, height: h)
    }

    public var area: Int { width * height }
    public var description: String { "\(width)x\(height)" }
}
