import FoundationEssentials
import Glibc
import GpickBase
import GstCore

/// The session's switch: every frame the outputs see passes through here into the `feed` appsrc.
/// Frames of the active source pass with their timestamps moved onto one continuous timeline;
/// while no source delivers (a flip warming up, suspended, a lost camera) a ticker pushes the
/// blurred last frame at the session's rate; when a source delivers again, a short crossfade
/// leads from the blur into it. So outputs never see a black frame or a gap in timestamps.
/// Which slot each frame takes is decided by `SwitchTimeline` (pure, unit-tested); this class
/// holds the frames, the state's lock and the ticker thread.
///
/// Frames are decided (slot, timestamp) inside `state`'s lock, and each decision takes a ticket
/// there; they are pushed outside the lock, in ticket order. So output timestamps strictly
/// increase, while a push that blocks (the feed applies back-pressure) never holds the lock.
final class FrameSwitch: Sendable {
    private let state: Monitor<State>
    private let output: @Sendable (OwnedBuffer) -> Void
    private let clock: @Sendable () -> UInt64?
    /// Told (on the pushing thread, outside the lock) when the first placeholder frame of an
    /// episode went out, with its output time.
    private let onPlaceholder: (@Sendable (UInt64) -> Void)?
    let frameDuration: UInt64
    let fadeFrames: Int

    private struct State {
        var timeline: SwitchTimeline
        var generation = 0
        var skip = 0
        var lastLive: Sample?
        var placeholder: OwnedBuffer?
        /// Output timestamps of recent synthetic frames (placeholder and crossfade), newest last.
        var synthetic: [UInt64] = []
        var stopped = false
        var tickerStarted = false
        var tickerRunning = false
        /// Bumped by every change the ticker waits for (a placeholder episode, the stop).
        var changes = 0
        /// Tickets: the next one to give out, and the one whose frames may be pushed now.
        var nextTicket: UInt64 = 0
        var serving: UInt64 = 0

        /// Frames decided together, pushed in the order of their ticket.
        mutating func batch(_ frames: [(OwnedBuffer?, pts: UInt64, synthetic: Bool)]) -> Batch {
            for (_, pts, isSynthetic) in frames where isSynthetic {
                synthetic.append(pts)
                if synthetic.count > 64 { synthetic.removeFirst(synthetic.count - 64) }
            }
            defer { nextTicket += 1 }
            return Batch(ticket: nextTicket, frames: frames.compactMap(\.0), placeholderShown: timeline.takePlaceholderShown())
        }
    }

    private struct Batch {
        let ticket: UInt64
        let frames: [OwnedBuffer]
        let placeholderShown: UInt64?
    }

    /// `output` receives the frames in order (the session's feed appsrc; it may block).
    init(fps: Int, clock: @escaping @Sendable () -> UInt64?, onPlaceholder: (@Sendable (UInt64) -> Void)? = nil,
         output: @escaping @Sendable (OwnedBuffer) -> Void) {
        let timeline = SwitchTimeline(fps: fps)
        frameDuration = timeline.frameDuration
        fadeFrames = timeline.fadeFrames
        state = Monitor(State(timeline: timeline))
        self.output = output
        self.clock = clock
        self.onPlaceholder = onPlaceholder
    }

    convenience init(feed: AppSrc, fps: Int, clock: @escaping @Sendable () -> UInt64?,
                     onPlaceholder: (@Sendable (UInt64) -> Void)? = nil) {
        self.init(fps: fps, clock: clock, onPlaceholder: onPlaceholder) { try? feed.push($0) }
    }

    // MARK: control (any thread)

    /// A new source generation takes over; its first `skip` frames are warm-up and not shown.
    /// Until it delivers, outputs get the placeholder (if anything was shown before).
    func activate(generation: Int, skip: Int) {
        state.withLock { s in
            s.generation = generation
            s.skip = skip
            s.timeline.newCamera(startedAt: clock() ?? 0)
            enterPlaceholder(&s)
        }
    }

    /// No source delivers any more (suspended or failed): outputs get the placeholder.
    func hold(generation: Int? = nil) {
        state.withLock { s in
            if let generation, generation != s.generation { return }
            s.generation = -1  // no camera's frames are taken until the next activate
            s.timeline.newCamera(startedAt: clock() ?? 0)
            enterPlaceholder(&s)
        }
    }

    /// Whether the frame with this output timestamp was made here rather than by a source.
    func isSynthetic(_ pts: UInt64) -> Bool {
        state.withLock { $0.synthetic.contains(pts) }
    }

    /// The output time of the newest frame pushed.
    var lastOutputTime: UInt64? { state.withLock { $0.timeline.lastPTS } }

    /// Ends the ticker (session stop) and lets go of the frames it holds. It does not wait: a
    /// ticker blocked in a push returns when the pipeline stops (see `joinTicker`).
    func shutdown() {
        state.withLock { s in
            s.stopped = true
            s.lastLive = nil
            s.placeholder = nil
            s.changes += 1
        }
    }

