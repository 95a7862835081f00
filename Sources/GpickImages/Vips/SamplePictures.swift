import GpickBase
import GstCore

extension VipsPicture {
    /// A packed RGBA video sample (a poster frame, a converted camera frame) as a picture of its
    /// own (the bytes are copied while the frame is mapped); `unreadable` when it holds no frame.
    static func rgba(_ sample: Sample, unreadable: GpickError) throws(GpickError) -> VipsPicture {
        let made = sample.withPackedPixels { bytes, width, height, stride in
            Result { () throws(GpickError) in try VipsPicture.rgba(bytes, width: width, height: height, stride: stride) }
        }
        guard let made else { throw unreadable }
        return try made.get()
    }
}
