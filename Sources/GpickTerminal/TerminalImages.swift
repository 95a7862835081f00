/// Pictures in terminals, beside the half-block `TerminalRenderer`: the kitty graphics protocol
/// and DEC sixel, and the probe that tells which of them a terminal speaks. Pure: every function
/// returns the bytes to write, so none of it needs a terminal to test.

/// How the picker draws pictures; `blocks` is truecolor half blocks (`TerminalRenderer`).
public enum TerminalGraphics: String, Sendable {
    case kitty, sixel, blocks
}

/// Packed 8-bit RGB → one sixel DCS sequence.
///
/// The palette is fixed, not fitted to the image, so encoding is one arithmetic pass with no
/// search: a 6×7×6 RGB cube (252 colours; green gets the extra level because the eye resolves it
/// best) plus 4 pure greys (51, 102, 153, 204) so that, with the cube's black and white, greys have
/// a 6-step ramp of their own and neutral areas show no green/magenta cast. Pixels whose channels
/// lie within `greyChroma` of each other go down the grey ramp, all others to the cube. A 4×4 Bayer
/// ordered dither hides the banding of 6 levels; its offset stays below half a level step, so colours
/// on the palette (pure red, black, white…) come back exact, and it is stateless and
/// deterministic (the same frame encodes to the same bytes; no error diffusion crawling over video).
public enum SixelEncoder {
    /// Largest max−min channel spread still treated as grey.
    static let greyChroma = 12

    /// The 256 palette colours, packed 0xRRGGBB: the cube at r·42 + g·6 + b, the greys at 252…255.
    static let palette: [UInt32] = {
        var p: [UInt32] = []
        for r in 0..<6 {
            for g in 0..<7 {
                for b in 0..<6 { p.append(UInt32(r * 51) << 16 | UInt32((g * 255 + 3) / 6) << 8 | UInt32(b * 51)) }
            }
        }
        for v in [51, 102, 153, 204] as [UInt32] { p.append(v << 16 | v << 8 | v) }
        return p
    }()

    public static func encode(rgb: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) -> [UInt8] {
        guard validImage(rgb, width: width, height: height, stride: stride) else { return [] }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, width <= Int(Int32.max) else { return [] }

        // 1. Quantise to palette indices.
        var indices = [UInt8](repeating: 0, count: pixels)
        var used = [Bool](repeating: false, count: 256)
        let bayer: [Int] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5]
        // Dither offsets for a level step of 51 (red, blue, greys) and 42.5 (green): ±23 and ±19,
        // both under half a step.
        let off6 = bayer.map { (2 * $0 - 15) * 51 / 32 }
        let off7 = bayer.map { (2 * $0 - 15) * 85 / 64 }
        // Grey ramp level → palette index: black, the four greys, white.
        let greyIndex: [UInt8] = [0, 252, 253, 254, 255, 251]
        @inline(__always) func clamp(_ v: Int) -> Int { v < 0 ? 0 : (v > 255 ? 255 : v) }
        indices.withUnsafeMutableBufferPointer { idx in
            used.withUnsafeMutableBufferPointer { used in
                for y in 0..<height {
                    let row = y * stride
                    for x in 0..<width {
                        let p = row + x * 3
                        let r = Int(rgb[p]), g = Int(rgb[p + 1]), b = Int(rgb[p + 2])
                        let t = (y & 3) << 2 | (x & 3)
                        let i: UInt8
                        if max(r, g, b) - min(r, g, b) <= greyChroma {
                            let level = (clamp((r + g + b + 1) / 3 + off6[t]) * 5 + 127) / 255
                            i = greyIndex[level]
                        } else {
                            let rl = (clamp(r + off6[t]) * 5 + 127) / 255
                            let gl = (clamp(g + off7[t]) * 6 + 127) / 255
                            let bl = (clamp(b + off6[t]) * 5 + 127) / 255
                            i = UInt8(truncatingIfNeeded: rl * 42 + gl * 6 + bl)
                        }
                        idx[y * width + x] = i
                        used[Int(i)] = true
                    }
                }
            }
        }

