import GpickBase
import GpickKit

/// Videos taken in the camera cell. One starts with the record button or key and ends with it
/// again, or by itself at the longest length set (`videoMaximumDuration`, as UIImagePickerController
/// does): either way its file joins the grid once, as the newest capture, and the page and the
/// terminal see the cell stop recording.
extension Picker {
    /// Starts a video (`on` nil or true) or stops the one being taken (`on` nil or false) and
    /// returns its item. Asked to stop when none runs (it reached its longest length a moment
    /// ago), it does nothing and returns nil.
    func video(_ on: Bool? = nil) async throws(GpickError) -> PickerItem? {
        let camera = try requireCamera()
        if on != true, let ending = await camera.stopVideo() {
            do { return try await ending.value } catch let e as GpickError { throw e } catch {
                throw GpickError(.runtime, "the video: \(error)")
            }
        }
        guard on != false else { return nil }
        try await camera.startVideo { [weak self] result, asked throws(GpickError) -> PickerItem in
            guard let self else { throw GpickError(.runtime, "the picker has ended") }
            return try await self.videoEnded(result, asked: asked)
        }
        setCamera { $0.recording = true }
        return nil
    }

    /// A video has ended: into the grid (and the library, if asked). One that ended by itself
    /// has nobody waiting for its answer, so a failure is put to the user as a problem.
    private func videoEnded(_ result: Result<RecordingResult, GpickError>, asked: Bool) async throws(GpickError) -> PickerItem {
        setCamera { $0.recording = false }
        do {
            let recording = try result.get()
            return try await captured([recording.path], kind: .video, duration: recording.duration)
        } catch {
            if !asked { problem(configuration.words(.videoFailed(error.message))) }
            throw error
        }
    }
}
