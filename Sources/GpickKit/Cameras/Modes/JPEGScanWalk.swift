/// Walks the entropy-coded data of a baseline (Huffman, sequential) JPEG scan without decoding
/// it: every code must be one its table has, no block may hold more than 64 coefficients, and the
/// scan must hold exactly the frame's MCUs (with its restart markers in order) and end at its
/// marker. A bit flipped in a Huffman code throws the data out of step, and nearly always breaks
/// one of these, as libjpeg's "corrupt JPEG data" warnings (premature end, extraneous bytes, bad
/// Huffman code) say, though it decodes the frame anyway into a smeared picture. A flip in a
/// coefficient's value bits keeps the data in step: only the picture shows it.
///
/// Frames the walk cannot follow pass (nil): progressive or arithmetic-coded ones, and those
/// without their own Huffman tables (Motion-JPEG's implicit standard tables): the marker check
/// still applies to them.
struct JPEGScanWalk {
    /// The eight Huffman tables (class 0 DC, 1 AC; ids 0…3), flat so the walk reads them through
    /// pointers: per table, the first 8 bits of the stream → (code length << 8 | symbol), 0 when
    /// the code is longer; per length 1…16 the largest code (-1: none) and its values' offset.
    var fast = [UInt16](repeating: 0, count: 8 * 256)
    var maxCode = [Int32](repeating: -1, count: 8 * 17)
    var offset = [Int32](repeating: 0, count: 8 * 17)
    var values = [UInt8](repeating: 0, count: 8 * 256)
    var defined = [Bool](repeating: false, count: 8)

    /// The frame: its size and each component's id and sampling factors.
    var width = 0, height = 0
    var components: [(id: UInt8, h: Int, v: Int)] = []
    var restartInterval = 0
    /// Whether the frame is one the walk follows (a baseline or extended Huffman SOF).
    var walkable = false

    mutating func frameHeader(_ b: UnsafeRawBufferPointer, at i: Int, length: Int, marker: UInt8) {
        walkable = (marker == 0xC0 || marker == 0xC1) && length >= 8
        guard walkable else { return }
        height = Int(b[i + 3]) << 8 | Int(b[i + 4])
        width = Int(b[i + 5]) << 8 | Int(b[i + 6])
        let n = Int(b[i + 7])
        guard length >= 8 + 3 * n, n > 0, width > 0, height > 0 else { walkable = false; return }
        components = (0..<n).map { c in (b[i + 8 + 3 * c], Int(b[i + 9 + 3 * c] >> 4), Int(b[i + 9 + 3 * c] & 15)) }
        if components.contains(where: { !(1...4).contains($0.h) || !(1...4).contains($0.v) }) { walkable = false }
    }

    /// A DHT segment's tables; false when one is malformed.
    mutating func huffmanTables(_ b: UnsafeRawBufferPointer, at start: Int, length: Int) -> Bool {
        var i = start + 2
        let end = start + length
        while i < end {
            guard i + 17 <= end else { return false }
            let tc = Int(b[i] >> 4), th = Int(b[i] & 15)
            let counts = (0..<16).map { Int(b[i + 1 + $0]) }
            let total = counts.reduce(0, +)
            guard tc <= 1, th <= 3, i + 17 + total <= end, total <= 256,
                  define(tc << 2 | th, counts: counts, values: b, from: i + 17) else { return false }
            i += 17 + total
        }
        return true
    }

    /// Table `t` from a DHT's 16 counts and its values (JPEG's canonical code assignment).
    private mutating func define(_ t: Int, counts: [Int], values b: UnsafeRawBufferPointer, from v: Int) -> Bool {
        for x in 0..<256 { fast[t * 256 + x] = 0 }
        for l in 0..<17 { maxCode[t * 17 + l] = -1 }
        var code: Int32 = 0, k = 0
        for length in 1...16 {
            let n = counts[length - 1]
            if n > 0 {
                offset[t * 17 + length] = Int32(k) - code
                for _ in 0..<n {
                    let symbol = b[v + k]
                    values[t * 256 + k] = symbol
                    if length <= 8 {
                        let shift = 8 - length
                        for low in 0..<(1 << shift) { fast[t * 256 + (Int(code) << shift | low)] = UInt16(length << 8) | UInt16(symbol) }
                    }
                    code += 1
                    k += 1
                }
                maxCode[t * 17 + length] = code - 1
                guard code <= 1 << length else { return false }  // more codes than the length holds
            }
            code <<= 1
        }
        defined[t] = true
        return true
    }

    /// Walks one scan: its header at `header` (after the length), its data from `data` up to the
    /// marker at `end`. True when the data holds exactly what the header promises.
    func scanIsWhole(_ b: UnsafeRawBufferPointer, header: Int, data: Int, end: Int) -> Bool {
        guard walkable else { return true }
        let ns = Int(b[header + 2])
        var blocks: [Int] = []  // per block of an MCU: DC table << 3 | AC table
        var sampling: (h: Int, v: Int) = (1, 1)
        let hmax = components.map(\.h).max() ?? 1, vmax = components.map(\.v).max() ?? 1
        for s in 0..<ns {
            let id = b[header + 3 + 2 * s], sel = Int(b[header + 4 + 2 * s])
            guard let c = components.first(where: { $0.id == id }) else { return false }
            let dc = (sel >> 4) & 3, ac = 4 | (sel & 3)
            // Without its own tables (Motion-JPEG's implicit ones), the frame is not walked.
            guard defined[dc], defined[ac] else { return true }
            sampling = (c.h, c.v)
            blocks += Array(repeating: dc << 3 | ac, count: ns == 1 ? 1 : c.h * c.v)
        }
        let mcus: Int
        if ns == 1 {
            // One component alone: one block per MCU over its own sampled size.
            let w = (width * sampling.h + hmax - 1) / hmax, h = (height * sampling.v + vmax - 1) / vmax
            mcus = ((w + 7) / 8) * ((h + 7) / 8)
        } else {
            mcus = ((width + 8 * hmax - 1) / (8 * hmax)) * ((height + 8 * vmax - 1) / (8 * vmax))
        }
        return fast.withUnsafeBufferPointer { fast in
            maxCode.withUnsafeBufferPointer { maxCode in
                offset.withUnsafeBufferPointer { offset in
                    values.withUnsafeBufferPointer { values in
                        blocks.withUnsafeBufferPointer { blocks in
                            let tables = ScanTables(fast: fast, maxCode: maxCode, offset: offset, values: values)
                            var bits = ScanBits(b, from: data, to: end)
                            return walk(&bits, tables, blocks, mcus: mcus, end: end)
                        }
                    }
                }
            }
        }
    }

