import FoundationEssentials
import GstCore

/// Routing the session's bus messages. An error belongs to whatever bin its source object sits
/// in (ancestry, as gstreamer-rs compares message sources, never the text of a path): an output,
/// the current camera's stage, a stage being stopped (ignored), or else the session itself.
extension CaptureSession {
    /// Where an error came from.
    enum ErrorOwner {
        case output(any SessionOutput)
        case camera(generation: Int, spec: SourceSpec)
        case stoppingCamera
        /// An element no longer in the pipeline: a branch already cut off and removed (a part
        /// that failed on a full disk), whose muxer or sink said more on its way down.
        case removed
        case session
    }

    func owner(of e: GStreamerError) -> ErrorOwner {
        guard let origin = e.origin else { return .session }
        return state.withLock { s -> ErrorOwner in
            if let o = s.outputs.values.first(where: { $0.bin.contains(origin) }) { return .output(o) }
            if let stage = s.stage, stage.bin.contains(origin) { return .camera(generation: stage.generation, spec: stage.spec) }
            if s.stopping.contains(where: { $0.bin.contains(origin) }) { return .stoppingCamera }
            if let pipeline = s.graph?.pipeline, !pipeline.contains(origin) { return .removed }
            return .session
        }
    }

    func startBusReader(_ pipeline: Pipeline) {
        // Errors are pinned on the posting thread, before anything else runs: an output's, so an
        // EOS racing behind it cannot finalise it as a success; a camera's, so the switch holds
        // the placeholder before another frame can be shown; the session's, so play() can say
        // why a state change failed.
        pipeline.bus.observeSync { [weak self] m in
            guard case .error(let e) = m, let self else { return }
            switch self.owner(of: e) {
            case .output(let o):
                o.elementFailedSync(e, source: self.source)
            case .camera(let gen, let spec):
                self.markSourceLost(gen, ErrorInterpreter.describe(e, source: spec))
            case .stoppingCamera, .removed:
                break
            case .session:
                let error = ErrorInterpreter.describe(e, source: self.source)
                self.state.withLock { s in if s.startError == nil { s.startError = error } }
            }
        }
        let messages = pipeline.bus.messages()
        let task = Task.detached { [weak self] in
            for await m in messages {
                guard let self else { return }
                self.handle(m)
            }
        }
        state.withLock { $0.busTask = task }
    }

    private func handle(_ m: BusMessage) {
        switch m {
        case .error(let e):
            switch owner(of: e) {
            case .output(let o): o.elementFailed(e, source: source)
            case .camera, .stoppingCamera, .removed: break  // handled on the posting thread
            case .session: fail(ErrorInterpreter.describe(e, source: source))
            }
        case .warning(let w):
            emit(.warning(w.description, detail: w.diagnostic))
        case .latency:
            recalculateLatency()
        case .missingPlugin(_, let description):
            fail(GpickError(.plugin, "missing GStreamer plugin: \(description)", remedy: .checkPlugins))
        default:
            break
        }
    }

    /// Each branch added or removed posts a latency message, and parts of a split recording come
    /// many a second: one recalculation runs at a time (a thread each had hundreds waiting on the
    /// pipeline's state lock), and one more after it covers the messages posted meanwhile.
    private func recalculateLatency() {
        guard let p = pipeline else { return }
        let start = state.withLock { s -> Bool in
            defer { s.latency = s.latency == .idle ? .running : .runAgain }
            return s.latency == .idle
        }
        guard start else { return }
        sessionJob { [weak self] in
            repeat {
                p.recalculateLatency()
            } while self?.state.withLock({ s -> Bool in
                defer { s.latency = s.latency == .runAgain ? .running : .idle }
                return s.latency == .runAgain
            }) == true
        }
    }

    /// Idle, a recalculation running, or running with another message come since it began.
    enum LatencyWork { case idle, running, runAgain }

    /// A session failure: outputs finalise what they have, and every wait for frames ends.
    func fail(_ error: GpickError) {
        let outputs = state.withLock { s -> [any SessionOutput]? in
            guard s.failure == nil else { return nil }
            s.failure = error
            return Array(s.outputs.values)
        }
        guard let outputs else { return }
        emit(.sourceFailed(error))
        frames.fail(error)
        failLiveWaiters(error)
        for o in outputs { o.sessionFailed(error) }
    }
}
