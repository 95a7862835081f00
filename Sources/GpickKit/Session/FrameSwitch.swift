import FoundationEssentials
import Glibc
import GstCore

/// The session's switch: every frame the outputs see passes through here into the `feed` appsrc.
/// Frames of the active source pass with their timestamps moved onto one continuous timeline;
/// while no source delivers (a flip warming up, suspended, a lost camera) a ticker pushes the
/// blurred last frame at the session's rate; when a source delivers again, a short crossfade
/// leads from the blur into it. So outputs never see a black frame or a gap in timestamps.
/// Which slot each frame takes is decided by `SwitchTimeline` (pure, unit-tested); this class
/// holds the frames, the lock and the ticker thread.
///
/// `@unchecked Sendable` invariant: every mutable field is guarded by `cond`. Frames are decided
/// (slot, timestamp) under `cond` and queued in `outbox`; they are pushed in that order under
/// `pushLock`, taken before `cond` is released, so output timestamps strictly increase while a
/// push that blocks (the feed applies back-pressure) never holds `cond`.
final class FrameSwitch: @unchecked Sendable {
    private let cond = Condition()
    private let output: @Sendable (OwnedBuffer) -> Void
    private let clock: @Sendable () -> UInt64?
    private var timeline: SwitchTimeline
    private var generation = 0
    private var skip = 0
    private var lastLive: Sample?
    private var placeholder: OwnedBuffer?
    /// Output timestamps of recent synthetic frames (placeholder and crossfade), newest last.
    private var synthetic: [UInt64] = []
    private var stopped = false
    private let pushLock = Lock()
    private var outbox: [OwnedBuffer] = []
    private var tickerStarted = false
    private var tickerRunning = false
    /// Told (on the ticker thread, outside the lock) when the first placeholder frame of an
    /// episode went out, with its output time.
    var onPlaceholder: (@Sendable (UInt64) -> Void)?

    var frameDuration: UInt64 { timeline.frameDuration }
    var fadeFrames: Int { timeline.fadeFrames }

    /// `output` receives the frames in order (the session's feed appsrc; it may block).
    init(fps: Int, clock: @escaping @Sendable () -> UInt64?, output: @escaping @Sendable (OwnedBuffer) -> Void) {
        self.output = output
        self.clock = clock
        timeline = SwitchTimeline(fps: fps)
    }

    convenience init(feed: AppSrc, fps: Int, clock: @escaping @Sendable () -> UInt64?) {
        self.init(fps: fps, clock: clock) { try? feed.push($0) }
    }

    // MARK: control (any thread)

    /// A new source generation takes over; its first `skip` frames are warm-up and not shown.
    /// Until it delivers, outputs get the placeholder (if anything was shown before).
    func activate(generation: Int, skip: Int) {
        cond.lock()
        self.generation = generation
        self.skip = skip
        timeline.newCamera()
        enterPlaceholderLocked()
        cond.unlock()
    }

    /// No source delivers any more (suspended or failed): outputs get the placeholder.
    func hold(generation: Int? = nil) {
        cond.lock()
        if let generation, generation != self.generation { cond.unlock(); return }
        self.generation = -1  // no camera's frames are taken until the next activate
        timeline.newCamera()
        enterPlaceholderLocked()
        cond.unlock()
    }

    /// Whether the frame with this output timestamp was made here rather than by a source.
    func isSynthetic(_ pts: UInt64) -> Bool {
        cond.withLock { synthetic.contains(pts) }
    }

    /// Ends the ticker (session stop) and lets go of the frames it holds. It does not wait: a
    /// ticker blocked in a push returns when the pipeline stops (see `joinTicker`).
    func shutdown() {
        cond.lock()
        stopped = true
        lastLive = nil
        placeholder = nil
        cond.broadcast()
        cond.unlock()
    }

