import FoundationEssentials
import Glibc
import GstCore

/// The session's switch: every frame the outputs see passes through here into the `feed` appsrc.
/// Frames of the active source pass with their timestamps moved onto one continuous timeline;
/// while no source delivers (a flip warming up, suspended, a lost camera) a ticker pushes the
/// blurred last frame at the session's rate; when a source delivers again, a short crossfade
/// leads from the blur into it. So outputs never see a black frame or a gap in timestamps.
///
/// `@unchecked Sendable` invariant: every mutable field is guarded by `cond`. Frames are decided
/// (slot, timestamp) under `cond` and queued in `outbox`; they are pushed in that order under
/// `pushLock`, taken before `cond` is released, so output timestamps strictly increase while a
/// push that blocks (the feed applies back-pressure) never holds `cond`.
final class FrameSwitch: @unchecked Sendable {
    enum Mode: Equatable {
        /// Frames of the active source pass through.
        case live
        /// The ticker pushes the placeholder.
        case placeholder
        /// The next frames of the new source are blended out of the placeholder; n frames done.
        case fading(Int)
    }

    private let cond = Condition()
    private let feed: AppSrc
    private let clock: @Sendable () -> UInt64?
    let frameDuration: UInt64
    /// Crossfade length in frames (≤ 200 ms).
    let fadeFrames: Int
    private(set) var mode: Mode = .live
    private var generation = 0
    private var skip = 0
    /// Frames of the current generation skipped to bring its output time back to capture time.
    private var catchUp = 0
    /// Whether the current generation has shown a frame yet.
    private var generationShown = false
    /// Whether the current generation's timestamps are its capture times on the session clock.
    private var useCaptureTime = true
    /// Output time of slot 0 of the output grid: the first frame the session ever showed.
    private var anchor: UInt64?
    private var lastPTS: UInt64?
    private var lastLive: Sample?
    private var placeholder: OwnedBuffer?
    /// Output timestamps of recent synthetic frames (placeholder and crossfade), newest last.
    private var synthetic: [UInt64] = []
    private var stopped = false
    private let pushLock = Lock()
    private var outbox: [OwnedBuffer] = []
    /// Output time of the first synthetic frame of an episode, to report after unlocking.
    private var placeholderShown: UInt64?
    private var tickerStarted = false
    private var tickerRunning = false
    /// The first placeholder frame of an episode has not been pushed yet.
    private var placeholderPending = false
    /// Told (on the ticker thread, outside the lock) when the first placeholder frame of an
    /// episode went out, with its output time.
    var onPlaceholder: (@Sendable (UInt64) -> Void)?

    init(feed: AppSrc, fps: Int, clock: @escaping @Sendable () -> UInt64?) {
        self.feed = feed
        self.clock = clock
        frameDuration = 1_000_000_000 / UInt64(max(fps, 1))
        fadeFrames = max(1, min(Int((0.15 * Double(fps)).rounded()), Int(0.2 * Double(fps))))
    }

    // MARK: control (any thread)

    /// A new source generation takes over; its first `skip` frames are warm-up and not shown.
    /// Until it delivers, outputs get the placeholder (if anything was shown before).
    func activate(generation: Int, skip: Int) {
        cond.lock()
        self.generation = generation
        self.skip = skip
        catchUp = 0
        generationShown = false
        enterPlaceholderLocked()
        cond.unlock()
    }

    /// No source delivers any more (suspended or failed): outputs get the placeholder.
    func hold(generation: Int? = nil) {
        cond.lock()
        if let generation, generation != self.generation { cond.unlock(); return }
        self.generation = -1  // no camera's frames are taken until the next activate
        generationShown = false
        enterPlaceholderLocked()
        cond.unlock()
    }

