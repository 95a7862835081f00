import GpickBase

/// The running session as a network stream, from the session itself.
extension CaptureSession {
    /// Serves the running session over RTSP at `rtsp://…/name` on `server` (one encoder for every
    /// viewer). Stop it with ``RTSPStream/stop()``; the server can hold several sessions' mounts.
    public func serve(on server: RTSPServer, name: String = "cam", values: [String: Parameter.Value] = [:]) async throws(GpickError) -> RTSPStream {
        try await RTSPStream.start(in: self, on: server, name: name, values: values)
    }

    /// Pushes the running session to a server that already exists (SRT, RTMP(S) or RTSP). The first
    /// connection must hold; later losses and reconnections come as the handle's
    /// ``Publication/events``. Stop it with ``Publication/stop()``.
    public func publish(to target: PublishTarget, values: [String: Parameter.Value] = [:],
                        passphrase: String? = nil) async throws(GpickError) -> Publication {
        try await Publication.start(in: self, to: target, values: values, passphrase: passphrase)
    }
}
