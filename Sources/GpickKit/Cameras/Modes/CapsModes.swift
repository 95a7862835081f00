import GpickBase
import GstCore

/// A camera's modes as GStreamer's caps hold them (a device's caps, v4l2src's answer when
/// opened), and a chosen mode as the caps of the filter right after the camera element.
public enum CapsModes {
    /// GStreamer's raw format names → V4L2's codes, for the formats cameras send.
    static let rawCodes: [String: String] = [
        "YUY2": "YUYV", "YVYU": "YVYU", "UYVY": "UYVY", "VYUY": "VYUY", "NV12": "NV12", "NV21": "NV21", "NV16": "NV16",
        "NV61": "NV61", "I420": "YU12", "YV12": "YV12", "Y42B": "422P", "GRAY8": "GREY", "GRAY16_LE": "Y16", "RGB": "RGB3",
        "BGR": "BGR3", "RGB16": "RGBP", "BGRx": "XR24", "BGRA": "AR24", "xRGB": "BX24", "ARGB": "BA24", "RGBx": "XB24", "RGBA": "AB24",
    ]
    static let gstNames: [String: String] = Dictionary(rawCodes.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })

    /// The offers in `structures` that gpick can take: raw formats it knows, JPEG, H.264.
    public static func offers(from structures: [CapsStructure]) -> [ModeOffer] {
        var out: [ModeOffer] = []
        for s in structures {
            let codes: [String]
            switch s.mediaType {
            case "video/x-raw": codes = (s["format"]?.strings ?? []).compactMap { rawCodes[$0] }
            case "image/jpeg": codes = ["MJPG"]
            case "video/x-h264": codes = ["H264"]
            default: codes = []
            }
            guard let sizes = sizes(s) else { continue }
            let rates = Self.rates(s["framerate"])
            for code in codes {
                guard let format = ModeFormat(fourcc: code) else { continue }
                for size in sizes {
                    let offer = ModeOffer(format: format, sizes: size, rates: rates)
                    if !out.contains(offer) { out.append(offer) }
                }
            }
        }
        return out
    }

    static func sizes(_ s: CapsStructure) -> [ModeSizes]? {
        guard let w = s["width"], let h = s["height"] else { return nil }
        switch (w, h) {
        case (.int(let w), .int(let h)): return [.discrete(width: w, height: h)]
        case (.list(let ws), .list(let hs)) where ws.count == hs.count:
            return zip(ws, hs).compactMap { a, b in
                guard case .int(let w) = a, case .int(let h) = b else { return nil }
                return .discrete(width: w, height: h)
            }
        default:
            guard let wr = w.intBounds, let hr = h.intBounds else { return nil }
            return [.stepwise(minWidth: wr.lowerBound, minHeight: hr.lowerBound, maxWidth: wr.upperBound, maxHeight: hr.upperBound,
                              stepWidth: 1, stepHeight: 1)]
        }
    }

    static func rates(_ value: CapsValue?) -> ModeRates {
        switch value {
        case .fraction(let f)?: return f.numerator > 0 ? .discrete([f]) : .unlisted
        case .fractionRange(let r)?:
            // "any rate" ([0/1, 2147483647/1]) says nothing.
            return r.upperBound.value >= 1000 && r.lowerBound.value <= 0 ? .unlisted : .range(max(r.lowerBound, Fraction(1, 1))...r.upperBound)
        case .list(let l)?:
            let fs = l.compactMap { v -> Fraction? in if case .fraction(let f) = v, f.numerator > 0 { return f } else { return nil } }
            return fs.isEmpty ? .unlisted : .discrete(fs)
        default: return .unlisted
        }
    }

    /// The filter's caps for `mode`: its format, size and (when the camera lists rates) rate.
    public static func caps(for mode: CameraMode) -> String {
        let rate = mode.rateListed ? ",framerate=\(mode.framerate)" : ""
        let size = "width=\(mode.width),height=\(mode.height)"
        switch mode.format.encoding {
        case .mjpeg: return "image/jpeg,\(size)\(rate)"
        case .h264: return "video/x-h264,\(size)\(rate)"
        case .raw: return "video/x-raw,format=\(gstNames[mode.format.fourcc] ?? mode.format.fourcc),\(size)\(rate)"
        }
    }

    /// One line of a camera's table as the caps its element advertises (the reverse of
    /// `offers(from:)`): what a device source says it can give, for an element that stands in
    /// for one.
    public static func caps(for offer: ModeOffer) -> String {
        let media: String
        switch offer.format.encoding {
        case .mjpeg: media = "image/jpeg"
        case .h264: media = "video/x-h264,stream-format=byte-stream,alignment=au"
        case .raw: media = "video/x-raw,format=\(gstNames[offer.format.fourcc] ?? offer.format.fourcc)"
        }
        let size: String
        switch offer.sizes {
        case .discrete(let w, let h): size = "width=\(w),height=\(h)"
        case .stepwise(let w0, let h0, let w1, let h1, let sw, let sh):
            size = "width=[\(w0),\(w1),\(max(sw, 1))],height=[\(h0),\(h1),\(max(sh, 1))]"
        }
        let rate: String
        switch offer.rates {
        case .discrete(let fs): rate = fs.count == 1 ? "\(fs[0].numerator)/\(fs[0].denominator)"
            : "{" + fs.map { "\($0.numerator)/\($0.denominator)" }.joined(separator: ",") + "}"
        case .range(let r):
            rate = "[\(r.lowerBound.numerator)/\(r.lowerBound.denominator),\(r.upperBound.numerator)/\(r.upperBound.denominator)]"
        case .unlisted: rate = "[0/1,2147483647/1]"
        }
        return "\(media),\(size),framerate=\(rate)"
    }

    /// The modes a camera element advertises: opened (READY) and asked. It is left open, so the
    /// element that asked streams without probing the device again; one that cannot open goes
    /// back to NULL and the answer is empty (the camera's own error comes when it starts).
    /// Blocking (it opens the device).
    @available(*, noasync, message: "it opens the device: run it off the cooperative pool")
    public static func probe(_ src: Element) -> [CapsStructure] {
        guard (try? src.setState(.ready)) != nil, let caps = src.staticPad("src")?.queryCaps() else {
            _ = try? src.setState(.null)
            return []
        }
        return caps.structures
    }
}
