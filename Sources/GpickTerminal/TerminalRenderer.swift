/// Turns packed RGB frames into truecolor half-block text: each terminal cell shows two pixels,
/// the upper one as the foreground of `▀` and the lower one as the background. Pure: it returns
/// the bytes to write and remembers what it drew, so the next frame only redraws cells that
/// changed (a camera at 30 fps over SSH cannot afford a full screen of escapes every frame).
///
/// The image fills cell rows 1…⌈height/2⌉ from column 1; the status line, when given, goes on the
/// row below it, so size frames to two pixels per row of the terminal minus one.
public struct TerminalRenderer: Sendable {
    /// A cell is redrawn when a channel of either of its pixels is more than this far from what is
    /// on screen: sensor noise alone would otherwise redraw every cell of every frame.
    public var threshold: Int = 6

    private var width = 0
    private var height = 0
    /// What each cell shows: packed 0xRRGGBB, `defaultBackground` under an odd last row.
    private var shownTop: [UInt32] = []
    private var shownBottom: [UInt32] = []
    private var shownStatus: String?
    private var needsFull = true
    /// Reused output space, sized for the worst case; only the used prefix is returned.
    private var scratch: [UInt8] = []

    public init() {}

    /// Forces the next frame to clear the screen and draw everything (after a resize, or when
    /// something else wrote to the terminal).
    public mutating func invalidate() { needsFull = true }

    /// The bytes that bring the terminal from the previous frame to this one; empty when nothing
    /// visible changed. `rgb` holds `height` rows of `width` packed RGB pixels, `stride` bytes apart.
    /// Write every result: the next frame is a diff against it (after skipping one, `invalidate()`).
    public mutating func render(rgb: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int,
                                statusLine: String? = nil) -> [UInt8] {
        guard width > 0, height > 0, stride >= width * 3, rgb.count >= (height - 1) * stride + width * 3 else { return [] }
        let rows = (height + 1) / 2
        var full = needsFull
        if width != self.width || height != self.height {
            self.width = width
            self.height = height
            shownTop = [UInt32](repeating: 0, count: width * rows)
            shownBottom = shownTop
            full = true
        }
        let status = statusLine.map { Self.fit($0, to: width) }
        let drawStatus = full || status != shownStatus
        let statusBytes = drawStatus ? Array((status ?? "").utf8) : []
        // Worst case per cell: cursor move 14 + two colours 19 each + the glyph 3; slack for the
        // digit writer, which stores 3 bytes and then advances by the digit count.
        let capacity = width * rows * 56 + statusBytes.count + 96
        if scratch.count < capacity { scratch = [UInt8](repeating: 0, count: capacity) }

        var out = scratch
        scratch = []
        var top = shownTop
        var bottom = shownBottom
        shownTop = []
        shownBottom = []
        let used = out.withUnsafeMutableBufferPointer { o in
            top.withUnsafeMutableBufferPointer { t in
                bottom.withUnsafeMutableBufferPointer { b in
                    Self.decimals.withUnsafeBufferPointer { d in
                        var e = Emitter(p: o.baseAddress!, digits: d.baseAddress!)
                        e.text("\u{1B}[?2026h")  // synchronized update: terminals that know it show the frame whole
                        let header = e.n
                        if full { e.text("\u{1B}[0m\u{1B}[2J") }
                        Self.cells(rgb, width: width, height: height, stride: stride, full: full,
                                   threshold: UInt32(clamping: max(0, threshold)), top: t.baseAddress!, bottom: b.baseAddress!, into: &e)
                        if drawStatus && (status != nil || shownStatus != nil) {
                            e.cursor(row: rows + 1, column: 1)
                            e.text("\u{1B}[0m\u{1B}[2K")
                            for byte in statusBytes { e.byte(byte) }
                        }
                        if e.n == header { return 0 }
                        e.text("\u{1B}[0m\u{1B}[?2026l")
                        return e.n
                    }
                }
            }
        }
        scratch = out
        shownTop = top
        shownBottom = bottom
        shownStatus = status
        needsFull = false
        return Array(scratch[0..<used])
    }

