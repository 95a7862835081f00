import FoundationEssentials
import Glibc
import GpickFormats
import GstCore

/// The cameras of a session: which one is where, flipping and suspending without stopping the
/// pipeline, and what happens when one is lost or runs out.
extension CaptureSession {
    /// Switches to the other camera without stopping the pipeline: outputs see the blurred last
    /// frame until the new camera delivers, then a short crossfade into it. Returns the new
    /// position at once; `waitUntilLive()` waits for the camera.
    @discardableResult
    public func flip() async throws(GpickError) -> CameraPosition {
        let target = position.other
        try await switchSource(to: target, requested: pipeline?.runningTime)
        return target
    }

    /// Stops the camera; outputs (and a recording) see the blurred last frame.
    public func suspend() async throws(GpickError) {
        try requireFullSession("suspend")
        guard let graph, let switcher = graph.switcher else { throw GpickError(.runtime, "the session is not running") }
        let suspended = GpickError(.usage, "the camera is suspended (resume it first)")
        let old = state.withLock { s -> SourceStage? in
            guard s.sourceState != .suspended else { return nil }
            s.sourceState = .suspended
            s.generation += 1
            defer { s.stage = nil }
            if let stage = s.stage { s.stopping.append(stage) }
            return s.stage
        }
        failLiveWaiters(suspended)
        switcher.hold()
        frames.hold(reason: suspended, after: nil)
        emit(.suspended)
        if let old { await stopStage(old, in: graph.pipeline) }
    }

    /// Restarts the camera at the current position, with the same unblur as a flip.
    public func resume() async throws(GpickError) {
        try await switchSource(to: position, requested: pipeline?.runningTime)
    }

