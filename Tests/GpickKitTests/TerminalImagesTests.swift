import GpickTerminal
import GpickKit
import Testing

/// Sixel, kitty and the probe, checked by decoding what they write with decoders of this file's
/// own (not by comparing with expected bytes, which would only restate the encoder).
@Suite struct TerminalImagesTests {
    // MARK: - Sixel

    @Test(arguments: [(255, 0, 0), (0, 255, 0), (0, 0, 255), (0, 0, 0), (255, 255, 255), (255, 255, 0), (0, 255, 255)])
    func pureColoursComeBackExact(_ colour: (Int, Int, Int)) throws {
        let picture = Picture(width: 9, height: 13) { _, _ in colour }
        let image = try Self.decodeSixel(picture.sixel())
        #expect(image.width == 9 && image.height == 13)
        #expect(image.registers == 1, "one colour, one register")
        for y in 0..<13 {
            for x in 0..<9 { #expect(image[x, y] == RGB(colour), "pixel \(x),\(y)") }
        }
    }

    @Test(arguments: [(64, 48), (33, 13), (1, 13), (13, 1), (320, 180)])
    func gradientsDecodeCloseToTheInput(_ size: (Int, Int)) throws {
        let (w, h) = size
        let picture = Picture(width: w, height: h) { x, y in
            (x * 255 / max(w - 1, 1), y * 255 / max(h - 1, 1), (x + y) * 255 / max(w + h - 2, 1))
        }
        try Self.expectClose(picture)
    }

    @Test func greyRampAndNoiseDecodeCloseToTheInput() throws {
        try Self.expectClose(Picture(width: 256, height: 20) { x, _ in (x, x, x) })
        var seed: UInt32 = 12345
        let noise = Picture(width: 50, height: 31) { _, _ in
            seed = seed &* 1_103_515_245 &+ 12345
            return (Int(seed >> 8 & 255), Int(seed >> 16 & 255), Int(seed >> 24))
        }
        try Self.expectClose(noise, blocks: false)
    }

    @Test func solidRowsAreRunLengthEncoded() throws {
        let out = Picture(width: 100, height: 6) { _, _ in (255, 0, 0) }.sixel()
        #expect(Self.contains(out, "!100~"), "a full band of one colour is one run")
        #expect(out.count < 60)
    }

    @Test func emptyOrInvalidImagesEncodeToNothing() {
        let bytes = [UInt8](repeating: 7, count: 30)
        bytes.withUnsafeBytes { raw in
            #expect(SixelEncoder.encode(rgb: raw, width: 0, height: 3, stride: 0).isEmpty)
            #expect(SixelEncoder.encode(rgb: raw, width: 3, height: 0, stride: 9).isEmpty)
            #expect(SixelEncoder.encode(rgb: raw, width: 4, height: 1, stride: 9).isEmpty, "stride < 3 × width")
            #expect(SixelEncoder.encode(rgb: raw, width: 3, height: 4, stride: 9).isEmpty, "36 bytes > 30")
            #expect(KittyGraphics.transmit(id: 1, rgb: raw, width: 3, height: 4, stride: 9).isEmpty)
            #expect(!SixelEncoder.encode(rgb: raw, width: 3, height: 3, stride: 10).isEmpty, "last row needs only 9")
        }
    }

    // MARK: - Kitty

    @Test func kittyTransmitsInChunksThatDecodeToThePixels() throws {
        // 100×60: 18 000 bytes, 24 000 base64 characters, six chunks. Row padding must not be sent.
        let picture = Picture(width: 100, height: 60, padding: 7) { x, y in (x * 2, y * 4, (x ^ y) & 255) }
        let chunks = try Self.kittyChunks(picture.kitty(id: 42))
        #expect(chunks.count == 6)
        #expect(chunks.first?.keys == ["a": "t", "f": "24", "s": "100", "v": "60", "i": "42", "q": "2", "m": "1"])
        for (n, chunk) in chunks.enumerated() {
            #expect(chunk.payload.count <= 4096 && chunk.payload.count % 4 == 0)
            #expect(chunk.keys["m"] == (n == chunks.count - 1 ? "0" : "1"))
            if n > 0 { #expect(Set(chunk.keys.keys).isSubset(of: ["m", "q"]), "chunk \(n) keys \(chunk.keys)") }
        }
        let decoded = try Self.base64Decode(chunks.flatMap(\.payload))
        #expect(decoded == picture.packed)
    }

    @Test func kittySmallImageIsOneChunk() throws {
        let picture = Picture(width: 10, height: 7) { x, y in (x * 25, 255 - y, 3) }   // 210 bytes: no padding
        let chunks = try Self.kittyChunks(picture.kitty(id: 7))
        #expect(chunks.count == 1)
        #expect(chunks[0].keys == ["a": "t", "f": "24", "s": "10", "v": "7", "i": "7", "q": "2", "m": "0"])
        #expect(try Self.base64Decode(chunks[0].payload) == picture.packed)
        let odd = Picture(width: 1, height: 1) { _, _ in (1, 2, 3) }   // 3 bytes; and 2 ones → padding
        #expect(try Self.base64Decode(Self.kittyChunks(odd.kitty(id: 1))[0].payload) == [1, 2, 3])
        #expect(try Self.base64Decode(Array("AQI=".utf8)) == [1, 2], "the test decoder handles padding")
    }

    @Test func kittyCommands() throws {
        let place = try Self.kittyChunks(KittyGraphics.place(id: 5, placement: 2, columns: 40, rows: 12))
        #expect(place.count == 1 && place[0].payload.isEmpty)
        #expect(place[0].keys == ["a": "p", "i": "5", "p": "2", "c": "40", "r": "12", "C": "1", "q": "2"])
        #expect(try Self.kittyChunks(KittyGraphics.deletePlacements(id: 5))[0].keys == ["a": "d", "d": "i", "i": "5", "q": "2"])
        #expect(try Self.kittyChunks(KittyGraphics.deleteAll())[0].keys == ["a": "d", "d": "A", "q": "2"])
    }

    // MARK: - Probe

    static let esc = "\u{1B}"

    @Test func queryAsksKittyThenTheBackgroundThenDA1() {
        #expect(TerminalGraphicsProbe.query
                == Array("\(Self.esc)_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\(Self.esc)\\\(Self.esc)]11;?\(Self.esc)\\\(Self.esc)[c".utf8))
        #expect(TerminalGraphicsProbe.backgroundQuery == Array("\(Self.esc)]11;?\(Self.esc)\\\(Self.esc)[c".utf8))
    }

    /// xterm, VTE and tmux answer OSC 11 with 4 hex digits a channel, ended by ST or BEL; older
    /// terminals with 2. A terminal that does not know it says nothing, and DA1 still ends the probe.
    @Test func probeReadsTheBackgroundColour() {
        func background(_ reply: String) -> UInt32? {
            var p = TerminalGraphicsProbe()
            let done = p.feed(Array(reply.utf8))
            #expect(done, "DA1 ends the probe: \(reply.debugDescription)")
            #expect(p.leftover.isEmpty, "\(reply.debugDescription)")
            return p.background
        }
        #expect(background("\(Self.esc)]11;rgb:f0f0/f0f0/f0f0\(Self.esc)\\\(Self.esc)[?1;2c") == 0xF0F0F0)
        #expect(background("\(Self.esc)]11;rgb:1010/1414/1818\u{07}\(Self.esc)[?62;c") == 0x101418)
        #expect(background("\(Self.esc)]11;rgb:ff/80/00\u{07}\(Self.esc)[?62;c") == 0xFF8000)
        #expect(background("\(Self.esc)]11;rgb:f/8/0\(Self.esc)\\\(Self.esc)[?62;c") == 0xFF8800)
        #expect(background("\(Self.esc)[?1;2c") == nil)
        #expect(background("\(Self.esc)]11;rgb:zz/00/00\u{07}\(Self.esc)[?62;c") == nil, "not a colour")
        #expect(background("\(Self.esc)]10;rgb:ffff/ffff/ffff\u{07}\(Self.esc)[?62;c") == nil, "the foreground, not ours")
    }

    @Test func probeChoices() {
        func probe(_ reply: String) -> TerminalGraphicsProbe {
            var p = TerminalGraphicsProbe()
            let done = p.feed(Array(reply.utf8))
            #expect(done, "DA1 ends the probe: \(reply.debugDescription)")
            return p
        }
        let kitty = probe("\(Self.esc)_Gi=31;OK\(Self.esc)\\\(Self.esc)[?62;c")
        #expect(kitty.kitty && !kitty.sixel && kitty.choice == .kitty && kitty.answered && kitty.leftover.isEmpty)
        let xterm = probe("\(Self.esc)[?63;1;2;4;6;9;15;22c")
        #expect(!xterm.kitty && xterm.sixel && xterm.choice == .sixel && xterm.leftover.isEmpty)
        let tmux = probe("\(Self.esc)[?1;2c")
        #expect(!tmux.kitty && !tmux.sixel && tmux.choice == .blocks)
        let refused = probe("\(Self.esc)_Gi=31;ENOTSUPPORTED:unsupported format\(Self.esc)\\\(Self.esc)[?62;4c")
        #expect(!refused.kitty && refused.choice == .sixel && refused.leftover.isEmpty)
        let notOurs = probe("\(Self.esc)_Gi=30;OK\(Self.esc)\\\(Self.esc)[?62c")
        #expect(!notOurs.kitty && notOurs.choice == .blocks)
    }

    @Test func probeRepliesSplitByteByByte() {
        let reply = Array("j\(Self.esc)_Gi=31;OK\(Self.esc)\\k\(Self.esc)[A\(Self.esc)[?62;4c".utf8)
        var p = TerminalGraphicsProbe()
        for (n, byte) in reply.enumerated() {
            let done = p.feed(CollectionOfOne(byte))
            #expect(done == (n == reply.count - 1), "byte \(n)")
        }
        #expect(p.kitty && p.sixel && p.choice == .kitty)
        #expect(p.leftover == Array("jk\(Self.esc)[A".utf8), "typed keys, the arrow key whole, are kept in order")
    }

    @Test func probeKeepsKeysTypedAroundTheReplies() {
        var p = TerminalGraphicsProbe()
        var done = p.feed(Array("j".utf8))
        #expect(!done && !p.answered && p.choice == .blocks)
        done = p.feed(Array("\(Self.esc)[?1;2".utf8))
        #expect(!done, "DA1 not complete yet")
        done = p.feed(Array("cq".utf8))
        #expect(done && p.leftover == Array("jq".utf8))
        done = p.feed(Array("\(Self.esc)x".utf8))
        #expect(done && p.leftover == Array("jq\(Self.esc)x".utf8), "after the reply everything is input")

        var timedOut = TerminalGraphicsProbe()
        done = timedOut.feed(Array("\(Self.esc)\(Self.esc)[".utf8))
        #expect(!done)
        timedOut.finish()
        #expect(timedOut.leftover == Array("\(Self.esc)\(Self.esc)[".utf8) && timedOut.choice == .blocks)
    }
}

// MARK: - Test helpers

extension TerminalImagesTests {
    struct RGB: Equatable, CustomStringConvertible {
        var r, g, b: Int
        init(_ c: (Int, Int, Int)) { (r, g, b) = c }
        var description: String { "(\(r),\(g),\(b))" }
    }

