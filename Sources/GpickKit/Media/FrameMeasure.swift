import GstCore

/// Simple per-frame measures for checking what reached an output without a reference picture:
/// mean colour (tells a blurred placeholder from the frame it was made of, and from black) and
/// detail, the mean horizontal luma step (high for sharp pictures, near 0 for a blur).
public struct FrameMeasure: Sendable, Codable, Equatable {
    public var meanY: Double
    public var meanU: Double
    public var meanV: Double
    public var detail: Double

    /// Measures an I420 (or other planar YUV) frame, on every other row to stay cheap.
    public init?(_ f: VideoFrame) {
        guard f.planes.count >= 3, f.width > 1, f.height > 1 else { return nil }
        func mean(_ p: VideoFrame.Plane, _ w: Int, _ h: Int) -> Double {
            var sum = 0, n = 0
            for y in stride(from: 0, to: h, by: 2) {
                let row = UnsafeRawPointer(p.data + y * p.stride).assumingMemoryBound(to: UInt8.self)
                for x in 0..<w { sum += Int(row[x]) }
                n += w
            }
            return n > 0 ? Double(sum) / Double(n) : 0
        }
        let cw = (f.width + 1) / 2, ch = (f.height + 1) / 2
        meanY = mean(f.planes[0], f.width, f.height)
        meanU = mean(f.planes[1], cw, ch)
        meanV = mean(f.planes[2], cw, ch)
        var steps = 0, n = 0
        let y0 = f.planes[0]
        for y in stride(from: 0, to: f.height, by: 2) {
            let row = UnsafeRawPointer(y0.data + y * y0.stride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<(f.width - 1) { steps += abs(Int(row[x + 1]) - Int(row[x])) }
            n += f.width - 1
        }
        detail = n > 0 ? Double(steps) / Double(n) : 0
    }
}
