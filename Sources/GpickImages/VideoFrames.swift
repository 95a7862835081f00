import GpickBase
import GstCore
import FoundationEssentials

/// A frame that stands for a video: what a thumbnail shows.
public struct VideoPoster: Sendable {
    /// 8-bit RGBA, upright (the container's rotation applied), inside the box asked for.
    public let picture: VipsPicture
    /// The video's length in seconds, when the container says.
    public let duration: Double?
    /// Where the frame was taken, in seconds from the start.
    public let position: Double?
    /// Its mean luma, 0–255.
    public let meanLuma: Double
}

/// Poster frames through GStreamer: a keyframe about a third of the way in, past black frames.
///
/// Speed comes from decoding as little as possible: the pipeline prerolls (one frame), then each
/// try is a flushing key-unit seek, which decodes from the keyframe at or nearest the position
/// and stops at the first frame, scaled down inside the pipeline so only a small RGBA picture
/// leaves it.
public enum VideoFrames {
    /// Mean luma under which a frame counts as black (fades, lens caps, intros).
    public static let blackLuma = 16.0
    /// Where to look, in order: a third of the way in, then further on, then earlier.
    static let fractions = [1.0 / 3, 1.0 / 2, 2.0 / 3, 1.0 / 6, 5.0 / 6]

    /// The poster frame, off the cooperative pool, a core's worth of decodes at a time.
    public static func poster(path: String, box: ImageBox, timeout: Double = 10) async throws(GpickError) -> VideoPoster {
        try await DecodeGate.shared.run { () async throws(GpickError) in
            try await OffPool.run { () throws(GpickError) in try poster(path: path, box: box, timeout: timeout) }
        }
    }

    @available(*, noasync, message: "it decodes and waits for GStreamer: await poster(path:box:timeout:) from async code")
    public static func poster(path: String, box: ImageBox, timeout: Double = 10) throws(GpickError) -> VideoPoster {
        // GStreamer's first start (a plugin scan, when its registry is new) is not the video's time.
        do { try Gst.initialize() } catch {
            throw GpickError(.plugin, "cannot make a video thumbnail: GStreamer cannot start (\(error.message))", detail: error.diagnostic)
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(max(0.1, timeout) * 1000))
        // Fill needs a frame that covers the box: take one that fits twice its long side, and crop.
        let side = box.mode == .fill ? 2 * max(box.width, box.height) : 0
        let (w, h) = box.mode == .fill ? (side, side) : (box.width, box.height)
        let run = try PosterRun(path: path, width: w, height: h, deadline: deadline)
        defer { run.stop() }
        let poster = try run.find()
        guard box.mode == .fill else { return poster }
        return VideoPoster(picture: try poster.picture.scaled(to: box), duration: poster.duration,
                           position: poster.position, meanLuma: poster.meanLuma)
    }
}

/// One file's pipeline, used from one thread: preroll, seek, pull the prerolled frame, repeat.
private final class PosterRun {
    let path: String
    let pipeline: Pipeline
    let sink: AppSink
    let deadline: ContinuousClock.Instant
    let watch = Monitor(Watch())
    /// Seconds, once the prerolled pipeline says.
    var duration: Double?

    /// What the bus said, recorded on the posting thread.
    struct Watch {
        var prerolls = 0
        var error: GStreamerError?
        var missing: String?
        var ended = false
    }

    init(path: String, width: Int, height: Int, deadline: ContinuousClock.Instant) throws(GpickError) {
        self.path = path
        self.deadline = deadline
        // Scaling happens before videoflip, so rotating a phone video costs a small frame; the
        // caps ask for anything inside the box with square pixels, and videoconvertscale picks
        // the largest size that keeps the aspect ratio (never enlarging).
        let description = "filesrc name=src ! decodebin name=dec ! videoconvertscale ! "
            + "video/x-raw,format=RGBA,width=[1,\(width)],height=[1,\(height)],pixel-aspect-ratio=1/1 ! "
            + "videoflip video-direction=auto ! appsink name=sink sync=false enable-last-sample=false max-buffers=1"
        do {
            try Gst.initialize()
            pipeline = try Pipeline.parse(description)
            try pipeline.requireElement(named: "src").set("location", path)
            sink = try AppSink(pipeline.requireElement(named: "sink"))
        } catch {
            throw GpickError(.plugin, "cannot make a video thumbnail: GStreamer's video elements are missing (\(error.message))",
                             detail: error.diagnostic)
        }
        // libav's video decoders, as decodebin adds them (before they open): one thread each. A
        // poster needs one or two frames, which frame threads cannot share out (they would only
        // queue more frames before the first comes out), and the decode gate already keeps a
        // core's worth of files decoding side by side. Measured on 50 1080p MP4s: faster, ~30 MB less.
        pipeline.onDeepElementAdded { element in
            if element.factoryName?.hasPrefix("avdec_") == true { try? element.set("max-threads", 1) }
        }
        let watch = self.watch
        pipeline.bus.observeSync { m in
            watch.withLock { w in
                switch m {
                case .asyncDone: w.prerolls += 1
                case .error(let e): if w.error == nil { w.error = e }
                case .missingPlugin(_, let d): w.missing = d
                case .endOfStream: w.ended = true
                default: break
                }
            }
        }
    }

