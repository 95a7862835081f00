import Foundation
import GstCore

/// The session's switch: every frame the outputs see passes through here into the `feed` appsrc.
/// Frames of the active source pass with their timestamps moved onto one continuous timeline;
/// while no source delivers (a flip warming up, suspended, a lost camera) a ticker pushes the
/// blurred last frame at the session's rate; when a source delivers again, a short crossfade
/// leads from the blur into it. So outputs never see a black frame or a gap in timestamps.
///
/// `@unchecked Sendable` invariant: every mutable field is guarded by `cond`; pushes into the
/// appsrc happen under it too, so output timestamps are strictly increasing.
final class FrameSwitch: @unchecked Sendable {
    enum Mode: Equatable {
        /// Frames of the active source pass through.
        case live
        /// The ticker pushes the placeholder.
        case placeholder
        /// The next frames of the new source are blended out of the placeholder; n frames done.
        case fading(Int)
    }

    private let cond = NSCondition()
    private let feed: AppSrc
    private let clock: @Sendable () -> UInt64?
    let frameDuration: UInt64
    /// Crossfade length in frames (≤ 200 ms).
    let fadeFrames: Int
    private(set) var mode: Mode = .live
    private var generation = 0
    private var skip = 0
    private var offset: Int64?
    private var lastPTS: UInt64?
    private var lastLive: Sample?
    private var placeholder: OwnedBuffer?
    private var mirror = false
    /// Output timestamps of recent synthetic frames (placeholder and crossfade), newest last.
    private var synthetic: [UInt64] = []
    private var stopped = false
    private let tickerDone = DispatchSemaphore(value: 0)
    private var tickerStarted = false

    init(feed: AppSrc, fps: Int, clock: @escaping @Sendable () -> UInt64?) {
        self.feed = feed
        self.clock = clock
        frameDuration = 1_000_000_000 / UInt64(max(fps, 1))
        fadeFrames = max(1, min(Int((0.15 * Double(fps)).rounded()), Int(0.2 * Double(fps))))
    }

    // MARK: control (any thread)

    /// A new source generation takes over; its first `skip` frames are warm-up and not shown.
    /// Until it delivers, outputs get the placeholder (if anything was shown before).
    func activate(generation: Int, skip: Int, mirrorPlaceholder: Bool = false) {
        cond.lock()
        self.generation = generation
        self.skip = skip
        offset = nil
        enterPlaceholderLocked(mirror: mirrorPlaceholder)
        cond.unlock()
    }

    /// No source delivers any more (suspended or failed): outputs get the placeholder.
    func hold(generation: Int? = nil) {
        cond.lock()
        if let generation, generation != self.generation { cond.unlock(); return }
        self.generation += 1_000_000
        offset = nil
        enterPlaceholderLocked(mirror: mirror)
        cond.unlock()
    }

    /// Whether the frame with this output timestamp was made here rather than by a source.
    func isSynthetic(_ pts: UInt64) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        return synthetic.contains(pts)
    }

    var isLive: Bool { cond.withLock { mode == .live && offset != nil } }

    /// Ends the ticker (session stop).
    func shutdown() {
        cond.lock()
        let wait = tickerStarted && !stopped
        stopped = true
        cond.broadcast()
        cond.unlock()
        if wait { tickerDone.wait() }
    }

    private func enterPlaceholderLocked(mirror: Bool) {
        guard lastPTS != nil else { return }  // nothing shown yet: nothing to hold
        if mode != .placeholder {
            if let frame = lastLive { placeholder = Placeholder.make(from: frame, mirror: mirror) }
            self.mirror = mirror
            mode = .placeholder
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
        let first = offset == nil
        if offset == nil {
            // The first frame of a source continues the timeline right after what was shown.
            offset = lastPTS.map { Int64($0 + frameDuration) - Int64(pts) } ?? 0
            if mode == .placeholder { mode = placeholder == nil ? .live : .fading(0) }
        }
        let out = UInt64(max(0, Int64(pts) + offset!))
        if let last = lastPTS, out < last + frameDuration / 2 {
            cond.unlock()  // a source running ahead of the timeline: skip a frame
            return false
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
        if buffer == nil { buffer = sample.retimedBuffer(pts: out, duration: frameDuration); isSynthetic = false }
        lastLive = sample
        push(buffer, at: out, synthetic: isSynthetic)
        cond.unlock()
        return first
    }

    private func push(_ buffer: OwnedBuffer?, at pts: UInt64, synthetic isSynthetic: Bool) {
        guard let buffer else { return }
        lastPTS = pts
        if isSynthetic {
            synthetic.append(pts)
            if synthetic.count > 64 { synthetic.removeFirst(synthetic.count - 64) }
        }
        try? feed.push(buffer)
    }

    // MARK: ticker (its own thread: it sleeps, so never on the cooperative pool)

    private func startTickerLocked() {
        guard !tickerStarted else { return }
        tickerStarted = true
        let t = Thread { [self] in tick() }
        t.name = "gpick.placeholder"
        t.start()
    }

    private func tick() {
        cond.lock()
        while !stopped {
            guard mode == .placeholder, let last = lastPTS, let ph = placeholder else { cond.wait(); continue }
            let due = last + frameDuration
            let now = clock() ?? due
            if now < due {
                _ = cond.wait(until: Date(timeIntervalSinceNow: Double(due - now) / 1e9))
                continue
            }
            push(ph.copy(pts: due, duration: frameDuration), at: due, synthetic: true)
        }
        cond.unlock()
        tickerDone.signal()
    }
}