    /// Packed RGB with row padding (0xAB, which must never be read as a pixel).
    struct Picture {
        let width, height, stride: Int
        var bytes: [UInt8]

        init(width: Int, height: Int, padding: Int = 5, _ colour: (Int, Int) -> (Int, Int, Int)) {
            (self.width, self.height, stride) = (width, height, width * 3 + padding)
            bytes = [UInt8](repeating: 0xAB, count: stride * height)
            for y in 0..<height {
                for x in 0..<width {
                    let c = colour(x, y)
                    bytes[y * stride + x * 3 ..< y * stride + x * 3 + 3] = [UInt8(c.0), UInt8(c.1), UInt8(c.2)]
                }
            }
        }

        subscript(x: Int, y: Int) -> RGB {
            let p = y * stride + x * 3
            return RGB((Int(bytes[p]), Int(bytes[p + 1]), Int(bytes[p + 2])))
        }

        var packed: [UInt8] { (0..<height).flatMap { bytes[$0 * stride ..< $0 * stride + width * 3] } }

        func sixel() -> [UInt8] {
            bytes.withUnsafeBytes { SixelEncoder.encode(rgb: $0, width: width, height: height, stride: stride) }
        }

        func kitty(id: UInt32) -> [UInt8] {
            bytes.withUnsafeBytes { KittyGraphics.transmit(id: id, rgb: $0, width: width, height: height, stride: stride) }
        }
    }

