/// A key read from a terminal (a picker's, a preview's).
public enum TerminalKey: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, space, escape
    /// The terminal window gained or lost the focus (reported once `CSI ? 1004 h` asks for it).
    case focusIn, focusOut
    case character(Character)
}

/// Turns the bytes a terminal sends into keys: arrows and the like arrive as escape sequences
/// (`ESC [ A`, `ESC O A`, `ESC [ 5 ~`), and a lone Escape is only known to be one when nothing
/// follows it quickly: the caller calls `flush()` after a short wait (`pendingEscape`).
public struct TerminalKeyDecoder: Sendable {
    private var pending: [UInt8] = []
    /// UTF-8 bytes of a character still arriving.
    private var text: [UInt8] = []

    public init() {}

    /// An Escape (or an unfinished sequence) waits for what follows.
    public var pendingEscape: Bool { !pending.isEmpty }

    public mutating func feed(_ byte: UInt8) -> [TerminalKey] {
        fed &+= 1
        if !pending.isEmpty {
            pending.append(byte)
            return sequence()
        }
        if !text.isEmpty || byte >= 0x80 {
            text.append(byte)
            let expected = Self.utf8Length(text[0])
            if text.count < expected { return [] }
            defer { text = [] }
            guard let s = String(validating: text, as: UTF8.self), let c = s.first else { return [] }
            return [.character(c)]
        }
        switch byte {
        case 0x1B: pending = [byte]; return []
        case 0x0D, 0x0A: return [.enter]
        case 0x20: return [.space]
        case 0x7F, 0x08: return [.character("\u{7F}")]
        case 0x00..<0x20: return []
        default: return [.character(Character(UnicodeScalar(byte)))]
        }
    }

    /// Bytes fed so far: a wait for what follows an Escape checks that nothing came since.
    public private(set) var fed = 0

    /// Nothing followed the Escape in time: it was the Escape key (an unfinished sequence is
    /// dropped, never half-interpreted).
    public mutating func flush() -> [TerminalKey] {
        defer { pending = [] }
        return pending == [0x1B] ? [.escape] : []
    }

    private mutating func sequence() -> [TerminalKey] {
        // A terminal's late answer (APC, DCS or OSC string) is swallowed up to its terminator.
        if [UInt8(ascii: "_"), UInt8(ascii: "P"), UInt8(ascii: "]")].contains(pending[1]) {
            let n = pending.count
            if pending[n - 1] == 0x07 || (n >= 4 && pending[n - 2] == 0x1B && pending[n - 1] == UInt8(ascii: "\\")) || n > 4096 {
                pending = []
            }
            return []
        }
        // ESC ESC: the first was the Escape key.
        if pending.count == 2 && pending[1] == 0x1B {
            pending = [0x1B]
            return [.escape]
        }
        if pending.count == 2 {
            guard pending[1] == UInt8(ascii: "[") || pending[1] == UInt8(ascii: "O") else {
                // Alt+key: Escape, then the key.
                let key = pending[1]
                pending = []
                return [.escape] + feed(key)
            }
            return []
        }
        let last = pending[pending.count - 1]
        // A CSI sequence ends with a byte in 0x40…0x7E; until then, parameters.
        guard (0x40...0x7E).contains(last) else {
            if pending.count > 16 { pending = [] }
            return []
        }
        defer { pending = [] }
        let parameters = String(decoding: pending[2..<(pending.count - 1)], as: UTF8.self)
        switch (Character(UnicodeScalar(last)), parameters) {
        case ("I", ""): return [.focusIn]
        case ("O", ""): return [.focusOut]
        case ("A", _): return [.up]
        case ("B", _): return [.down]
        case ("C", _): return [.right]
        case ("D", _): return [.left]
        case ("H", _): return [.home]
        case ("F", _): return [.end]
        case ("~", "5"): return [.pageUp]
        case ("~", "6"): return [.pageDown]
        case ("~", "1"), ("~", "7"): return [.home]
        case ("~", "4"), ("~", "8"): return [.end]
        default: return []
        }
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC0..<0xE0: 2
        case 0xE0..<0xF0: 3
        case 0xF0..<0xF8: 4
        default: 1
        }
    }
}