    /// Whether the frame with this output timestamp was made here rather than by a source.
    func isSynthetic(_ pts: UInt64) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        return synthetic.contains(pts)
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
        guard lastPTS != nil else { return }  // nothing shown yet: nothing to hold
        if mode != .placeholder {
            if let frame = lastLive { placeholder = Placeholder.make(from: frame) }
            mode = .placeholder
            placeholderPending = true
        }
        startTickerLocked()
        cond.broadcast()
    }

    // MARK: frames (source streaming threads)

    /// The output time of the newest frame pushed.
    var lastOutputTime: UInt64? { cond.withLock { lastPTS } }

    /// A frame from the source of `generation`. Returns true for the first frame of a
    /// generation that was shown (the camera is live).
    @discardableResult
    func sourceFrame(_ sample: Sample, generation: Int) -> Bool {
        cond.lock()
        guard generation == self.generation, !stopped, let pts = sample.buffer?.pts else { cond.unlock(); return false }
        if skip > 0 { skip -= 1; cond.unlock(); return false }
        // Every output frame sits on one grid (anchor + k frames). A frame's slot comes from its
        // capture time when the source's timestamps are believable (cameras, a test source
        // started in step with the clock), else from when it arrived (a source whose timestamps
        // start at 0 when added later). That is decided once, at a source's first frame: a busy
        // machine delivers late, and late frames keep their own slots.
        let now = clock() ?? pts
        let fd = frameDuration
        if !generationShown { useCaptureTime = pts <= now + 2 * fd && pts + 3_000_000_000 >= now }
        let t = useCaptureTime ? pts : now
        let anchor = self.anchor ?? t
        self.anchor = anchor
        // The slot a frame's time falls in (never a later one), so a frame is shown no later
        // than it was captured: the placeholder after it then follows a flip within one slot.
        let k = Int64((Double(Int64(t) - Int64(anchor)) / Double(fd) + 0.01).rounded(.down))
        let next = lastPTS.map { Int64(($0 - anchor) / fd) + 1 } ?? k
        // A frame whose slot is already taken goes out late, in the next free slot (up to 2
        // ahead: late frames bunch on a busy machine). A new camera's first frames can land
        // there when they reach us later than the placeholder ticks; during the crossfade such
        // a frame is skipped instead (unseen under the blend), so output time comes back to
        // capture time and a later flip's placeholder follows its request by one slot at most.
        if k < next, useCaptureTime, case .fading = mode, catchUp < fadeFrames {
            catchUp += 1
            cond.unlock()
            return false
        }
        if k < next - 2 {
            cond.unlock()
            return false
        }
        let out = anchor + UInt64(max(next, k)) * fd
        let first = !generationShown
        if first {
            generationShown = true
            if mode == .placeholder, let ph = placeholder, lastPTS != nil {
                // The ticker fell behind (a busy machine): the placeholder fills the slots it
                // missed, so the timeline has no hole where the camera was switching.
                var slot = next
                while slot < k {
                    push(ph.copy(pts: anchor + UInt64(slot) * fd, duration: fd), at: anchor + UInt64(slot) * fd, synthetic: true)
                    slot += 1
                }
            }
            if mode == .placeholder { mode = placeholder == nil ? .live : .fading(0) }
        }
        var buffer: OwnedBuffer?
        var isSynthetic = false
        if case .fading(let n) = mode, let ph = placeholder {
            let alpha = Double(n + 1) / Double(fadeFrames + 1)
            buffer = Placeholder.blend(from: ph, to: sample, alpha: alpha)?.copy(pts: out, duration: frameDuration)
            isSynthetic = true
            if n + 1 >= fadeFrames { mode = .live; placeholder = nil } else { mode = .fading(n + 1) }
        } else {
            mode = .live
        }
        // Not seen by anyone else yet (straight from the camera's appsink): retimed in place.
        if buffer == nil { buffer = sample.retimedInPlace(pts: out, duration: frameDuration); isSynthetic = false }
        lastLive = sample
        push(buffer, at: out, synthetic: isSynthetic)
        sendAndUnlock()
        return first
    }

    /// Queues a frame (with `cond` held).
    private func push(_ buffer: OwnedBuffer?, at pts: UInt64, synthetic isSynthetic: Bool) {
        guard let buffer else { return }
        lastPTS = pts
        if isSynthetic {
            synthetic.append(pts)
            if synthetic.count > 64 { synthetic.removeFirst(synthetic.count - 64) }
            if placeholderPending { placeholderPending = false; placeholderShown = pts }
        }
        outbox.append(buffer)
    }

    /// Releases `cond` and pushes the queued frames in order (may block: back-pressure).
    private func sendAndUnlock() {
        let batch = outbox
        outbox.removeAll()
        let shown = placeholderShown
        placeholderShown = nil
        let tell = onPlaceholder
        pushLock.lock()
        cond.unlock()
        for b in batch { try? feed.push(b) }
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
            guard mode == .placeholder, let last = lastPTS, let ph = placeholder else { cond.wait(); continue }
            let due = last + frameDuration
            let now = clock() ?? due
            // The first placeholder frame goes out as soon as its slot begins (a flip shows at
            // once); later ones a slot behind the clock, so the new camera's first frame, which
            // arrives a little after its capture time, finds its own slot still free.
            let at = placeholderPending ? due : due + frameDuration
            if now < at {
                _ = cond.wait(until: Date(timeIntervalSinceNow: Double(at - now) / 1e9))
                continue
            }
            push(ph.copy(pts: due, duration: frameDuration), at: due, synthetic: true)
            sendAndUnlock()
            cond.lock()
        }
        tickerRunning = false
        cond.broadcast()
        cond.unlock()
    }
}

