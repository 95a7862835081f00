import GpickTerminal
import GpickWeb
import Foundation
import GpickBase
import GpickKit
import GpickLibrary

/// Where the terminal picker wants its camera frames, and in what box.
struct PickerFrames: Sendable {
    var box: PixelBox
    var handler: @Sendable (RGBFrame) -> Void
}

/// The camera cell's camera: a session, its preview (a stream on the picker's server, or frames
/// for the terminal cell), and what the cell's buttons and keys do. Opened only when the cell is shown.
actor PickerCamera {
    let session: CaptureSession
    let settings: PickerConfiguration.Capture
    let directory: String
    private var preview: Preview?
    private var encoder: StillEncoder?
    private var ring: LiveRing?
    /// The video being taken, and the task that ends it (see `startVideo`).
    private var video: (movie: MovieRecording, ending: Task<PickerItem, any Error>)?
    private var next = 1

    static let streamPath = "/camera.mjpg"

    /// `directory`: where captures are written (the output folder, or a private folder whose
    /// files the library import then moves).
    init(settings: PickerConfiguration.Capture, directory: String) {
        self.settings = settings
        self.directory = directory
        session = CaptureSession(settings.session)
    }

    var liveOn: Bool { ring != nil }

    /// Starts the camera and its preview: a stream mounted on the page's server, or frames
    /// handed to the terminal picker's camera cell.
    func start(on server: WebServer?, frames: PickerFrames?) async throws(GpickError) {
        try await session.start()
        var options = PreviewOptions()
        if let server {
            options.server = server
            options.streamPath = Self.streamPath
            options.snapshotPath = "/camera.jpg"
            options.maxHTTPWidth = 640
            preview = try await Preview.start(.http, in: session, options: options)
        } else if let frames {
            options.frameHandler = frames.handler
            options.frameBox = frames.box
            preview = try await Preview.start(.terminal, in: session, options: options)
        }
        encoder = try await StillEncoder.make(format: .jpeg, quality: nil, library: settings.session.library)
    }

    /// A photo, or a live photo when live is on: the frame of the moment asked (zero lag).
    func snap() async throws(GpickError) -> [String] {
        let name = try freshName("jpg")
        guard let encoder else { throw GpickError(.runtime, "the camera is not running") }
        if let ring {
            var live = settings.livePhoto
            live.force = false
            let r = try await LivePhotoCapture.capture(session: session, ring: ring, encoder: encoder, name: name, settings: live)
            return [r.motionPhoto, r.still, r.movie].compactMap { $0 }
        }
        guard let frame = session.latestFrame else {
            throw session.failureReason ?? GpickError(.runtime, "the camera has not delivered a frame yet")
        }
        let bytes = try await encoder.encode(frame, camera: session.camera)
        try await AtomicWrite.store(bytes, to: name)
        return [name.path]
    }

    /// The terminal cell changed size: frames fit the new box.
    func setFrameBox(_ box: PixelBox) throws(GpickError) {
        try preview?.setFrameBox(box)
    }

    /// Rests the camera (stops its source; the session shows the blurred last frame) or wakes it
    /// (the blurred frame first, then live frames, no black one). A recording keeps it awake:
    /// resting then would record the placeholder. Returns whether anything changed.
    func rest(_ on: Bool) async throws(GpickError) -> Bool {
        if on {
            guard video == nil, session.sourceState != .suspended else { return false }
            let offered = preview?.framesOffered ?? 0
            try await session.suspend()
            // Once the placeholder's frames reach the cell (its blurred last frame), the preview
            // pauses: a resting cell costs no scaling or encoding. Half a second at most.
            let deadline = ContinuousClock.now + .milliseconds(500)
            while let p = preview, p.framesOffered < offered + 3, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
            preview?.setPaused(true)
            return true
        }
        guard session.sourceState == .suspended else { return false }
        preview?.setPaused(false)
        try await session.resume()
        return true
    }

    func flip() async throws(GpickError) -> CameraPosition {
        try await session.flip()
    }

    /// Live photos on or off: on arms the pre-roll ring (the shutter then waits for its pre-roll).
    func setLive(_ on: Bool) async throws(GpickError) {
        guard settings.cameraMode == .photoAndLive else {
            throw GpickError(.usage, "live photos are off in this picker (camera mode photo-and-live turns them on)")
        }
        if on, ring == nil {
            let r = try await LiveRing.arm(in: session, seconds: settings.livePhoto.before + 0.5)
            ring = r
            try await r.waitForPreroll(settings.livePhoto.before)
        } else if !on, let r = ring {
            ring = nil
            await r.disarm()
        }
    }

    /// Starts a video that stops by itself at the longest length set. However it ends (asked to
    /// stop, at its longest, or failing), one task hands its result to `ended` once, with whether
    /// the stop was asked for; `stopVideo` returns that task to whoever asked.
    func startVideo(ended: @escaping @Sendable (Result<RecordingResult, GpickError>, _ asked: Bool) async throws(GpickError) -> PickerItem)
        async throws(GpickError) {
        guard video == nil else { throw GpickError(.runtime, "a video is being recorded already") }
        let name = try freshName("mp4")
        var recording = RecordingSettings(container: try Container(path: name))
        recording.duration = settings.videoMaximumDuration
        let movie = try await MovieRecording.start(in: session, to: name, settings: recording)
        let ending = Task { [weak self] () async throws -> PickerItem in
            let result: Result<RecordingResult, GpickError>
            do throws(GpickError) { result = .success(try await movie.finished()) } catch { result = .failure(error) }
            let asked = await self?.videoEnded(movie) ?? true
            return try await ended(result, asked)
        }
        video = (movie, ending)
    }

    /// Stops the video being taken; the task that ends it, or nil if none runs (it may have
    /// reached its longest length a moment ago).
    func stopVideo() -> Task<PickerItem, any Error>? {
        guard let (movie, ending) = video else { return nil }
        video = nil
        movie.requestStop()
        return ending
    }

    /// The video ended: whether a stop was asked for (else it ended by itself).
    private func videoEnded(_ movie: MovieRecording) -> Bool {
        guard let current = video?.movie, current === movie else { return true }
        video = nil
        return false
    }

    func stop() async {
        if let ending = stopVideo() { _ = try? await ending.value }
        if let r = ring { await r.disarm() }
        ring = nil
        await preview?.stop()
        await encoder?.close()
        await session.stop()
    }

    /// pick-0001.jpg, pick-0002.mp4, …: numbered names that never clobber a file.
    private func freshName(_ ext: String) throws(GpickError) -> OutputPath {
        var target: OutputPath
        repeat {
            target = try OutputPath(cFormat("pick-%04d.", next) + ext, confinedTo: directory)
            next += 1
        } while fileStatus(target.path) != nil || fileStatus(target.path.replacing(".jpg", with: ".MP.jpg")) != nil
        return target
    }
}
