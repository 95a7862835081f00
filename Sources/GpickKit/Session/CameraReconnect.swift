import FoundationEssentials

/// A camera that stops delivering while it is still there is opened again, as a flip to the
/// same camera: outputs see the blurred last frame, then the camera fades back in. PipeWire's
/// session manager suspends a node it believes idle (WirePlumber after 5 s), and a stream that
/// was just connecting when it did waits for good with no error; so does a stream whose link
/// it cuts when it re-routes. A USB camera can hiccup the same way. A camera that is gone, stalls again and again, or does not come back is lost, as
/// before.
extension CaptureSession {
    /// Reconnects allowed within `reconnectWindow`; past them a stall is a loss.
    static let reconnectLimit = 3
    static let reconnectWindow: Duration = .seconds(60)

    /// The live camera of generation `gen` (`spec`) sent nothing for the stall timeout (`why`
    /// says so): it is opened again if it is still there and the budget allows.
    func cameraStalled(_ gen: Int, _ spec: SourceSpec, why: String) {
        let error = GpickError(.device, "\(why) (disconnected?)")
        let now = ContinuousClock.now
        let allowed = !configuration.framesOnly && state.withLock { s -> Bool in
            guard s.generation == gen, s.sourceState == .live, s.failure == nil, !s.stopBegun else { return false }
            s.reconnects.removeAll { now - $0 > Self.reconnectWindow }
            guard s.reconnects.count < Self.reconnectLimit else { return false }
            s.reconnects.append(now)
            return true
        }
        guard allowed else { markSourceLost(gen, error); return }
        let task = Task { [self] in
            guard await CameraDirectory.isPresent(spec) else { markSourceLost(gen, error); return }
            guard !state.withLock({ $0.stopBegun }) else { return }
            emit(.reconnecting(spec, why))
            do throws(GpickError) {
                try await switchSource(to: position, requested: pipeline?.runningTime, replacing: gen)
            } catch {
                return  // the switch has marked the new camera lost
            }
            watchReconnect(after: gen, GpickError(.device, why))
        }
        state.withLock { $0.reconnect = task }
    }

    /// A reconnected camera that delivers nothing within the start timeout is lost, with the
    /// stall that made it reconnect as the reason.
    private func watchReconnect(after gen: Int, _ error: GpickError) {
        guard let (newGen, _) = state.withLock({ s -> (Int, Void)? in s.generation > gen ? (s.generation, ()) : nil }) else { return }
        let limit = configuration.startTimeout
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(limit))
            guard let self, self.state.withLock({ $0.generation == newGen && $0.sourceState == .starting && !$0.stopBegun }) else { return }
            self.markSourceLost(newGen, GpickError(.device, "\(error.message); reconnecting gave no frame within \(Int(limit)) s"))
        }
    }
}