    func stop() { _ = try? pipeline.setState(.null) }

    /// Prerolls, then seeks through the candidate positions until a frame is not black.
    func find() throws(GpickError) -> VideoPoster {
        do { try pipeline.setState(.paused) } catch { try checkBus(); throw failure(nil) }
        try waitForPreroll(after: 0)
        if let length = pipeline.queryDuration() { duration = Double(length) / 1e9 }
        guard let seconds = duration, seconds > 0.5 else {
            // Too short to seek in (or no length): the first frame it is.
            return try pull(duration: duration, position: 0)
        }
        var best: VideoPoster? = nil
        for fraction in VideoFrames.fractions {
            let target = seconds * fraction
            guard var frame = try look(at: target, accurate: false) else { break }
            // Keyframes far apart (a camera's 10 s GOP, a screen recording's single one): the
            // nearest is not "a third of the way in". Decode from the one before up to the spot.
            if let at = frame.position, abs(at - target) > max(1, seconds / 6),
               let exact = try look(at: target, accurate: true) {
                frame = exact
            }
            if frame.meanLuma >= VideoFrames.blackLuma { return frame }
            if frame.meanLuma > (best?.meanLuma ?? -1) { best = frame }
        }
        // Every look was black (or it cannot seek): the brightest seen, else the first frame.
        if let best { return best }
        return try pull(duration: seconds, position: 0)
    }

    /// Seeks (flushing: the pipeline prerolls again at the new spot) and takes the frame there;
    /// nil when the file cannot seek. A key-unit seek decodes one frame, the keyframe nearest
    /// `target`; an accurate one decodes from the keyframe before it up to `target`.
    private func look(at target: Double, accurate: Bool) throws(GpickError) -> VideoPoster? {
        let before = watch.withLock { $0.prerolls }
        let flags: Element.SeekFlags = accurate ? [.flush, .accurate] : [.flush, .keyUnit, .snapNearest]
        guard pipeline.seek(to: UInt64(max(0, target) * 1e9), flags) else { return nil }
        try waitForPreroll(after: before)
        return try pull(duration: duration, position: target)
    }

    /// Waits for the pipeline's next preroll (ASYNC_DONE), an error, or the deadline.
    private func waitForPreroll(after count: Int) throws(GpickError) {
        let done = watch.wait(until: { $0.prerolls > count || $0.error != nil || $0.ended }, deadline: deadline) {
            $0.prerolls > count || $0.error != nil || $0.ended
        }
        try checkBus()
        guard done else {
            throw GpickError(.input, "\(path): the video could not be read in time: it may be damaged")
        }
    }

    private func checkBus() throws(GpickError) {
        let (error, missing, ended, prerolls) = watch.withLock { ($0.error, $0.missing, $0.ended, $0.prerolls) }
        if let missing {
            throw GpickError(.plugin, "cannot read \(path): no decoder for it is installed here (\(missing))", detail: error?.diagnostic)
        }
        if let error { throw failure(error) }
        if ended, prerolls == 0 { throw GpickError(.input, "\(path) has no video frames") }
    }

    private func failure(_ e: GStreamerError?) -> GpickError {
        let reason: String
        if e?.isResourceNotFound == true || e?.isResourceOpenReadWrite == true {
            reason = "cannot open it"
        } else if e?.isStreamTypeNotFound == true {
            reason = "not a video format GStreamer reads"
        } else if e?.isStreamFailed == true {
            reason = "it has no video stream, or it is damaged"
        } else {
            reason = "the video is damaged or cannot be decoded"
        }
        return GpickError(.input, "cannot read \(path): \(reason)", detail: e?.diagnostic)
    }

    /// The prerolled frame, as a picture of our own (the sample is released here).
    private func pull(duration: Double?, position: Double) throws(GpickError) -> VideoPoster {
        let noFrame = GpickError(.input, "\(path): the video gave no frame")
        guard let sample = sink.tryPullPreroll() else { throw noFrame }
        let picture = try VipsPicture.rgba(sample, unreadable: noFrame)
        let at = sample.buffer?.pts.map { Double($0) / 1e9 } ?? position
        return VideoPoster(picture: picture, duration: duration, position: at, meanLuma: try picture.meanLuma())
    }
}
