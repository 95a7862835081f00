/// What one terminal cell shows: a character with its colours and style, or part of a picture
/// that a graphics protocol (kitty, sixel) draws over the text, which the canvas then leaves alone.
public struct Glyph: Equatable, Sendable {
    /// One grapheme of width 1 (text the picker writes is cut to fit).
    public var text: Character = " "
    /// 0xRRGGBB; `Glyph.none` for the terminal's default colour.
    public var fg: UInt32 = Glyph.none
    public var bg: UInt32 = Glyph.none
    public var bold = false
    public var reverse = false
    /// Non-zero: this cell is under picture `image` (drawn by kitty or sixel, not as text).
    public var image: UInt32 = 0

    public init(text: Character = " ", fg: UInt32 = Glyph.none, bg: UInt32 = Glyph.none, bold: Bool = false, reverse: Bool = false,
                image: UInt32 = 0) {
        self.text = text
        self.fg = fg
        self.bg = bg
        self.bold = bold
        self.reverse = reverse
        self.image = image
    }

    public static let none: UInt32 = 0x0100_0000
    public static let blank = Glyph()

    /// A half-block pixel pair: the upper pixel as `▀`'s colour, the lower as the background.
    public static func pixels(top: UInt32, bottom: UInt32) -> Glyph { Glyph(text: "▀", fg: top, bg: bottom) }

    /// Whether `other` looks the same: pixel pairs a few levels apart count as equal, so sensor
    /// noise does not redraw the camera cell's every glyph.
    public func looksLike(_ other: Glyph) -> Bool {
        if self == other { return true }
        guard text == "▀", other.text == "▀", image == 0, other.image == 0, bold == other.bold, reverse == other.reverse else { return false }
        return Self.near(fg, other.fg) && Self.near(bg, other.bg)
    }

    private static func near(_ a: UInt32, _ b: UInt32) -> Bool {
        if a == b { return true }
        if a == none || b == none { return false }
        for shift in [16, 8, 0] as [UInt32] {
            let x = Int((a >> shift) & 0xFF), y = Int((b >> shift) & 0xFF)
            if abs(x - y) > 6 { return false }
        }
        return true
    }
}

/// A screenful of glyphs. A picker composes each frame here, and `diff` writes only what
/// changed since the frame on screen, so a live camera cell redraws itself and nothing else.
public struct TerminalCanvas: Sendable {
    public let columns: Int
    public let rows: Int
    public private(set) var glyphs: [Glyph]

    public init(columns: Int, rows: Int) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        glyphs = [Glyph](repeating: .blank, count: self.columns * self.rows)
    }

    public subscript(row: Int, column: Int) -> Glyph {
        get { glyphs[(row - 1) * columns + (column - 1)] }
        set {
            guard row >= 1, row <= rows, column >= 1, column <= columns else { return }
            glyphs[(row - 1) * columns + (column - 1)] = newValue
        }
    }

    /// Writes `text` from (row, column), at most `width` cells, cut with "…"; control characters
    /// become spaces (a file name must never move the cursor or reprogram the terminal).
    public mutating func write(_ text: String, row: Int, column: Int, width: Int, style: Glyph = .blank) {
        guard width > 0, row >= 1, row <= rows else { return }
        var characters = text.map { c -> Character in
            c.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } ? " " : c
        }
        if characters.count > width { characters = Array(characters.prefix(width - 1)) + ["…"] }
        for (i, c) in characters.enumerated() where column + i <= columns {
            var g = style
            g.text = c
            self[row, column + i] = g
        }
    }

    /// Fills a rectangle with one glyph.
    public mutating func fill(row: Int, column: Int, width: Int, height: Int, with glyph: Glyph) {
        for r in row..<(row + height) where r >= 1 && r <= rows {
            for c in column..<(column + width) where c >= 1 && c <= columns { self[r, c] = glyph }
        }
    }

    /// Draws packed RGB pixels (two per cell, stacked) with their top-left at (row, column).
    public mutating func pixels(_ rgb: [UInt8], width: Int, height: Int, stride: Int, row: Int, column: Int) {
        guard width > 0, height > 0, rgb.count >= (height - 1) * stride + width * 3 else { return }
        rgb.withUnsafeBufferPointer { p in
            func colour(_ x: Int, _ y: Int) -> UInt32 {
                let o = y * stride + x * 3
                return UInt32(p[o]) << 16 | UInt32(p[o + 1]) << 8 | UInt32(p[o + 2])
            }
            var y = 0
            while y < height {
                for x in 0..<width {
                    self[row + y / 2, column + x] = .pixels(top: colour(x, y), bottom: y + 1 < height ? colour(x, y + 1) : Glyph.none)
                }
                y += 2
            }
        }
    }

    /// The bytes that bring the screen from `shown` (nil: unknown, so everything is drawn) to
    /// this canvas; `shown` becomes what the screen then holds (a glyph within the noise
    /// tolerance keeps its old colours, so slow drift still redraws once it adds up).
    /// Cells under a picture are skipped: the picture protocol draws them.
    public func update(_ shown: inout TerminalCanvas?) -> [UInt8] {
        let full = shown == nil || shown!.columns != columns || shown!.rows != rows
        var screen = full ? TerminalCanvas(columns: columns, rows: rows) : shown!
        var out: [UInt8] = []
        out.reserveCapacity(full ? columns * rows * 4 : 256)
        if full { out += Array("\u{1B}[0m\u{1B}[2J".utf8) }
        var pen: Glyph? = nil
        var cursor = (row: -1, column: -1)
        for row in 1...rows {
            for column in 1...columns {
                let i = (row - 1) * columns + (column - 1)
                let g = glyphs[i]
                if g.image != 0 { screen.glyphs[i] = g; continue }
                if !full && screen.glyphs[i].looksLike(g) { continue }
                screen.glyphs[i] = g
                if cursor != (row, column) { out += Array("\u{1B}[\(row);\(column)H".utf8) }
                if pen == nil || pen!.fg != g.fg || pen!.bg != g.bg || pen!.bold != g.bold || pen!.reverse != g.reverse {
                    out += Self.sgr(g)
                    pen = g
                }
                out += Array(String(g.text).utf8)
                cursor = (row, column + 1)
            }
        }
        if pen != nil { out += Array("\u{1B}[0m".utf8) }
        shown = screen
        return out
    }

    private static func sgr(_ g: Glyph) -> [UInt8] {
        var s = "\u{1B}[0"
        if g.bold { s += ";1" }
        if g.reverse { s += ";7" }
        if g.fg != Glyph.none { s += ";38;2;\(g.fg >> 16 & 0xFF);\(g.fg >> 8 & 0xFF);\(g.fg & 0xFF)" }
        if g.bg != Glyph.none { s += ";48;2;\(g.bg >> 16 & 0xFF);\(g.bg >> 8 & 0xFF);\(g.bg & 0xFF)" }
        return Array((s + "m").utf8)
    }
}
