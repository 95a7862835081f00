import GpickKit

/// The terminal picker's colours, light or dark. `auto` follows the terminal's own background,
/// as it answered the OSC 11 query (tmux answers with its pane's); a terminal that does not say
/// gets the dark palette, the common case. The accent is the configuration's, or a default that
/// reads well on the palette; text on it is black or white, whichever contrasts more.
struct TerminalPalette: Sendable, Equatable {
    var isLight: Bool
    /// A cell's background, behind its picture or text.
    var cell: UInt32
    var cellText: UInt32
    var dimText: UInt32
    /// The title row, and the key help at the bottom.
    var bar: UInt32
    var barText: UInt32
    var footer: UInt32
    var footerText: UInt32
    /// Cell labels (on the terminal's own background), and those of selected cells.
    var label: UInt32
    var selected: UInt32
    var accent: UInt32
    var onAccent: UInt32
    /// Problems (no library, no camera) and the camera cell's notes.
    var problem: UInt32
    var problemText: UInt32
    var note: UInt32
    var noteText: UInt32

    static let dark = TerminalPalette(isLight: false, cell: 0x181818, cellText: 0xFFFFFF, dimText: 0xB0B0B0,
                                      bar: 0x303030, barText: 0xFFFFFF, footer: 0x202020, footerText: 0xB0B0B0,
                                      label: 0xC8C8C8, selected: 0x7CFC8A, accent: 0x4FA3FF, onAccent: 0x000000,
                                      problem: 0x5A1E1E, problemText: 0xFFE9A8, note: 0x402020, noteText: 0xFFFFFF)
    static let light = TerminalPalette(isLight: true, cell: 0xE4E6EB, cellText: 0x15161A, dimText: 0x50545C,
                                       bar: 0xD8DBE2, barText: 0x15161A, footer: 0xE4E6EB, footerText: 0x3C4048,
                                       label: 0x30343C, selected: 0x1B6E2E, accent: 0x2F6FD6, onAccent: 0xFFFFFF,
                                       problem: 0xFBE3C4, problemText: 0x5A2E00, note: 0xF3D6D6, noteText: 0x3A1010)

    /// The palette for `appearance` on a terminal whose background is `background` (nil: unknown).
    static func resolve(_ appearance: PickerConfiguration.Appearance, background: UInt32?) -> TerminalPalette {
        var p = appearance.terminalTheme(background: background) == .light ? Self.light : Self.dark
        if appearance.accent != PickerConfiguration.Appearance.defaultAccent,
           let c = PickerConfiguration.Appearance.rgb(appearance.accent) {
            p.accent = UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b)
            p.onAccent = appearance.textOnAccent == "#ffffff" ? 0xFFFFFF : 0x000000
        }
        return p
    }
}

extension PickerConfiguration.Appearance {
    /// The terminal picker's theme, light or dark: `auto` follows the terminal's background
    /// (0xRRGGBB, as it answered OSC 11), and is dark when the terminal did not say.
    public func terminalTheme(background: UInt32?) -> Theme {
        switch theme {
        case .light, .dark: return theme
        case .auto:
            guard let bg = background else { return .dark }
            return Self.luminance((Int(bg >> 16 & 0xFF), Int(bg >> 8 & 0xFF), Int(bg & 0xFF))) > 0.5 ? .light : .dark
        }
    }
}