    private func walk(_ bits: inout ScanBits, _ t: ScanTables, _ blocks: UnsafeBufferPointer<Int>, mcus: Int, end: Int) -> Bool {
        for mcu in 0..<mcus {
            if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                guard bits.paddedToMarker(), bits.restart(expecting: (mcu / restartInterval - 1) & 7) else { return false }
            }
            for block in blocks {
                guard let dcSize = bits.decode(t, block >> 3), dcSize <= 11 else { return false }
                bits.skip(Int(dcSize))
                var k = 1
                while k < 64 {
                    guard let rs = bits.decode(t, block & 7) else { return false }
                    let run = Int(rs >> 4), size = Int(rs & 15)
                    if size == 0 {
                        if run != 15 { break }  // end of block
                        k += 16
                        continue
                    }
                    k += run
                    guard k <= 63, size <= 10 else { return false }
                    bits.skip(size)
                    k += 1
                }
                guard bits.realBits >= 0 else { return false }  // ran into the marker: cut short
            }
        }
        // All MCUs there: only the last byte's padding (1 bits) may remain before the marker
        // (fill bytes FF may come before it).
        guard bits.paddedToMarker(), bits.markerPosition <= end else { return false }
        return (bits.markerPosition..<end).allSatisfy { bits.b[$0] == 0xFF }
    }
}

/// The tables as the walk reads them.
struct ScanTables {
    let fast: UnsafeBufferPointer<UInt16>
    let maxCode: UnsafeBufferPointer<Int32>
    let offset: UnsafeBufferPointer<Int32>
    let values: UnsafeBufferPointer<UInt8>
}

/// The scan's bits, most significant first, with stuffed zero bytes removed; past a marker the
/// reader yields zeros and counts them, so running into one is seen as `realBits < 0`.
struct ScanBits {
    let b: UnsafeRawBufferPointer
    var i: Int
    let end: Int
    var acc: UInt64 = 0
    var count = 0
    var fake = 0
    var atMarker = false
    var markerPosition = -1

    init(_ b: UnsafeRawBufferPointer, from: Int, to end: Int) {
        (self.b, i, self.end) = (b, from, end)
    }

    var realBits: Int { count - fake }

    mutating func fill() {
        while count <= 56 {
            var byte: UInt8 = 0
            if !atMarker, i < end {
                byte = b[i]
                if byte == 0xFF {
                    if i + 1 < end, b[i + 1] == 0x00 {
                        i += 2
                    } else {
                        atMarker = true
                        markerPosition = i
                        byte = 0
                        fake += 8
                    }
                } else {
                    i += 1
                }
            } else {
                if !atMarker { atMarker = true; markerPosition = i }
                fake += 8
            }
            acc |= UInt64(byte) << UInt64(56 - count)
            count += 8
        }
    }

    mutating func skip(_ n: Int) {
        guard n > 0 else { return }
        if count < n { fill() }
        acc <<= UInt64(n)
        count -= n
    }

    mutating func decode(_ t: ScanTables, _ table: Int) -> UInt8? {
        if count < 16 { fill() }
        let entry = t.fast[table * 256 + Int(acc >> 56)]
        if entry != 0 {
            skip(Int(entry >> 8))
            return UInt8(truncatingIfNeeded: entry)
        }
        for length in 9...16 {
            let code = Int32(truncatingIfNeeded: acc >> UInt64(64 - length))
            if code <= t.maxCode[table * 17 + length] {
                skip(length)
                let index = Int(code + t.offset[table * 17 + length])
                return (0..<256).contains(index) ? t.values[table * 256 + index] : nil
            }
        }
        return nil
    }

    /// At the end of the coded data before a marker: fewer than 8 bits left, all 1s (JPEG's
    /// padding), and then the marker.
    mutating func paddedToMarker() -> Bool {
        fill()
        let left = realBits
        guard atMarker, (0..<8).contains(left) else { return false }
        return left == 0 || acc >> UInt64(64 - left) == (1 << UInt64(left)) - 1
    }

    /// At a restart marker RSTn (n = `expecting`): steps over it and starts afresh on a byte.
    mutating func restart(expecting n: Int) -> Bool {
        var p = markerPosition
        while p + 1 < end, b[p + 1] == 0xFF { p += 1 }  // fill bytes before the marker
        guard p + 1 < end, b[p + 1] == 0xD0 + UInt8(n) else { return false }
        i = p + 2
        (acc, count, fake, atMarker, markerPosition) = (0, 0, 0, false, -1)
        return true
    }
}
