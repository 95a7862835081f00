import GpickKit
import GstCore
import Testing

@Suite(.serialized) struct FrameStampTests {
    @Test func wordLayoutAndCheckByte() {
        let s = FrameStamp(sourceID: 1, index: 0)
        // id 1 in the top nibble, index 0, check = 0x10 ^ 0 ^ 0 ^ 0xA5.
        #expect(s.word == 0x1000_00B5)
        #expect(FrameStamp(word: s.word) == s)
        let flipped: UInt32 = s.word ^ 0x100
        let damaged = FrameStamp(word: flipped)
        #expect(damaged == nil, "a flipped bit fails the check")
        let black = FrameStamp(word: 0)
        #expect(black == nil, "an all-black corner is no stamp")
        let big = FrameStamp(sourceID: 15, index: (1 << 20) - 1)
        #expect(FrameStamp(word: big.word) == big)
        #expect(FrameStamp(sourceID: 2, index: 1 << 20).index == 0, "the index wraps at 20 bits")
    }

    @Test(arguments: [(320, 240), (640, 360), (1920, 1080), (98, 98)])
    func drawThenReadBack(size: (Int, Int)) {
        let (w, h) = size
        let stride = w + 13  // padded rows must not confuse the reader
        var luma = [UInt8](repeating: 90, count: stride * h)
        var u = [UInt8](repeating: 30, count: (stride / 2) * (h / 2))
        var v = u
        let stamp = FrameStamp(sourceID: 9, index: 123_456)
        luma.withUnsafeMutableBytes { y in
            u.withUnsafeMutableBytes { ub in
                v.withUnsafeMutableBytes { vb in
                    let half: Int = stride / 2
                    let py = VideoFrame.Plane(data: y.baseAddress!, stride: stride, height: h)
                    let pu = VideoFrame.Plane(data: ub.baseAddress!, stride: half, height: h / 2)
                    let pv = VideoFrame.Plane(data: vb.baseAddress!, stride: half, height: h / 2)
                    var frame = VideoFrame(width: w, height: h, format: "I420", planes: [py, pu, pv])
                    stamp.draw(into: &frame)
                    #expect(FrameStamp.read(from: frame) == stamp)
                }
            }
        }
        #expect(u[0] == 128, "chroma is neutral under the stamp")
        let c = FrameStamp.cellSize(width: w, height: h)
        #expect(luma[2 * c * stride + 5] == 90, "nothing drawn below the stamp")
    }

    @Test func cellSizeRule() {
        #expect(FrameStamp.cellSize(width: 1920, height: 1080) == 45)
        #expect(FrameStamp.cellSize(width: 320, height: 240) == 10)
        #expect(FrameStamp.cellSize(width: 64, height: 48) == 4)
    }
}
