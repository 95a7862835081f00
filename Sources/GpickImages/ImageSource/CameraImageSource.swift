import CVips
import GpickBase
import GpickFormats
import GpickKit
import GstCore

/// The live frame of a running capture session: each request takes the newest frame the
/// session has (or waits for its next), converted and scaled by GStreamer to the size asked
/// for, so a picker's camera cell asks again for every picture it shows. There is nothing
/// cheaper than the frame itself: a progressive request gets the one final result.
public struct CameraImageSource: ImageSource {
    public let session: CaptureSession
    /// How long to wait for a frame when the session has none yet (starting, flipping).
    public var frameTimeout: Double

    public init(session: CaptureSession, frameTimeout: Double = 5) {
        self.session = session
        self.frameTimeout = frameTimeout
    }

    public var name: String { "camera" }

    public func image(_ request: ImageRequest) -> ImageResults {
        let source = self
        return ImageResults(delivery: request.delivery) { outlet throws(GpickError) in
            let frame = try await source.frame()
            guard outlet.isWanted else { return }
            let picture = try await OffPool.run { () throws(GpickError) in try Self.picture(of: frame, request: request) }
            outlet.yield(ImageResult(picture: picture, degraded: false, origin: .cameraFrame))
        }
    }

    /// The newest frame as a JPEG at the camera's size (a camera has no stored original), with
    /// the EXIF every still gpick writes: when, and which camera.
    public func fullResolutionData() async throws(GpickError) -> [UInt8] {
        let frame = try await frame()
        let exif = StillExif(frame: frame, camera: session.camera)
        return try await OffPool.run { () throws(GpickError) in
            try exif.insert(into: try Self.picture(of: frame, request: ImageRequest(size: .fullResolution)).encoded(as: .jpeg))
        }
    }

    /// The size of the frames the camera delivers now.
    public func size() async throws(GpickError) -> PixelSize {
        if let info = session.latestFrame?.videoInfo { return PixelSize(width: info.width, height: info.height) }
        guard let info = try await frame().videoInfo else { throw GpickError(.device, "the camera's frames have no size") }
        return PixelSize(width: info.width, height: info.height)
    }

    /// The session's current frame, or its next within `frameTimeout`.
    func frame() async throws(GpickError) -> Sample {
        if let now = session.latestFrame { return now }
        let session = self.session
        let timeout = frameTimeout
        do {
            return try await withThrowingTaskGroup(of: Sample?.self) { group in
                group.addTask {
                    for try await frame in session.nextFrames(1) { return frame }
                    return nil
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                guard let first else {
                    throw session.failureReason ?? GpickError(.device, "the camera gave no frame within \(Int(timeout)) s")
                }
                return first
            }
        } catch let e as GpickError {
            throw e
        } catch is CancellationError {
            throw GpickError(.interrupted, "cancelled")
        } catch {
            throw GpickError(.device, "the camera gave no frame: \(error)")
        }
    }

    /// The frame converted to RGBA by GStreamer, already at the size the request needs (fill:
    /// covering the box, then cropped by libvips).
    @available(*, noasync, message: "it converts a frame: run it off the cooperative pool")
    static func picture(of frame: Sample, request: ImageRequest) throws(GpickError) -> VipsPicture {
        guard let info = frame.videoInfo, info.width > 0, info.height > 0 else {
            throw GpickError(.device, "the camera gave a frame with no size")
        }
        let shown = PixelSize(width: info.width, height: info.height)
        let box = request.box(for: shown)
        let size = box.mode == .fill ? StandIns.coverSize(of: shown, box: box) : StandIns.finalSize(of: shown, in: box)
        let caps: Caps
        do {
            caps = try Caps("video/x-raw,format=RGBA,width=\(size.width),height=\(size.height),pixel-aspect-ratio=1/1")
        } catch {
            throw GpickError(.runtime, "cannot convert the camera frame: \(error.message)")
        }
        let converted: Sample
        do { converted = try frame.converted(to: caps) } catch {
            throw GpickError(.runtime, "cannot convert the camera frame: \(error.message)")
        }
        // The camera's frames are opaque: the alpha band would only cost bytes.
        var picture = try VipsPicture.rgba(converted, unreadable: GpickError(.runtime, "cannot read the camera frame"))
            .derive("cannot use", subject: "the camera frame") { cvips_extract_bands($0, $1, 0, 3) }
        if box.mode == .fill, picture.width != box.width || picture.height != box.height {
            picture = try picture.scaled(to: box)
        }
        return picture
    }
}