    /// Waits (at most `timeout` seconds) until the ticker thread has ended: call it after the
    /// pipeline has stopped, so nothing of this switch outlives the session. Blocks: not on the pool.
    func joinTicker(timeout: Double) {
        state.wait(until: { !$0.tickerRunning }, deadline: .now + .milliseconds(Int(timeout * 1000))) { _ in }
    }

    /// The placeholder is made from the last frame shown, so a mirrored camera (`--mirror-front`
    /// mirrors the stream itself) gives a mirrored placeholder.
    private func enterPlaceholder(_ s: inout State) {
        guard s.timeline.lastPTS != nil else { return }  // nothing shown yet: nothing to hold
        if s.timeline.enterPlaceholder(), let frame = s.lastLive { s.placeholder = Placeholder.make(from: frame) }
        s.changes += 1
        guard !s.tickerStarted else { return }
        s.tickerStarted = true
        s.tickerRunning = true
        detachThread(named: "gpick.placeholder") { [self] in tick() }
    }

    // MARK: frames (source streaming threads)

    /// A frame from the source of `generation`. Returns true for the first frame of a
    /// generation that was shown (the camera is live).
    @discardableResult
    func sourceFrame(_ sample: Sample, generation: Int) -> Bool {
        let decided = state.withLock { s -> (Batch, first: Bool)? in
            guard generation == s.generation, !s.stopped, let pts = sample.buffer?.pts else { return nil }
            if s.skip > 0 { s.skip -= 1; return nil }
            let fd = s.timeline.frameDuration
            let now = clock() ?? pts
            let placement = s.timeline.place(pts: pts, now: now, hasPlaceholder: s.placeholder != nil)
            guard case .show(let out, let fill, let blend, let first) = placement else {
                DebugLog.log(.debug, nil, "frame captured at \(pts) ns skipped at \(now) ns (output slot \(s.timeline.lastPTS ?? 0) ns taken)")
                return nil
            }
            if first {
                DebugLog.log(.info, nil, "generation \(generation): first frame captured at \(pts) ns, at \(now) ns: slots by \(s.timeline.useCaptureTime ? "capture time" : "arrival")")
            }
            var frames: [(OwnedBuffer?, pts: UInt64, synthetic: Bool)] = []
            if let ph = s.placeholder {
                for f in fill { frames.append((ph.copy(pts: f, duration: fd), f, true)) }
            }
            var buffer: OwnedBuffer?
            if let n = blend, let ph = s.placeholder {
                let alpha = Double(n + 1) / Double(s.timeline.fadeFrames + 1)
                buffer = Placeholder.blend(from: ph, to: sample, alpha: alpha)?.copy(pts: out, duration: fd)
            }
            if s.timeline.mode == .live { s.placeholder = nil }
            let isSynthetic = buffer != nil
            // Not seen by anyone else yet (straight from the camera's appsink): retimed in place.
            if buffer == nil { buffer = sample.retimedInPlace(pts: out, duration: fd) }
            s.lastLive = sample
            frames.append((buffer, out, isSynthetic))
            return (s.batch(frames), first)
        }
        guard let decided else { return false }
        send(decided.0)
        return decided.first
    }

    /// Pushes a batch once every earlier ticket's frames are out (may block: back-pressure).
    private func send(_ batch: Batch) {
        state.wait(until: { $0.serving == batch.ticket }) { _ in }
        for b in batch.frames { output(b) }
        state.withLock { $0.serving += 1 }
        if let shown = batch.placeholderShown { onPlaceholder?(shown) }
    }

    // MARK: ticker (its own thread: it sleeps, so never on the cooperative pool)

    private enum Step {
        case stop
        case idle(changes: Int)
        case sleep(nanoseconds: UInt64, changes: Int)
        case push(Batch)
    }

    private func tick() {
        while true {
            let step = state.withLock { s -> Step in
                if s.stopped {
                    s.tickerRunning = false
                    return .stop
                }
                // Without a clock (the pipeline is going down) the next frame counts as due now.
                let now = clock() ?? s.timeline.lastPTS.map { $0 + s.timeline.frameDuration } ?? 0
                switch s.timeline.tick(now: now, hasPlaceholder: s.placeholder != nil) {
                case .idle:
                    return .idle(changes: s.changes)
                case .wait(let at):
                    return .sleep(nanoseconds: at > now ? at - now : 0, changes: s.changes)
                case .push(let due):
                    guard let ph = s.placeholder else { return .idle(changes: s.changes) }
                    s.timeline.pushed(due, synthetic: true)
                    return .push(s.batch([(ph.copy(pts: due, duration: s.timeline.frameDuration), due, true)]))
                }
            }
            switch step {
            case .stop:
                return
            case .idle(let seen):
                state.wait(until: { $0.changes != seen }) { _ in }
            case .sleep(let ns, let seen):
                state.wait(until: { $0.changes != seen }, deadline: .now + .nanoseconds(Int64(ns))) { _ in }
            case .push(let batch):
                send(batch)
            }
        }
    }
}
