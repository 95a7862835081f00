import FoundationEssentials
import Glibc
import GpickBase
import GstCore

/// A camera's table as `v4l2-ctl --list-formats-ext` prints it, the way users paste it into bug
/// reports: the current layout (`[0]: 'YUYV' (YUYV 4:2:2)`) and the old one (`Index : 0`,
/// `Pixel Format: 'YUYV'`), alone or inside `--all` output, with or without a log's prefix on
/// each line (`/dev/video0 | `, `[06/16/22 10:07:47] crowsnest: `). Only capture formats count.
public struct V4L2FormatListing: Sendable {
    /// The formats gpick can take, one offer per size.
    public var offers: [ModeOffer] = []
    /// Formats listed that gpick cannot take ("S920", "HEVC"), in listing order.
    public var skipped: [String] = []
    /// The camera's name, when the listing has its "Card type" line.
    public var card: String?

    public init(parsing text: String) {
        var format: ModeFormat? = nil
        var inFormat = false
        var capture = true
        var sawIndex = false
        var size: ModeSizes? = nil
        var rates: [Fraction] = []
        var range: ClosedRange<Fraction>? = nil

        func flush() {
            guard let size, let format, inFormat, capture else { return }
            let r: ModeRates = range.map { .range($0) } ?? (rates.isEmpty ? .unlisted : .discrete(rates))
            // Some firmware lists a size twice: once is enough.
            let offer = ModeOffer(format: format, sizes: size, rates: r)
            if !offers.contains(offer) { offers.append(offer) }
        }
        func begin(_ code: String) {
            flush()
            size = nil; rates = []; range = nil
            inFormat = capture
            format = ModeFormat(fourcc: code)
            if format == nil, capture, !skipped.contains(code.trimmed()) { skipped.append(code.trimmed()) }
        }

        for raw in text.split(whereSeparator: \.isNewline) {
            let line = Substring(raw)
            // A shell's or a note's comment line, not v4l2-ctl's output.
            if line.trimmed().hasPrefix("#") { continue }
            if let card = Self.value(after: "Card type", in: line), self.card == nil { self.card = card }
            if line.contains("ioctl: VIDIOC_ENUM_FMT") { flush(); inFormat = false; size = nil; continue }
            // "Type: Video Capture" (a section of the listing; "Video Output" ones are skipped), or
            // "Type        : Video Capture" in an old layout's block.
            if let type = Self.value(after: "Type", in: line), type.hasPrefix("Video") { capture = type.contains("Capture") }
            if Self.value(after: "Index", in: line).flatMap({ Int($0) }) != nil { sawIndex = true; continue }
            if let code = Self.newFormat(line) { begin(code); continue }
            if sawIndex, let code = Self.quoted(after: "Pixel Format", in: line) { sawIndex = false; begin(code); continue }
            if let rest = Self.token("Size:", in: line) {
                flush()
                size = Self.sizes(rest)
                rates = []
                range = nil
                continue
            }
            if let rest = Self.token("Interval:", in: line), size != nil {
                switch Self.interval(rest) {
                case .some(.discrete(let r)): if !rates.contains(r) { rates.append(r) }
                case .some(.range(let r)): range = r
                default: break
                }
                continue
            }
            // Anything else at the left margin (after a prefix) ends the format list of --all.
            if Self.isSectionHeader(line) { flush(); inFormat = false; size = nil }
        }
        flush()
    }

    // MARK: - Line pieces

    /// What follows `word` in the line, wherever a log prefix put it.
    static func token(_ word: String, in line: Substring) -> Substring? {
        guard let r = line.firstRange(of: word) else { return nil }
        return line[r.upperBound...]
    }

    /// "NAME   : value" → "value".
    static func value(after name: String, in line: Substring) -> String? {
        guard let rest = token(name, in: line) else { return nil }
        let t = rest.drop { $0 == " " || $0 == "\t" }
        guard t.first == ":" else { return nil }
        return t.dropFirst().trimmed()
    }

    /// "Pixel Format: 'YUYV'" → "YUYV".
    static func quoted(after name: String, in line: Substring) -> String? {
        guard let rest = token(name, in: line), let open = rest.firstIndex(of: "'") else { return nil }
        let after = rest[rest.index(after: open)...]
        guard let close = after.firstIndex(of: "'") else { return nil }
        return String(after[..<close])
    }