    /// Waits until the current camera delivers (after a flip or resume).
    public func waitUntilLive(timeout: Double? = nil) async throws(GpickError) {
        let limit = timeout ?? configuration.startTimeout
        let id = state.withLock { s -> UInt64 in defer { s.nextWaiter += 1 }; return s.nextWaiter }
        do {
            try await withTimeout(limit) {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                        let now = self.state.withLock { s -> Result<Void, Error>? in
                            if let f = s.failure { return .failure(f) }
                            switch s.sourceState {
                            case .live: return .success(())
                            case .suspended: return .failure(GpickError(.usage, "the camera is suspended (resume it first)"))
                            case .failed(let m): return .failure(GpickError(.device, m))
                            case .starting:
                                if Task.isCancelled { return .failure(CancellationError()) }
                                s.liveWaiters[id] = c
                                return nil
                            }
                        }
                        if let now { c.resume(with: now) }
                    }
                } onCancel: {
                    self.state.withLock { $0.liveWaiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
                }
            }
        } catch let e as GpickError {
            throw e
        } catch {
            throw GpickError(.device, "\(source) delivered no frame within \(Int(limit)) s")
        }
    }

    /// Ends every wait for the camera with `error` (it was suspended, lost, or the session stopped).
    func failLiveWaiters(_ error: GpickError) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Error>] in
            defer { s.liveWaiters.removeAll() }
            return Array(s.liveWaiters.values)
        }
        for w in waiters { w.resume(throwing: error) }
    }

    /// Starts the camera at `target` in place of the current one. With `replacing`, only if the
    /// camera of that generation is still the current one (a reconnect that a suspend, flip or
    /// stop overtook does nothing).
    func switchSource(to target: CameraPosition, requested: UInt64?, replacing: Int? = nil) async throws(GpickError) {
        try requireFullSession(target == position ? "resume" : "flip")
        guard let graph, let switcher = graph.switcher else { throw GpickError(.runtime, "the session is not running") }
        let spec = try await resolvedSpec(for: target)
        try await Self.checkPlayable(spec)
        let switched = state.withLock { s -> (Int, SourceStage?)? in
            if let replacing, s.generation != replacing || s.failure != nil { return nil }
            s.generation += 1
            s.position = target
            s.sourceState = .starting
            defer { s.stage = nil }
            if let stage = s.stage { s.stopping.append(stage) }
            return (s.generation, s.stage)
        }
        guard let (gen, old) = switched else { return }
        // Announced first: the switch's placeholder event, from its own thread, comes after it.
        emit(.switching(target, spec, requested))
        switcher.activate(generation: gen, skip: warmupFrames(for: spec))
        frames.hold(reason: nil, after: switcher.lastOutputTime)
        let new: SourceStage
        do {
            new = try await OffPool.run { () throws(GpickError) in try self.makeStage(spec, position: target, generation: gen) }
        } catch {
            markSourceLost(gen, error)
            throw error
        }
        if let old { await stopStage(old, in: graph.pipeline) }
        // The current stage from now on, while it starts: a switch that overtakes a start that
        // hangs (a silent camera reopened) stops it.
        let current = state.withLock { s -> Bool in
            guard s.generation == gen else { s.stopping.append(new); return false }
            s.stage = new
            return true
        }
        guard current else { await stopStage(new, in: graph.pipeline); return }
        DebugLog.log(.info, nil, "camera generation \(gen) (\(spec)) starting")
        do {
            try await new.start(in: graph.pipeline)
        } catch {
            // Overtaken by another switch, which stopped this start and carries on, or already
            // marked lost (its watchdog): nothing more to say.
            guard state.withLock({ $0.generation == gen && $0.stage === new }) else { return }
            markSourceLost(gen, error)
            throw error
        }
        DebugLog.log(.info, nil, "camera generation \(gen) started")
    }

    /// Stops a stage and forgets it (its errors are not the camera's while it winds down).
    func stopStage(_ stage: SourceStage, in pipeline: Pipeline) async {
        await stage.stop(in: pipeline)
        state.withLock { $0.stopping.removeAll { $0 === stage } }
    }

    /// The camera for a position: `auto` and PipeWire or libcamera names resolved, and the
    /// default front camera (a second test source for a test back camera, another camera for a
    /// real one).
    func resolvedSpec(for p: CameraPosition) async throws(GpickError) -> SourceSpec {
        if let s = state.withLock({ $0.cameras[p] }) { return s }
        let resolved: SourceSpec
        let identity: CameraIdentity
        var formats: [CapsStructure] = []
        switch p == .back ? configuration.source : configuration.front {
        case .auto? where p == .back:
            let choice = try await AutoCamera.choose()
            emit(.sourceChosen(choice))
            (resolved, identity, formats) = (choice.source, choice.identity, choice.formats)
        case let given? where given != .auto:
            if given.cameraKind == .pipewire || given.cameraKind == .libcamera {
                let camera = try await CameraDirectory.find(given)
                (resolved, identity, formats) = (camera.source, .of(camera), camera.formats)
            } else {
                (resolved, identity) = (given, .of(given))
            }
        default:
            // A front camera not given (or `auto`): the default one for the back camera.
            resolved = try await defaultFront(for: try await resolvedSpec(for: .back))
            identity = .of(resolved)
        }
        // Named now, while it is there: once unplugged, its link is gone too.
        let link: String? = if case .v4l2(let device, _) = resolved { V4L2Names.system.stableLink(for: device) } else { nil }
        // The first resolution wins (two callers may race to the front camera's default).
        return state.withLock { s in
            if let existing = s.cameras[p] { return existing }
            s.cameras[p] = resolved
            if let link, let device = resolved.target { s.v4l2Links[device] = link }
            s.identities[p] = identity
            // A PipeWire or libcamera camera's modes are what its provider lists (its element
            // opened alone says nothing until it streams).
            if resolved.cameraKind == .pipewire || resolved.cameraKind == .libcamera { s.listedFormats[p] = formats }
            return resolved
        }
    }

    /// The front camera when none is given: a second test pattern for a test source, else
    /// another camera this user can open, of any kind.
    private func defaultFront(for back: SourceSpec) async throws(GpickError) -> SourceSpec {
        switch back {
        case .test(let o):
            var f = o
            f.id = o.id == 2 ? 3 : 2
            // A moving, bright pattern (not the ball's black field, which reads as black frames).
            f.pattern = o.pattern == "pinwheel" ? "smpte" : "pinwheel"
            f.failAfter = nil
            return .test(f)
        case _ where back.isCamera:
            let others = await CameraDirectory.cameras().filter { $0.source != back && !$0.isNamed(back.target ?? "") }
            guard let other = others.first(where: { (try? $0.source.checkAccessible()) != nil }) else {
                throw GpickError(.device, "no front camera: only \(back) was found", remedy: .giveFrontCamera)
            }
            return other.source
        default:
            throw GpickError(.usage, "no front camera for \(back)", remedy: .giveFrontCamera)
        }
    }

    /// A camera that can be opened, or a file that holds video (what is wrong, in one line).
    static func checkPlayable(_ spec: SourceSpec) async throws(GpickError) {
        try spec.checkAccessible()
        if case .file(let path) = spec { try await MediaProbe.checkVideoSource(path) }
    }

    // MARK: what cameras report (streaming threads)

    /// A source's first frame reached the switch. (The session's first camera says nothing:
    /// starting is the command's own event.)
    func sourceBecameLive(_ gen: Int) {
        let (pos, waiters) = state.withLock { s -> (CameraPosition?, [CheckedContinuation<Void, Error>]) in
            guard gen == s.generation else { return (nil, []) }
            s.sourceState = .live
            s.sourceError = nil
            defer { s.liveWaiters.removeAll() }
            return (s.position, Array(s.liveWaiters.values))
        }
        for w in waiters { w.resume() }
        guard let pos else { return }
        frames.release()
        if gen > 0 { emit(.sourceLive(pos)) }
    }

    /// The camera of generation `gen` failed (or could not start): the switch holds the blurred
    /// last frame, outputs are told (recordings are finalised with what they have), and an error
    /// event goes out. A camera that never delivered a frame fails the whole session, as before
    /// any output.
    func markSourceLost(_ gen: Int, _ error: GpickError) {
        let everLive = frames.frameCount > 0
        let (current, outputs, old) = state.withLock { s -> (Bool, [any SessionOutput], SourceStage?) in
            guard gen == s.generation, s.failure == nil else { return (false, [], nil) }
            guard everLive else { return (true, [], nil) }
            s.sourceState = .failed(error.message)
            s.sourceError = error
            let old = s.stage?.generation == gen ? s.stage : nil
            if let old { s.stage = nil; s.stopping.append(old) }
            return (true, Array(s.outputs.values), old)
        }
        guard current else { return }
        guard everLive else { fail(error); return }
        failLiveWaiters(error)
        let switcher = graph?.switcher
        // Outputs first, so not one placeholder frame gets into a recording after the camera's last.
        let last = switcher?.lastOutputTime
        for o in outputs { o.sourceStopped(after: last, error: error) }
        switcher?.hold(generation: gen)
        frames.hold(reason: error, after: nil)
        emit(.sourceFailed(error))
        if let spec = state.withLock({ $0.cameras[$0.position] }) { watchForReturn(after: gen, spec) }
        if let old, let pipeline {
            // Called on the posting thread: the stage is stopped off it.
            sessionJob {
                old.stopBlocking(in: pipeline)
                self.state.withLock { $0.stopping.removeAll { $0 === old } }
            }
        }
    }

    /// The source of generation `gen` ran out (a file source's end): outputs are told (recordings
    /// are finalised with everything it delivered), and they hold the blurred last frame.
    func markSourceEnded(_ gen: Int, _ spec: String) {
        // A source that ends before its first frame (a file with a video track but no frames)
        // fails the session, as a camera that never delivers does.
        if frames.frameCount == 0, state.withLock({ $0.generation == gen }) {
            fail(GpickError(.input, "\(spec) ended before its first frame (it holds no video frames)"))
            return
        }
        let ended = GpickError(.input, "\(spec) has ended")
        let outputs = state.withLock { s -> [any SessionOutput]? in
            guard gen == s.generation, s.failure == nil else { return nil }
            // An ended source is not current any more: what it posts while winding down
            // (streaming stopped, not-linked) is not a camera failure.
            s.generation += 1
            s.sourceState = .failed(ended.message)
            return Array(s.outputs.values)
        }
        guard let outputs else { return }
        failLiveWaiters(ended)
        let switcher = graph?.switcher
        let last = switcher?.lastOutputTime
        for o in outputs { o.sourceStopped(after: last, error: nil) }
        switcher?.hold()
        frames.hold(reason: ended, after: nil)
        emit(.notice("\(spec) has ended"))
    }
}
