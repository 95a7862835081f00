import GstCore

/// Which part of a split recording takes each frame, decided once per frame where it enters the
/// session's video tee, before the tee hands it to the parts' branches.
///
/// A part waits, attached and held, until the handoff gives it its first frame: the first at or
/// after its boundary that arrives once the part is attached. A part that was attached late (its
/// encoder took longer to start than the part before it lasted, on a loaded machine) starts at
/// the first frame after it was ready, and the part before it keeps the frames until then. So
/// a late part moves its boundary, and no frame is lost or recorded twice; deciding on each
/// branch's own pad instead could not tell whether the other branch had seen the frame yet.
///
/// A recording with a duration ends here too, after its number of frames, as a recording in one
/// file does: a loaded machine's frames come further apart than the rate says, and an end in
/// running time would take fewer of them. The first part is held and handed its first frame
/// here like the others, so every frame the recording takes is counted from where it starts
/// (the handoff is watching before any part takes a frame, however late its caller resumes).
final class PartHandoff: Sendable {
    private struct Waiting {
        let part: MovieRecording
        let boundary: UInt64
    }
    private struct State {
        /// The part taking frames now (none before the first one's first frame).
        var active: MovieRecording?
        /// Attached parts in order, each held until its boundary.
        var waiting: [Waiting] = []
        /// Frames the parts before the active one took.
        var before = 0
        var done = false
        /// Fired once a frame at or after their time has entered the tee.
        var frameWaiters: [(time: UInt64, signal: Signal)] = []
        /// The output time of the latest frame that entered the tee.
        var lastFrame: UInt64?
    }
    private let state: Locked<State>
    private let frameDuration: UInt64
    private let limit: Int?

    /// Watches the frames entering `tee`; queue the first part (held) with boundary 0. With a
    /// `limit`, the recording ends after that many frames.
    init(tee: Element, frameDuration: UInt64, limit: Int?) {
        state = Locked(State())
        self.frameDuration = frameDuration
        self.limit = limit
        _ = tee.staticPad("sink")?.addProbe(.buffer) { [weak self] info in
            guard let self, let pts = info.buffer?.pts else { return .ok }
            return self.frame(at: pts)
        }
    }

    /// `part` is attached (a frame entering the tee from now on reaches it): it takes over from
    /// the part before it at the first frame at or after `boundary`.
    func queue(_ part: MovieRecording, from boundary: UInt64) {
        let over = state.withLock { s -> Bool in
            if s.done { return true }
            s.waiting.append(Waiting(part: part, boundary: boundary))
            return false
        }
        // The recording has already taken its frames: the part ends empty, and is left out.
        if over { part.requestStop() }
    }

    /// Fires once a frame at or after output time `time` has entered the tee, so every part
    /// attached from then on comes after that frame.
    func frameEntered(atOrAfter time: UInt64) -> Signal {
        let signal = Signal()
        state.withLock { $0.frameWaiters.append((time, signal)) }
        return signal
    }

    /// The output time of the latest frame that entered the tee: how far the recording has got,
    /// which a pipeline's running time does not say (a source that falls behind its clock on a
    /// loaded machine delivers frames whose output time lags it by seconds).
    var lastFrameTime: UInt64? { state.withLock { $0.lastFrame } }

    /// The recording is over: the probe removes itself at the next frame.
    func finish() {
        state.withLock { $0.done = true }
    }

    /// One frame, on the streaming thread: at most one handoff per frame, so a part that starts
    /// late still gets at least the frame it starts at. Every frame before it has been counted
    /// by the part it entered (the tee pushes on this thread). Takes each part's lock inside
    /// this one; the parts never call back here.
    private func frame(at pts: UInt64) -> ProbeReturn {
        var handedOver: String?
        let (late, done, entered) = state.withLock { s -> (UInt64, Bool, [Signal]) in
            s.lastFrame = pts
            let entered = s.frameWaiters.filter { $0.time <= pts }.map(\.signal)
            s.frameWaiters.removeAll { $0.time <= pts }
            guard !s.done else { return (0, true, entered) }
            if let limit, let active = s.active, s.before + active.framesTaken >= limit {
                active.end(before: pts)
                // Parts still held will get no frame: they end empty, and are left out.
                for w in s.waiting { w.part.requestStop() }
                s.waiting.removeAll()
                s.done = true
                return (0, true, entered)
            }
            guard let next = s.waiting.first, pts >= next.boundary else { return (0, false, entered) }
            s.waiting.removeFirst()
            let previous = s.active
            previous?.end(before: pts)
            s.before += previous?.framesTaken ?? 0
            next.part.begin(at: pts)
            s.active = next.part
            handedOver = next.part.output.name
            return (previous == nil ? 0 : pts - next.boundary, false, entered)
        }
        if let handedOver { DebugLog.log(.debug, nil, "split recording: the frame at \(pts) ns begins \(handedOver)") }
        for e in entered { e.fire() }
        // The first frame at or after a boundary is less than a frame after it, when on time.
        if late >= frameDuration {
            DebugLog.log(.info, nil, "a split recording's part was attached late: it starts \(late / 1_000_000) ms after its boundary")
        }
        return done ? .remove : .ok
    }
}