    /// "[3]: 'MJPG' (Motion-JPEG, compressed)" → "MJPG".
    static func newFormat(_ line: Substring) -> String? {
        var search = line[...]
        while let open = search.firstIndex(of: "[") {
            let digits = search[search.index(after: open)...].prefix { $0.isNumber }
            let after = search[digits.endIndex...]
            if !digits.isEmpty, after.hasPrefix("]: '") {
                let code = after.dropFirst(4)
                if let close = code.firstIndex(of: "'") { return String(code[..<close]) }
            }
            search = search[search.index(after: open)...]
        }
        return nil
    }

    /// A line of --all that starts a section other than the format list ("Format Video Capture:",
    /// "User Controls"): a word at the left margin, after any log prefix.
    static func isSectionHeader(_ line: Substring) -> Bool {
        let t = line.trimmed()
        return t.hasPrefix("Format Video") || t.hasSuffix("Controls") || t.hasPrefix("Streaming Parameters")
            || t.hasPrefix("Crop Capability") || t.hasPrefix("Driver Info")
    }

    /// "Discrete 640x480", "Stepwise 32x32 - 2592x1944 with step 2/2", "Continuous 1x1 - 1920x1080".
    static func sizes(_ rest: Substring) -> ModeSizes? {
        let words = rest.split(separator: " ")
        guard let kind = words.first else { return nil }
        func size(_ s: Substring) -> (Int, Int)? {
            let p = s.split(separator: "x")
            guard p.count == 2, let w = Int(p[0]), let h = Int(p[1]) else { return nil }
            return (w, h)
        }
        switch kind {
        case "Discrete":
            guard words.count >= 2, let (w, h) = size(words[1]) else { return nil }
            return .discrete(width: w, height: h)
        case "Stepwise", "Continuous":
            guard words.count >= 4, let (w0, h0) = size(words[1]), let (w1, h1) = size(words[3]) else { return nil }
            var step = (1, 1)
            if let s = words.last, kind == "Stepwise" {
                let p = s.split(separator: "/")
                if p.count == 2, let a = Int(p[0]), let b = Int(p[1]) { step = (a, b) }
            }
            return .stepwise(minWidth: w0, minHeight: h0, maxWidth: w1, maxHeight: h1, stepWidth: step.0, stepHeight: step.1)
        default:
            return nil
        }
    }

    enum Interval { case discrete(Fraction), range(ClosedRange<Fraction>) }

    /// "Discrete 0.033s (30.000 fps)"; "Stepwise 0.033s - 1.000s with step 0.000s (1.000-30.000 fps)";
    /// "Continuous 0.033s - 1.000s (1.000-30.000 fps)". The rate in parentheses is the one kept:
    /// it has more digits than the interval.
    static func interval(_ rest: Substring) -> Interval? {
        guard let open = rest.lastIndex(of: "("), let close = rest.lastIndex(of: ")"), open < close else { return nil }
        let inside = rest[rest.index(after: open)..<close].replacing(" fps", with: "")
        let parts = inside.split(separator: "-")
        if parts.count == 2, let a = Double(parts[0]), let b = Double(parts[1]), a > 0, b >= a {
            return .range(ModeRate.fromDecimal(a)...ModeRate.fromDecimal(b))
        }
        guard let v = Double(inside.trimmed()), v > 0 else { return nil }
        return .discrete(ModeRate.fromDecimal(v))
    }
}

extension V4L2FormatListing {
    /// The listing in the file at `path` (`-`: standard input); one that holds no format list is
    /// an error that says so.
    public static func read(path: String) throws(GpickError) -> V4L2FormatListing {
        let name = path == "-" ? "standard input" : path
        let listing = V4L2FormatListing(parsing: try ListingText.read(path))
        guard !listing.offers.isEmpty else {
            if !listing.skipped.isEmpty {
                throw GpickError(.input, "\(name): the camera lists only formats gpick cannot take (\(listing.skipped.joined(separator: ", ")))")
            }
            throw GpickError(.input, "\(name): no format list found (v4l2-ctl's list of formats, with their sizes and frame intervals)")
        }
        return listing
    }
}
