import GstCore

/// The frame stamp: a 32-bit word drawn on every test-source frame so tests (and anyone) can tell
/// which frames reached an output.
///
/// Layout: source id (4 bits) · frame index (20 bits) · check (8 bits), where
/// check = byte3 ^ byte2 ^ byte1 ^ 0xA5. Drawn at the top-left as 2 rows × 16 square cells of side
/// `cellSize(width:height:)`; row 0 holds bits 31…16 left to right, row 1 bits 15…0; 1 = white.
public struct FrameStamp: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public let sourceID: Int
    public let index: Int

    public static let indexModulus = 1 << 20

    public init(sourceID: Int, index: Int) {
        precondition((0...15).contains(sourceID), "stamp source id is 0…15")
        self.sourceID = sourceID
        self.index = index % Self.indexModulus
    }

    public var word: UInt32 {
        let upper = UInt32(sourceID) << 28 | UInt32(index) << 8
        return upper | UInt32(Self.check(upper))
    }

    static func check(_ upper: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (upper >> 24) ^ (upper >> 16) ^ (upper >> 8)) ^ 0xA5
    }

    /// Decodes a word; nil when the check byte does not match (no stamp, or a damaged one).
    public init?(word: UInt32) {
        guard UInt8(truncatingIfNeeded: word) == Self.check(word & 0xFFFF_FF00) else { return nil }
        sourceID = Int(word >> 28)
        index = Int((word >> 8) & 0xFFFFF)
    }

    /// Side of one cell in pixels for a frame of this size.
    public static func cellSize(width: Int, height: Int) -> Int {
        max(4, min(width, height) / 24)
    }

    public var description: String { "\(sourceID):\(index)" }
}

extension FrameStamp {
    /// Draws the stamp into a mapped planar YUV (or grey) frame: luma 255/0 in the cells, chroma
    /// neutral under the stamp so colour never leaks into the bits.
    public func draw(into frame: inout VideoFrame) {
        let c = Self.cellSize(width: frame.width, height: frame.height)
        guard frame.width >= 16 * c, frame.height >= 2 * c, let luma = frame.planes.first else { return }
        let w = word
        for row in 0..<2 {
            for col in 0..<16 {
                let bit = (w >> UInt32(31 - (row * 16 + col))) & 1
                let value: UInt8 = bit == 1 ? 255 : 0
                for y in (row * c)..<(row * c + c) {
                    (luma.data + y * luma.stride + col * c).initializeMemory(as: UInt8.self, repeating: value, count: c)
                }
            }
        }
        // Chroma planes (I420/YV12/Y42B/Y444 and NV12's interleaved plane) sit at reduced size.
        for p in frame.planes.dropFirst() {
            let rows = (2 * c * p.height + frame.height - 1) / frame.height
            let bytes = min(p.stride, (16 * c * p.stride + frame.width - 1) / frame.width + 2)
            for y in 0..<min(rows, p.height) {
                (p.data + y * p.stride).initializeMemory(as: UInt8.self, repeating: 128, count: bytes)
            }
        }
    }

    /// Reads a stamp from the luma plane of a mapped frame: the mean of the middle half of each cell,
    /// ≥ 128 is a 1. Returns nil when there is no valid stamp.
    public static func read(from frame: VideoFrame) -> FrameStamp? {
        guard let luma = frame.planes.first else { return nil }
        return read(luma: UnsafeRawPointer(luma.data), stride: luma.stride, width: frame.width, height: frame.height)
    }

    public static func read(luma: UnsafeRawPointer, stride: Int, width: Int, height: Int) -> FrameStamp? {
        let c = cellSize(width: width, height: height)
        guard width >= 16 * c, height >= 2 * c else { return nil }
        let lo = c / 4, hi = max(lo + 1, c - c / 4)
        var word: UInt32 = 0
        for row in 0..<2 {
            for col in 0..<16 {
                var sum = 0, n = 0
                for y in (row * c + lo)..<(row * c + hi) {
                    let line = luma + y * stride + col * c
                    for x in lo..<hi { sum += Int(line.load(fromByteOffset: x, as: UInt8.self)); n += 1 }
                }
                word = word << 1 | (sum / max(n, 1) >= 128 ? 1 : 0)
            }
        }
        return FrameStamp(word: word)
    }
}
