import CImaging
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
        var image = gpick_i420(f: f)
        var means = [0.0, 0.0, 0.0], detail = 0.0
        guard gpick_measure_i420(&image, &means, &detail) == 0 else { return nil }
        (meanY, meanU, meanV) = (means[0], means[1], means[2])
        self.detail = detail
    }
}
