import CImaging
import GstCore

/// The blurred last frame shown while a camera switches, warms up, is suspended or is lost, and
/// the crossfade out of it. Pixel work is in CImaging (downscale, blur small, bilinear upscale).
enum Placeholder {
    /// Downscale factor and blur radius (in small pixels): a 1080p frame becomes 240×135, blurred.
    static let factor: Int32 = 8
    static let radius: Int32 = 3

    /// A blurred copy of `frame` (I420), mirrored left-right when asked.
    static func make(from frame: Sample, mirror: Bool = false) -> OwnedBuffer? {
        guard let info = frame.videoInfo, info.format == "I420", let out = OwnedBuffer.allocate(size: info.size) else { return nil }
        let ok = frame.withVideoFrame { src -> Bool in
            out.view.withVideoFrame(caps: info, writable: true) { dst -> Bool in
                var s = gpick_i420(f: src), d = gpick_i420(f: dst)
                return gpick_placeholder_i420(&s, &d, factor, radius, mirror ? 1 : 0) == 0
            } ?? false
        } ?? false
        return ok ? out : nil
    }

    /// `from` faded towards `to` by `alpha` (0…1), as a new buffer.
    static func blend(from: OwnedBuffer, to frame: Sample, alpha: Double) -> OwnedBuffer? {
        guard let info = frame.videoInfo, info.format == "I420", let out = OwnedBuffer.allocate(size: info.size) else { return nil }
        let a256 = Int32((alpha * 256).rounded()).clamped(0, 256)
        let ok = from.view.withVideoFrame(caps: info, writable: false) { a -> Bool in
            frame.withVideoFrame { b -> Bool in
                out.view.withVideoFrame(caps: info, writable: true) { d -> Bool in
                    var ia = gpick_i420(f: a), ib = gpick_i420(f: b), id = gpick_i420(f: d)
                    gpick_blend_i420(&ia, &ib, &id, a256)
                    return true
                } ?? false
            } ?? false
        } ?? false
        return ok ? out : nil
    }
}

extension gpick_i420 {
    /// The planes of an I420 frame, for CImaging.
    init(f: VideoFrame) {
        self.init()
        width = Int32(f.width)
        height = Int32(f.height)
        planes = (f.planes[0].data.assumingMemoryBound(to: UInt8.self),
                  f.planes[1].data.assumingMemoryBound(to: UInt8.self),
                  f.planes[2].data.assumingMemoryBound(to: UInt8.self))
        strides = (Int32(f.planes[0].stride), Int32(f.planes[1].stride), Int32(f.planes[2].stride))
    }
}

extension Comparable {
    func clamped(_ lo: Self, _ hi: Self) -> Self { min(max(self, lo), hi) }
}
