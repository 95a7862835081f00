import FoundationEssentials
import GstCore

/// A camera that stops delivering while it is still there is opened again, as a flip to the
/// same camera: outputs see the blurred last frame, then the camera fades back in. PipeWire's
/// session manager suspends a node it believes idle (WirePlumber after 5 s), and a stream that
/// was just connecting when it did waits for good with no error; so does a stream whose link
/// it cuts when it re-routes. A USB camera can hiccup the same way. The same holds for a camera
/// opened while the session runs (a flip, a resume, a reopening) that stays silent. A camera
/// that is gone, or stalls again and again, is lost, as before; one that is lost is looked for
/// until it is back, and then opened again (`watchForReturn`).
extension CaptureSession {
    /// Reopenings allowed within `reconnectWindow`; past them a stall is a loss.
    static let reconnectLimit = 3
    static let reconnectWindow: Duration = .seconds(60)

    /// The camera of generation `gen` (`spec`) sent nothing for the stall timeout after a frame
    /// (`why` says so; it may still be warming up): it is opened again if it is still there and the budget allows.
    func cameraStalled(_ gen: Int, _ spec: SourceSpec, why: String) {
        reopen(gen, spec, while: [.live, .starting], why: why, loss: GpickError(.device, "\(why) (disconnected?)"))
    }

    /// The camera of generation `gen`, opened while the session ran, is still there but sent no
    /// first frame within the silent-start timeout: opened again, within the same budget. The
    /// session's first camera is left to the start timeout (nothing has been shown yet).
    func cameraSilent(_ gen: Int, _ spec: SourceSpec, why: String) {
        guard frames.frameCount > 0 else { return }
        reopen(gen, spec, while: [.starting], why: why, loss: GpickError(.device, why))
    }

    private func reopen(_ gen: Int, _ spec: SourceSpec, while expected: [SourceState], why: String, loss: GpickError) {
        let now = ContinuousClock.now
        let allowed = !configuration.framesOnly && state.withLock { s -> Bool in
            guard s.generation == gen, expected.contains(s.sourceState), s.failure == nil, !s.stopBegun else { return false }
            s.reconnects.removeAll { now - $0 > Self.reconnectWindow }
            guard s.reconnects.count < Self.reconnectLimit else { return false }
            s.reconnects.append(now)
            return true
        }
        DebugLog.log(.info, nil, "camera generation \(gen): \(why); \(allowed ? "opening it again" : "no reopening (not current, or \(Self.reconnectLimit) in \(Self.reconnectWindow))")")
        guard allowed else { markSourceLost(gen, loss); return }
        let task = Task { [self] in
            guard await CameraDirectory.isPresent(spec) else {
                DebugLog.log(.info, nil, "camera generation \(gen): \(spec) is gone")
                markSourceLost(gen, loss)
                return
            }
            guard !state.withLock({ $0.stopBegun }) else { return }
            emit(.reconnecting(spec, why))
            // A reopened camera that stays silent comes back here through its own watchdog, and
            // is lost once the budget is spent.
            try? await switchSource(to: position, requested: pipeline?.runningTime, replacing: gen)
        }
        state.withLock { $0.reconnect = task }
    }

    /// How often a lost camera is looked for: a stat for a V4L2 device, the provider's listing
    /// for a PipeWire or libcamera camera (a few ms), so a second's wait costs nothing.
    static let returnPoll: Duration = .seconds(1)

    /// The camera of generation `gen` was lost (unplugged, its PipeWire node gone): it is looked
    /// for until the session stops, and opened again once it is back, as a flip to it. A preview,
    /// a stream and the picker's cell go on with it; a recording was finalised when it was lost.
    func watchForReturn(after gen: Int, _ spec: SourceSpec) {
        guard spec.isCamera, !configuration.framesOnly else { return }
        let task = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.returnPoll)
                guard !Task.isCancelled, state.withLock({ !$0.stopBegun && $0.generation == gen }) else { return }
                guard let back = await returned(spec) else { continue }
                DebugLog.log(.info, nil, "camera generation \(gen): \(spec) is back\(back == spec ? "" : " as \(back)")")
                emit(.reconnecting(back, back == spec ? "camera \(spec) is back" : "camera \(spec) is back as \(back)"))
                try? await switchSource(to: position, requested: pipeline?.runningTime, replacing: gen)
                return
            }
        }
        state.withLock { s in
            s.returnWatch?.cancel()
            s.returnWatch = task
        }
    }

    /// The source to open a lost camera by once it is back, nil while it is not. A V4L2 camera
    /// is followed by its stable link to the node it has now, and the session's cameras name
    /// that node from then on (flips and the next loss included).
    private func returned(_ spec: SourceSpec) async -> SourceSpec? {
        guard case .v4l2 = spec else { return await CameraDirectory.isPresent(spec) ? spec : nil }
        let link = state.withLock { s in spec.target.flatMap { s.v4l2Links[$0] } }
        guard let back = V4L2Names.returned(spec, link: link) else { return nil }
        guard back != spec else { return spec }
        state.withLock { s in
            for (p, c) in s.cameras where c == spec { s.cameras[p] = back }
            if let link, let device = back.target { s.v4l2Links[device] = link }
        }
        return back
    }
}