    struct DecodeError: Error, CustomStringConvertible { let description: String }

    struct SixelImage {
        var width = 0, height = 0, registers = 0
        var pixels: [RGB?] = []
        subscript(x: Int, y: Int) -> RGB? { pixels[y * width + x] }
    }

    /// Per pixel, the error ordered dithering over 6–7 levels allows: a pixel lands on one of the
    /// two levels around it (a step of 51 apart), or on the grey ramp when nearly neutral, so the
    /// mean error is about a third of a step (no better than ~13 even without dithering). Over 4×4
    /// blocks (the dither period) the means must match closely: dithering keeps local averages,
    /// which is what the eye sees. `blocks: false` for noise, which has no local average to keep.
    static func expectClose(_ picture: Picture, blocks: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let image = try decodeSixel(picture.sixel())
        #expect(image.width == picture.width && image.height == picture.height, sourceLocation: sourceLocation)
        #expect(image.registers <= 256, sourceLocation: sourceLocation)
        var sum = 0, worst = 0
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                guard let got = image[x, y] else {
                    Issue.record("pixel \(x),\(y) not drawn", sourceLocation: sourceLocation)
                    return
                }
                let want = picture[x, y]
                for d in [got.r - want.r, got.g - want.g, got.b - want.b] {
                    sum += abs(d)
                    worst = max(worst, abs(d))
                }
            }
        }
        let mean = Double(sum) / Double(picture.width * picture.height * 3)
        #expect(mean <= 20 && worst <= 60, "per pixel: mean \(mean) worst \(worst)", sourceLocation: sourceLocation)
        guard blocks, picture.width >= 4, picture.height >= 4 else { return }
        var blockSum = 0, blockWorst = 0, channels = 0   // sums over 16 pixels
        for by in 0..<picture.height / 4 {
            for bx in 0..<picture.width / 4 {
                var got = [0, 0, 0], want = [0, 0, 0]
                for y in by * 4 ..< by * 4 + 4 {
                    for x in bx * 4 ..< bx * 4 + 4 {
                        let g = image[x, y]!, w = picture[x, y]
                        got[0] += g.r; got[1] += g.g; got[2] += g.b
                        want[0] += w.r; want[1] += w.g; want[2] += w.b
                    }
                }
                for c in 0..<3 {
                    blockSum += abs(got[c] - want[c])
                    blockWorst = max(blockWorst, abs(got[c] - want[c]))
                    channels += 1
                }
            }
        }
        let blockMean = Double(blockSum) / Double(channels * 16)
        #expect(blockMean <= 3 && blockWorst <= 12 * 16, "4×4 means: mean error \(blockMean) worst \(Double(blockWorst) / 16)",
                sourceLocation: sourceLocation)
    }

    /// A sixel decoder for what the encoder may write: DCS P1;P2;P3 q, raster attributes, colour
    /// definitions (RGB percent) and selections, repeats, carriage returns, new lines, sixels.
    static func decodeSixel(_ bytes: [UInt8]) throws -> SixelImage {
        guard bytes.count >= 4, bytes[0] == 0x1B, bytes[1] == UInt8(ascii: "P"),
              bytes[bytes.count - 2] == 0x1B, bytes[bytes.count - 1] == UInt8(ascii: "\\")
        else { throw DecodeError(description: "not a DCS … ST") }
        for (n, b) in bytes.enumerated() where (b == 0x1B && n != 0 && n != bytes.count - 2) || (0x80...0x9F).contains(b) {
            throw DecodeError(description: "control byte \(b) at \(n)")
        }
        let body = Array(bytes[2 ..< bytes.count - 2])
        var i = 0
        func number() -> Int? {
            var v: Int?
            while i < body.count, (48...57).contains(body[i]) {
                v = (v ?? 0) * 10 + Int(body[i] - 48)
                i += 1
            }
            return v
        }
        func numbers() -> [Int] {
            var list = [number() ?? 0]
            while i < body.count, body[i] == UInt8(ascii: ";") {
                i += 1
                list.append(number() ?? 0)
            }
            return list
        }
        guard numbers() == [0, 1, 0], i < body.count, body[i] == UInt8(ascii: "q") else {
            throw DecodeError(description: "DCS parameters are not 0;1;0q")
        }
        i += 1
        var image = SixelImage()
        var palette: [Int: RGB] = [:]
        var colour: RGB?
        var x = 0, y = 0
        while i < body.count {
            let c = body[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""):
                let raster = numbers()
                guard raster.count == 4, raster[0] == 1, raster[1] == 1, image.pixels.isEmpty else {
                    throw DecodeError(description: "raster attributes \(raster)")
                }
                (image.width, image.height) = (raster[2], raster[3])
                image.pixels = Array(repeating: nil, count: image.width * image.height)
            case UInt8(ascii: "#"):
                let p = numbers()
                if p.count == 1 {
                    guard let defined = palette[p[0]] else { throw DecodeError(description: "register \(p[0]) undefined") }
                    colour = defined
                } else {
                    guard p.count == 5, p[1] == 2, p[2...].allSatisfy({ (0...100).contains($0) }) else {
                        throw DecodeError(description: "colour definition \(p)")
                    }
                    palette[p[0]] = RGB(((p[2] * 255 + 50) / 100, (p[3] * 255 + 50) / 100, (p[4] * 255 + 50) / 100))
                }
            case UInt8(ascii: "$"): x = 0
            case UInt8(ascii: "-"): (x, y) = (0, y + 6)
            case UInt8(ascii: "!"), 63...126:
                var count = 1, sixel = c
                if c == UInt8(ascii: "!") {
                    guard let n = number(), n > 0, i < body.count, (63...126).contains(body[i]) else {
                        throw DecodeError(description: "bad repeat at \(i)")
                    }
                    (count, sixel) = (n, body[i])
                    i += 1
                }
                let bits = Int(sixel - 63)
                for _ in 0..<count {
                    for row in 0..<6 where bits & 1 << row != 0 {
                        guard let colour else { throw DecodeError(description: "sixel before a colour") }
                        guard x < image.width, y + row < image.height else {
                            throw DecodeError(description: "pixel \(x),\(y + row) outside \(image.width)×\(image.height)")
                        }
                        image.pixels[(y + row) * image.width + x] = colour
                    }
                    x += 1
                }
            default:
                throw DecodeError(description: "unexpected byte \(c) at \(i - 1)")
            }
        }
        image.registers = palette.count
        return image
    }

    struct KittyChunk {
        var keys: [String: String] = [:]
        var payload: [UInt8] = []
    }

    /// Splits a run of `ESC _ G keys [; payload] ESC \` commands, with nothing between them.
    static func kittyChunks(_ bytes: [UInt8]) throws -> [KittyChunk] {
        var chunks: [KittyChunk] = []
        var i = 0
        while i < bytes.count {
            guard bytes.count - i >= 5, bytes[i ..< i + 3].elementsEqual([0x1B, UInt8(ascii: "_"), UInt8(ascii: "G")]) else {
                throw DecodeError(description: "expected ESC _ G at \(i)")
            }
            var end = i + 3
            while end + 1 < bytes.count, !(bytes[end] == 0x1B && bytes[end + 1] == UInt8(ascii: "\\")) { end += 1 }
            guard end + 1 < bytes.count else { throw DecodeError(description: "no ST after \(i)") }
            let content = bytes[i + 3 ..< end]
            let parts = content.split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false)
            var chunk = KittyChunk()
            for pair in parts[0].split(separator: UInt8(ascii: ",")) {
                let kv = pair.split(separator: UInt8(ascii: "="), maxSplits: 1)
                guard kv.count == 2 else { throw DecodeError(description: "key \(String(decoding: pair, as: UTF8.self))") }
                chunk.keys[String(decoding: kv[0], as: UTF8.self)] = String(decoding: kv[1], as: UTF8.self)
            }
            if parts.count == 2 { chunk.payload = Array(parts[1]) }
            chunks.append(chunk)
            i = end + 2
        }
        return chunks
    }

    static func base64Decode(_ text: [UInt8]) throws -> [UInt8] {
        guard text.count % 4 == 0 else { throw DecodeError(description: "base64 length \(text.count)") }
        func value(_ c: UInt8) throws -> Int {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int(c) - 65
            case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int(c) - 97 + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c) - 48 + 52
            case UInt8(ascii: "+"): return 62
            case UInt8(ascii: "/"): return 63
            default: throw DecodeError(description: "base64 byte \(c)")
            }
        }
        var out: [UInt8] = []
        for q in Swift.stride(from: 0, to: text.count, by: 4) {
            let pad = text[q ..< q + 4].reversed().prefix { $0 == UInt8(ascii: "=") }.count
            guard pad <= 2, pad == 0 || q + 4 == text.count else { throw DecodeError(description: "padding at \(q)") }
            var v = 0
            for k in 0..<4 { v = v << 6 | (k < 4 - pad ? try value(text[q + k]) : 0) }
            out += [UInt8(v >> 16), UInt8(v >> 8 & 255), UInt8(v & 255)].prefix(3 - pad)
        }
        return out
    }

    static func contains(_ bytes: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard bytes.count >= n.count else { return false }
        return (0...(bytes.count - n.count)).contains { bytes[$0 ..< $0 + n.count].elementsEqual(n) }
    }
}