        // 2. DCS 0;1;0 q: P2=1, pixels not drawn keep the background (every pixel is drawn anyway);
        // raster attributes "1;1;W;H: square pixels and the image size. Then the registers, numbered
        // densely in palette order and defined (RGB percent) only for the colours used.
        var register = [Int](repeating: 0, count: 256)
        var out: [UInt8] = []
        out.reserveCapacity(pixels / 2 + 8192)
        out += [0x1B, UInt8(ascii: "P")]
        out += Array("0;1;0q\"1;1;".utf8)
        appendDecimal(width, to: &out)
        out.append(UInt8(ascii: ";"))
        appendDecimal(height, to: &out)
        var registers = 0
        for c in 0..<256 where used[c] {
            register[c] = registers
            let rgb = palette[c]
            out.append(UInt8(ascii: "#"))
            appendDecimal(registers, to: &out)
            out += Array(";2;".utf8)
            appendDecimal(percent(rgb >> 16), to: &out)
            out.append(UInt8(ascii: ";"))
            appendDecimal(percent(rgb >> 8), to: &out)
            out.append(UInt8(ascii: ";"))
            appendDecimal(percent(rgb), to: &out)
            registers += 1
        }

        // 3. Bands of six rows: one pass sets each colour's sixel bits, then each colour present is
        // written from its first to its last column, run-length encoded, and its bits cleared.
        var bits = [UInt8](repeating: 0, count: 256 * width)
        var first = [Int](repeating: Int.max, count: 256)
        var last = [Int](repeating: -1, count: 256)
        var colours: [Int] = []
        colours.reserveCapacity(256)
        indices.withUnsafeBufferPointer { idx in
            bits.withUnsafeMutableBufferPointer { bits in
                for band in Swift.stride(from: 0, to: height, by: 6) {
                    if band > 0 { out.append(UInt8(ascii: "-")) }
                    colours.removeAll(keepingCapacity: true)
                    for r in 0..<min(6, height - band) {
                        let row = (band + r) * width
                        let bit = UInt8(1) << r
                        for x in 0..<width {
                            let c = Int(idx[row + x])
                            if last[c] < 0 { colours.append(c) }
                            if x < first[c] { first[c] = x }
                            if x > last[c] { last[c] = x }
                            bits[c * width + x] |= bit
                        }
                    }
                    for (n, c) in colours.enumerated() {
                        if n > 0 { out.append(UInt8(ascii: "$")) }
                        out.append(UInt8(ascii: "#"))
                        appendDecimal(register[c], to: &out)
                        let base = c * width
                        if first[c] > 0 { appendRun(63, count: first[c], to: &out) }
                        var x = first[c]
                        while x <= last[c] {
                            let v = bits[base + x]
                            var end = x + 1
                            while end <= last[c], bits[base + end] == v { end += 1 }
                            appendRun(63 + v, count: end - x, to: &out)
                            for k in x..<end { bits[base + k] = 0 }
                            x = end
                        }
                        first[c] = Int.max
                        last[c] = -1
                    }
                }
            }
        }
        out += [0x1B, UInt8(ascii: "\\")]
        return out
    }

    /// 0…255 → 0…100, rounded.
    static func percent(_ channel: UInt32) -> Int { (Int(channel & 0xFF) * 100 + 127) / 255 }

    @inline(__always) static func appendRun(_ char: UInt8, count: Int, to out: inout [UInt8]) {
        if count >= 4 {
            out.append(UInt8(ascii: "!"))
            appendDecimal(count, to: &out)
            out.append(char)
        } else {
            for _ in 0..<count { out.append(char) }
        }
    }
}

/// The kitty graphics protocol (https://sw.kovidgoyal.net/kitty/graphics-protocol/): images are
/// transmitted once under an id and then placed, possibly many times, without resending pixels.
/// Every command carries q=2 so the terminal never answers: a reply would land in the picker's
/// keyboard input.
public enum KittyGraphics {
    /// The protocol's limit on the payload of one escape sequence.
    static let chunk = 4096

