import GpickKit

/// `publish start URL` / `publish stop`: the session pushed to an SRT, RTMP or RTSP server while the
/// script goes on. Losses and reconnections are events (`publish-lost`, `publish-connected`).
extension ScriptRunner {
    func startPublishing(_ url: String, session: CaptureSession, line: Int) async throws {
        if publishing != nil { throw GpickError(.usage, "the session is already being published (publish stop first)") }
        let target = try PublishTarget(url)
        let emit = self.emit
        let publication = try await Publication.start(in: session, to: target) { event in
            switch event {
            case .connected(let attempt):
                emit("publish-connected", ["url": "\(target)", "attempt": attempt])
            case .lost(let reason, let retryIn):
                emit("publish-lost", ["url": "\(target)", "cause": reason, "retry_in": retryIn])
            }
        }
        publishing = (publication, line)
        emit("publish-started", ["url": "\(target)", "line": line])
    }

    /// Stops publishing (`line` nil: the script ended with it still running).
    func stopPublishing(line: Int?) async {
        guard let (publication, _) = publishing else { return }
        publishing = nil
        await publication.stop()
        var fields: EventFields = ["frames": publication.framesEncoded, "sent": publication.framesSent,
                                   "connections": publication.connections]
        if let line { fields["line"] = line }
        emit("publish-stopped", fields)
    }
}
