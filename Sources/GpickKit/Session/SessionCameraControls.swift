import GpickBase

/// The current camera's controls while the session runs (a V4L2 camera's: exposure, focus,
/// white balance…), as AVFoundation's device exposes them: read, and set after being checked.
extension CaptureSession {
    /// The current camera's controls as the device reports them now.
    public func cameraControls() async throws(GpickError) -> [CameraControl] {
        let device = try V4L2ControlDevice.of(source)
        return try await OffPool.run { () throws(GpickError) in try device.controls() }
    }

    /// Sets `settings` on the current camera (checked first: one refused sets nothing), and
    /// returns what was set, automatic modes first.
    @discardableResult
    public func setCameraControls(_ settings: [ControlSetting]) async throws(GpickError) -> [ResolvedControl] {
        let device = try V4L2ControlDevice.of(source)
        let set = try await OffPool.run { () throws(GpickError) in try device.apply(settings) }
        emit(.cameraControls(position, source, set))
        return set
    }
}