    /// Waits (at most `timeout` seconds) until the ticker thread has ended: call it after the
    /// pipeline has stopped, so nothing of this switch outlives the session. Blocks: not on the pool.
    func joinTicker(timeout: Double) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        cond.lock()
        while tickerRunning, cond.wait(until: deadline) {}
        cond.unlock()
    }

    /// The placeholder is made from the last frame shown, so a mirrored camera (`--mirror-front`
    /// mirrors the stream itself) gives a mirrored placeholder.
    private func enterPlaceholderLocked() {
        guard timeline.lastPTS != nil else { return }  // nothing shown yet: nothing to hold
        if timeline.enterPlaceholder(), let frame = lastLive { placeholder = Placeholder.make(from: frame) }
        startTickerLocked()
        cond.broadcast()
    }

    // MARK: frames (source streaming threads)

    /// The output time of the newest frame pushed.
    var lastOutputTime: UInt64? { cond.withLock { timeline.lastPTS } }

    /// A frame from the source of `generation`. Returns true for the first frame of a
    /// generation that was shown (the camera is live).
    @discardableResult
    func sourceFrame(_ sample: Sample, generation: Int) -> Bool {
        cond.lock()
        guard generation == self.generation, !stopped, let pts = sample.buffer?.pts else { cond.unlock(); return false }
        if skip > 0 { skip -= 1; cond.unlock(); return false }
        let fd = timeline.frameDuration
        guard case .show(let out, let fill, let blend, let first) = timeline.place(pts: pts, now: clock() ?? pts, hasPlaceholder: placeholder != nil) else {
            cond.unlock()
            return false
        }
        if let ph = placeholder {
            for f in fill { queue(ph.copy(pts: f, duration: fd), at: f, synthetic: true) }
        }
        var buffer: OwnedBuffer?
        if let n = blend, let ph = placeholder {
            let alpha = Double(n + 1) / Double(timeline.fadeFrames + 1)
            buffer = Placeholder.blend(from: ph, to: sample, alpha: alpha)?.copy(pts: out, duration: fd)
        }
        if timeline.mode == .live { placeholder = nil }
        let isSynthetic = buffer != nil
        // Not seen by anyone else yet (straight from the camera's appsink): retimed in place.
        if buffer == nil { buffer = sample.retimedInPlace(pts: out, duration: fd) }
        lastLive = sample
        queue(buffer, at: out, synthetic: isSynthetic)
        sendAndUnlock()
        return first
    }

    /// Queues a frame (with `cond` held).
    private func queue(_ buffer: OwnedBuffer?, at pts: UInt64, synthetic isSynthetic: Bool) {
        guard let buffer else { return }
        if isSynthetic {
            synthetic.append(pts)
            if synthetic.count > 64 { synthetic.removeFirst(synthetic.count - 64) }
        }
        outbox.append(buffer)
    }

    /// Releases `cond` and pushes the queued frames in order (may block: back-pressure).
    private func sendAndUnlock() {
        let batch = outbox
        outbox.removeAll()
        let shown = timeline.takePlaceholderShown()
        let tell = onPlaceholder
        pushLock.lock()
        cond.unlock()
        for b in batch { output(b) }
        pushLock.unlock()
        if let shown { tell?(shown) }
    }

    // MARK: ticker (its own thread: it sleeps, so never on the cooperative pool)

    private func startTickerLocked() {
        guard !tickerStarted else { return }
        tickerStarted = true
        tickerRunning = true
        detachThread(named: "gpick.placeholder") { [self] in tick() }
    }

    private func tick() {
        cond.lock()
        while !stopped {
            // Without a clock (the pipeline is going down) the next frame counts as due now.
            let now = clock() ?? timeline.lastPTS.map { $0 + timeline.frameDuration } ?? 0
            switch timeline.tick(now: now, hasPlaceholder: placeholder != nil) {
            case .idle:
                cond.wait()
            case .wait(let at):
                _ = cond.wait(until: Date(timeIntervalSinceNow: Double(at - now) / 1e9))
            case .push(let due):
                guard let ph = placeholder else { continue }
                timeline.pushed(due, synthetic: true)
                queue(ph.copy(pts: due, duration: timeline.frameDuration), at: due, synthetic: true)
                sendAndUnlock()
                cond.lock()
            }
        }
        tickerRunning = false
        cond.broadcast()
        cond.unlock()
    }
}
