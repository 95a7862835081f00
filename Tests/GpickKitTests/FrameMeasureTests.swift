import GpickKit
import GstCore
import Testing

/// FrameMeasure's sums, which CImaging does, against the definition: the means of every other
/// row of each plane, and the mean step between horizontal luma neighbours on those rows.
struct FrameMeasureTests {
    /// An odd-sized I420 frame with padded strides: Y a ramp with a hard edge, U and V patterns.
    @Test(arguments: [(7, 5), (64, 36), (321, 239)])
    func measuresAgreeWithTheirDefinition(_ width: Int, _ height: Int) throws {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let strides = [width + 13, cw + 7, cw + 3]
        let heights = [height, ch, ch]
        var planes = (0..<3).map { [UInt8](repeating: 0, count: strides[$0] * heights[$0]) }
        func value(_ p: Int, _ x: Int, _ y: Int) -> UInt8 {
            switch p {
            case 0: UInt8(x < width / 2 ? (x * 3 + y) % 200 : 250 - (y % 7))
            case 1: UInt8((x * 5 + y * 11) % 256)
            default: UInt8(255 - (x + y) % 97)
            }
        }
        for p in 0..<3 {
            for y in 0..<heights[p] { for x in 0..<(p == 0 ? width : cw) { planes[p][y * strides[p] + x] = value(p, x, y) } }
            // Padding that a wrong stride or width would count.
            for y in 0..<heights[p] { for x in (p == 0 ? width : cw)..<strides[p] { planes[p][y * strides[p] + x] = 255 } }
        }
        var means = [Double](), steps = 0, stepCount = 0
        for p in 0..<3 {
            var sum = 0, n = 0
            for y in stride(from: 0, to: heights[p], by: 2) { for x in 0..<(p == 0 ? width : cw) { sum += Int(value(p, x, y)); n += 1 } }
            means.append(Double(sum) / Double(n))
        }
        for y in stride(from: 0, to: height, by: 2) {
            for x in 0..<(width - 1) { steps += abs(Int(value(0, x + 1, y)) - Int(value(0, x, y))); stepCount += 1 }
        }
        var (py, pu, pv) = (planes[0], planes[1], planes[2])
        let measure = try py.withUnsafeMutableBytes { y in
            try pu.withUnsafeMutableBytes { u in
                try pv.withUnsafeMutableBytes { v in
                    let frame = VideoFrame(width: width, height: height, format: "I420", planes: [
                        .init(data: y.baseAddress!, stride: strides[0], height: height),
                        .init(data: u.baseAddress!, stride: strides[1], height: ch),
                        .init(data: v.baseAddress!, stride: strides[2], height: ch),
                    ])
                    return try #require(FrameMeasure(frame))
                }
            }
        }
        #expect(measure.meanY == means[0] && measure.meanU == means[1] && measure.meanV == means[2], "\(measure) vs \(means)")
        #expect(measure.detail == Double(steps) / Double(stepCount), "\(measure.detail)")
    }
}