    /// Transmits packed RGB under `id` without displaying it. Rows are repacked without padding.
    public static func transmit(id: UInt32, rgb: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) -> [UInt8] {
        guard validImage(rgb, width: width, height: height, stride: stride) else { return [] }
        let rowBytes = width * 3
        var raw = [UInt8]()
        raw.reserveCapacity(rowBytes * height)
        for y in 0..<height {
            raw += UnsafeRawBufferPointer(rebasing: rgb[y * stride..<y * stride + rowBytes])
        }
        let payload = base64(raw)
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + payload.count / chunk * 16 + 64)
        var start = 0
        while start < payload.count {
            let end = min(start + chunk, payload.count)
            let more = end < payload.count ? "1" : "0"
            // Only the first chunk names the image; the rest carry m (and q) alone.
            let keys = start == 0 ? "a=t,f=24,s=\(width),v=\(height),i=\(id),q=2,m=\(more)" : "m=\(more),q=2"
            out += [0x1B, UInt8(ascii: "_"), UInt8(ascii: "G")]
            out += Array(keys.utf8)
            out.append(UInt8(ascii: ";"))
            out += payload[start..<end]
            out += [0x1B, UInt8(ascii: "\\")]
            start = end
        }
        return out
    }

    /// Shows image `id` at the cursor, scaled to `columns`×`rows` cells, as placement `placement`
    /// (placing again with the same pair replaces it). C=1: the cursor stays where it is.
    public static func place(id: UInt32, placement: UInt32, columns: Int, rows: Int) -> [UInt8] {
        command("a=p,i=\(id),p=\(placement),c=\(columns),r=\(rows),C=1,q=2")
    }

    /// Removes every placement of image `id` but keeps its data, to be placed again.
    public static func deletePlacements(id: UInt32) -> [UInt8] { command("a=d,d=i,i=\(id),q=2") }

    /// Removes every image and placement, freeing their data (on leaving the picker).
    public static func deleteAll() -> [UInt8] { command("a=d,d=A,q=2") }

    static func command(_ keys: String) -> [UInt8] {
        [0x1B, UInt8(ascii: "_"), UInt8(ascii: "G")] + Array(keys.utf8) + [0x1B, UInt8(ascii: "\\")]
    }

    /// Standard base64 (RFC 4648, with padding).
    static func base64(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out = [UInt8](repeating: UInt8(ascii: "="), count: (bytes.count + 2) / 3 * 4)
        out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { b in
                var i = 0, j = 0
                while i + 3 <= b.count {
                    let v = Int(b[i]) << 16 | Int(b[i + 1]) << 8 | Int(b[i + 2])
                    o[j] = alphabet[v >> 18]
                    o[j + 1] = alphabet[v >> 12 & 63]
                    o[j + 2] = alphabet[v >> 6 & 63]
                    o[j + 3] = alphabet[v & 63]
                    i += 3
                    j += 4
                }
                let rest = b.count - i
                if rest > 0 {
                    let v = Int(b[i]) << 16 | (rest == 2 ? Int(b[i + 1]) << 8 : 0)
                    o[j] = alphabet[v >> 18]
                    o[j + 1] = alphabet[v >> 12 & 63]
                    if rest == 2 { o[j + 2] = alphabet[v >> 6 & 63] }
                }
            }
        }
        return out
    }
}

/// Learns which graphics a terminal supports: write `query`, then feed what the terminal sends
/// back until `feed` returns true (or a timeout passes: then call `finish()` and use `choice`).
/// The kitty query asks whether a 1×1 image would load (kitty, WezTerm, Ghostty, Konsole answer
/// OK); the DA1 request after it is answered by every terminal, and lists 4 when it does sixel.
/// A terminal answers in order, so a kitty reply, if any, comes before DA1's. The OSC 11 query
/// between them asks for the terminal's background colour (xterm's dynamic colours; tmux answers
/// with its pane's), so that a picker can choose a light or a dark palette.
public struct TerminalGraphicsProbe: Sendable {
    public static let query: [UInt8] = Array("\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\".utf8) + backgroundQuery
    /// The background colour query alone, then DA1 (whose answer says that no more is coming).
    public static let backgroundQuery: [UInt8] = Array("\u{1B}]11;?\u{1B}\\\u{1B}[c".utf8)

    /// Bytes fed that were not part of a reply: keys the user typed meanwhile, to be handled as input.
    public var leftover: [UInt8] = []
    /// The terminal answered the kitty graphics query with OK.
    public var kitty = false
    /// The DA1 reply lists 4 (sixel graphics).
    public var sixel = false
    /// The DA1 reply has arrived: nothing more is coming.
    public var answered = false
    public var choice: TerminalGraphics { kitty ? .kitty : (sixel ? .sixel : .blocks) }
    /// The terminal's background as 0xRRGGBB, when it answered the OSC 11 query.
    public var background: UInt32?

    /// An escape sequence being read, from its ESC (replies may arrive split over many reads).
    private var sequence: [UInt8] = []

    public init() {}

    /// Reads more of the terminal's input; true once the DA1 reply has been seen. Bytes after it
    /// go to `leftover` untouched.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> Bool {
        for b in bytes {
            if answered { leftover.append(b) } else { step(b) }
        }
        return answered
    }