    /// The cell loop: compares each cell with what is shown and emits only the differences,
    /// moving the cursor only where the previous glyph did not leave it.
    private static func cells(_ rgb: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int, full: Bool,
                              threshold: UInt32, top: UnsafeMutablePointer<UInt32>, bottom: UnsafeMutablePointer<UInt32>,
                              into e: inout Emitter) {
        let base = rgb.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var fg = unknownColour, bg = unknownColour
        var cursorRow = -1, cursorColumn = -1
        var y = 0, row = 0
        while y < height {
            let upper = base + y * stride
            let lower: UnsafePointer<UInt8>? = y + 1 < height ? upper + stride : nil
            var x = 0
            while x < width {
                let u = upper + x * 3
                let t = UInt32(u[0]) << 16 | UInt32(u[1]) << 8 | UInt32(u[2])
                var b = defaultBackground
                if let lower { let l = lower + x * 3; b = UInt32(l[0]) << 16 | UInt32(l[1]) << 8 | UInt32(l[2]) }
                let i = row * width + x
                if full || !near(top[i], t, threshold) || !near(bottom[i], b, threshold) {
                    top[i] = t
                    bottom[i] = b
                    if row != cursorRow || x != cursorColumn { e.cursor(row: row + 1, column: x + 1) }
                    if t != fg { e.colour(UInt8(ascii: "3"), t); fg = t }
                    if b != bg {
                        if b == defaultBackground { e.text("\u{1B}[49m") } else { e.colour(UInt8(ascii: "4"), b) }
                        bg = b
                    }
                    e.byte(0xE2); e.byte(0x96); e.byte(0x80)  // ▀
                    cursorRow = row
                    cursorColumn = x + 1
                }
                x += 1
            }
            y += 2
            row += 1
        }
    }

    /// Whether two shown colours are within `threshold` on every channel (the default
    /// background is never near a colour).
    @inline(__always)
    private static func near(_ a: UInt32, _ b: UInt32, _ threshold: UInt32) -> Bool {
        if a == b { return true }
        if (a ^ b) & 0xFF00_0000 != 0 { return false }
        @inline(__always) func d(_ s: UInt32) -> UInt32 {
            let x = (a >> s) & 0xFF, y = (b >> s) & 0xFF
            return x > y ? x - y : y - x
        }
        return d(16) <= threshold && d(8) <= threshold && d(0) <= threshold
    }

    /// Status text that fits one row: control characters become spaces (they would move the
    /// cursor or reprogram the terminal), and text wider than the row ends in "…".
    /// Counts one column per character, which holds for the Latin text gpick shows.
    static func fit(_ text: String, to width: Int) -> String {
        var clean = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            clean.append(s.value < 0x20 || (0x7F...0x9F).contains(s.value) ? " " : s)
        }
        let line = String(clean)
        guard line.count > width else { return line }
        return width > 0 ? String(line.prefix(width - 1)) + "…" : ""
    }

    private static let defaultBackground: UInt32 = 0x0100_0000
    private static let unknownColour: UInt32 = 0xFFFF_FFFF

    /// 4 bytes per value 0…255: the digit count, then the digits.
    private static let decimals: [UInt8] = (0..<256).flatMap { v -> [UInt8] in
        let s = Array(String(v).utf8)
        return [UInt8(s.count)] + s + [UInt8](repeating: 0, count: 3 - s.count)
    }
}

/// Writes escapes into space the caller sized for the worst case (no bounds or growth checks).
private struct Emitter {
    let p: UnsafeMutablePointer<UInt8>
    let digits: UnsafePointer<UInt8>
    var n = 0

    @inline(__always) mutating func byte(_ b: UInt8) {
        p[n] = b
        n &+= 1
    }

    @inline(__always) mutating func text(_ s: StaticString) {
        (p + n).update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        n &+= s.utf8CodeUnitCount
    }

    /// 0…255 from the table: store three bytes, keep as many as the value has digits.
    @inline(__always) mutating func decimal(_ v: Int) {
        if v < 256 {
            let d = digits + v &* 4
            p[n] = d[1]; p[n &+ 1] = d[2]; p[n &+ 2] = d[3]
            n &+= Int(d[0])
        } else {
            for c in String(v).utf8 { byte(c) }
        }
    }

    /// `ESC[<layer>8;2;R;G;Bm`: layer "3" sets the foreground, "4" the background.
    @inline(__always) mutating func colour(_ layer: UInt8, _ rgb: UInt32) {
        byte(0x1B); byte(UInt8(ascii: "[")); byte(layer); text("8;2;")
        decimal(Int(rgb >> 16 & 0xFF)); byte(UInt8(ascii: ";"))
        decimal(Int(rgb >> 8 & 0xFF)); byte(UInt8(ascii: ";"))
        decimal(Int(rgb & 0xFF)); byte(UInt8(ascii: "m"))
    }

    /// `ESC[row;colH`, 1-based.
    @inline(__always) mutating func cursor(row: Int, column: Int) {
        byte(0x1B); byte(UInt8(ascii: "["))
        decimal(row); byte(UInt8(ascii: ";"))
        decimal(column); byte(UInt8(ascii: "H"))
    }
}
