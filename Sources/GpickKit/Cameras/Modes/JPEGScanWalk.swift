import CImaging

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
    /// Per table, the first 10 bits → a code and the value bits after it at once, where both
    /// fit: length | run << 5 | size << 9 (0: look the code up on its own). Most coefficients
    /// take one look this way.
    var both = [UInt16](repeating: 0, count: 8 * 1024)
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
        for x in 0..<1024 { both[t * 1024 + x] = 0 }
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
                    // A DC symbol is its value's size; an AC symbol a run and a size.
                    let size = t < 4 ? Int(symbol) : Int(symbol & 15), run = t < 4 ? 0 : Int(symbol >> 4)
                    if length + size <= 10 {
                        let shift = 10 - length
                        let entry = UInt16(length + size | run << 5 | size << 9)
                        for low in 0..<(1 << shift) { both[t * 1024 + (Int(code) << shift | low)] = entry }
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
        var blocks: [Int32] = []  // per block of an MCU: DC table << 3 | AC table
        var sampling: (h: Int, v: Int) = (1, 1)
        let hmax = components.map(\.h).max() ?? 1, vmax = components.map(\.v).max() ?? 1
        for s in 0..<ns {
            let id = b[header + 3 + 2 * s], sel = Int(b[header + 4 + 2 * s])
            guard let c = components.first(where: { $0.id == id }) else { return false }
            let dc = (sel >> 4) & 3, ac = 4 | (sel & 3)
            // Without its own tables (Motion-JPEG's implicit ones), the frame is not walked.
            guard defined[dc], defined[ac] else { return true }
            sampling = (c.h, c.v)
            blocks += Array(repeating: Int32(dc << 3 | ac), count: ns == 1 ? 1 : c.h * c.v)
        }
        let mcus: Int
        if ns == 1 {
            // One component alone: one block per MCU over its own sampled size.
            let w = (width * sampling.h + hmax - 1) / hmax, h = (height * sampling.v + vmax - 1) / vmax
            mcus = ((w + 7) / 8) * ((h + 7) / 8)
        } else {
            mcus = ((width + 8 * hmax - 1) / (8 * hmax)) * ((height + 8 * vmax - 1) / (8 * vmax))
        }
        // The loop itself is C (CImaging's jpeg_scan.c): it runs on every frame a camera sends.
        guard let base = b.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        let restart = Int32(restartInterval)
        return both.withUnsafeBufferPointer { both in fast.withUnsafeBufferPointer { fast in
            maxCode.withUnsafeBufferPointer { maxCode in
                offset.withUnsafeBufferPointer { offset in
                    values.withUnsafeBufferPointer { values in
                        blocks.withUnsafeBufferPointer { blocks in
                            gpick_jpeg_scan_whole(base, data, end, both.baseAddress, fast.baseAddress, maxCode.baseAddress, offset.baseAddress,
                                                  values.baseAddress, blocks.baseAddress, Int32(blocks.count), mcus, restart) == 1
                        }
                    }
                }
            }
        } }
    }
}