    /// Gives up waiting (timeout): a partial sequence was not a reply, so it goes to `leftover`.
    public mutating func finish() {
        leftover += sequence
        sequence = []
    }

    private mutating func step(_ b: UInt8) {
        let esc: UInt8 = 0x1B
        if sequence.isEmpty {
            if b == esc { sequence = [b] } else { leftover.append(b) }
            return
        }
        if sequence.count == 1 {
            switch b {
            case UInt8(ascii: "["), UInt8(ascii: "_"), UInt8(ascii: "]"): sequence.append(b)
            case esc: leftover.append(esc)   // a lone Escape key; this ESC may start a reply
            default: leftover += [esc, b]; sequence = []   // Alt+key
            }
            return
        }
        if sequence[1] == UInt8(ascii: "[") {
            switch b {
            case 0x20...0x3F where sequence.count < 64:   // parameters and intermediates
                sequence.append(b)
            case 0x40...0x7E:
                sequence.append(b)
                finishCSI()
            default:   // not a well-formed CSI: what came so far was typed; b starts afresh
                leftover += sequence
                sequence = []
                step(b)
            }
            return
        }
        // OSC may also end with BEL.
        if sequence[1] == UInt8(ascii: "]") && b == 0x07 {
            finishOSC(sequence[2...])
            sequence = []
            return
        }
        // APC and OSC, ended by ST (ESC \); an ESC followed by anything else abandons it.
        if sequence.last == esc && b != UInt8(ascii: "\\") {
            sequence = [esc]
            step(b)
            return
        }
        sequence.append(b)
        if b == UInt8(ascii: "\\") && sequence[sequence.count - 2] == esc {
            if sequence[1] == UInt8(ascii: "]") { finishOSC(sequence[2..<sequence.count - 2]) } else { finishAPC(sequence[2..<sequence.count - 2]) }
            sequence = []
        } else if sequence.count > 4096 {
            sequence = []   // no reply of ours is this long
        }
    }

    private mutating func finishCSI() {
        let s = sequence
        sequence = []
        guard s.count >= 4, s[2] == UInt8(ascii: "?"), s.last == UInt8(ascii: "c") else {
            leftover += s   // a key such as an arrow (ESC [ A)
            return
        }
        sixel = s[3..<s.count - 1].split(separator: UInt8(ascii: ";")).contains { Array($0) == [UInt8(ascii: "4")] }
        answered = true
    }

    /// `11;rgb:RRRR/GGGG/BBBB`, each channel 1 to 4 hex digits (scaled to 8 bits).
    private mutating func finishOSC(_ body: ArraySlice<UInt8>) {
        let text = String(decoding: body, as: UTF8.self)
        guard text.hasPrefix("11;rgb:") else { return }
        let channels = text.dropFirst(7).split(separator: "/", omittingEmptySubsequences: false)
        guard channels.count == 3 else { return }
        var rgb: UInt32 = 0
        for c in channels {
            guard (1...4).contains(c.count), let v = UInt32(c, radix: 16) else { return }
            let top = (UInt32(1) << (4 * UInt32(c.count))) - 1
            rgb = rgb << 8 | (v * 255 + top / 2) / top
        }
        background = rgb
    }

    private mutating func finishAPC(_ body: ArraySlice<UInt8>) {
        guard body.first == UInt8(ascii: "G") else { return }
        let parts = body.dropFirst().split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return }
        let keys = parts[0].split(separator: UInt8(ascii: ","))
        if keys.contains(where: { Array($0) == Array("i=31".utf8) }) && Array(parts[1]) == Array("OK".utf8) {
            kitty = true
        }
    }
}

/// At least one pixel, rows of at least `width` pixels, and all of them inside `rgb`.
fileprivate func validImage(_ rgb: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int) -> Bool {
    guard width > 0, height > 0, width <= Int.max / 3, stride >= width * 3 else { return false }
    let (span, o1) = (height - 1).multipliedReportingOverflow(by: stride)
    let (end, o2) = span.addingReportingOverflow(width * 3)
    return !o1 && !o2 && rgb.count >= end
}

/// Appends `v` (≥ 0) in decimal ASCII.
@inline(__always) fileprivate func appendDecimal(_ v: Int, to out: inout [UInt8]) {
    if v < 10 { out.append(UInt8(48 + v)); return }
    var divisor = 10
    while divisor <= v / 10 { divisor *= 10 }
    var rest = v
    while divisor > 0 {
        out.append(UInt8(48 + rest / divisor))
        rest %= divisor
        divisor /= 10
    }
}
