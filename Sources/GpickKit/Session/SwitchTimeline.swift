/// The switch's timing decisions, apart from frames, locks and threads: which output slot a
/// camera frame takes, when it is skipped, when the placeholder ticks. Pure values in, decisions
/// out, so unit tests drive it with a clock of their own (FrameSwitch holds one under its lock).
///
/// Every output frame sits on one grid: anchor + k × frameDuration, where the anchor is the
/// first frame the session ever showed.
struct SwitchTimeline: Equatable {
    enum Mode: Equatable {
        /// Frames of the active source pass through.
        case live
        /// The ticker pushes the placeholder.
        case placeholder
        /// The next frames of the new source are blended out of the placeholder; n frames done.
        case fading(Int)
    }

    /// What to do with one camera frame.
    enum Placement: Equatable {
        /// Not shown: too late for any free slot, or skipped under the crossfade.
        case skip
        /// Shown at output time `at`. `fill`: earlier slots the placeholder takes first (the
        /// ticker fell behind); `blend`: the crossfade step, n of `fadeFrames`; `first`: the
        /// camera's first frame shown (it is live).
        case show(at: UInt64, fill: [UInt64], blend: Int?, first: Bool)
    }

    /// What the placeholder ticker does next.
    enum Tick: Equatable {
        /// Nothing to push (live, or nothing shown yet): wait to be woken.
        case idle
        /// The next placeholder frame is due at this clock time.
        case wait(until: UInt64)
        /// Push a placeholder frame with this output time now.
        case push(UInt64)
    }

    let frameDuration: UInt64
    /// Crossfade length in frames (≤ 200 ms).
    let fadeFrames: Int
    private(set) var mode: Mode = .live
    private(set) var anchor: UInt64?
    /// Output time of the newest frame pushed.
    private(set) var lastPTS: UInt64?
    /// Whether the current camera has shown a frame yet.
    private(set) var generationShown = false
    /// Whether the current camera's timestamps are its capture times on the session clock.
    private(set) var useCaptureTime = true
    /// When the current camera was told to start, on the session clock.
    private(set) var cameraStart: UInt64 = 0
    /// Frames of the current camera skipped to bring its output time back to capture time.
    private(set) var catchUp = 0
    /// How much later than its capture time each frame of the current camera goes out: its
    /// frames reached the switch after the placeholder had ticked past their slots.
    private(set) var lateness: UInt64 = 0
    /// The first placeholder frame of an episode has not been pushed yet.
    private(set) var placeholderPending = false
    /// Output time of the first placeholder frame of an episode, until the caller takes it (to
    /// report it outside its lock).
    private var placeholderShown: UInt64?

    init(fps: Int) {
        frameDuration = 1_000_000_000 / UInt64(max(fps, 1))
        fadeFrames = max(1, min(Int((0.15 * Double(fps)).rounded()), Int(0.2 * Double(fps))))
    }

    /// Another camera takes over, told to start at `startedAt` on the session clock (0 before
    /// the session runs): its first frame decides how its timestamps are read.
    mutating func newCamera(startedAt: UInt64) {
        cameraStart = startedAt
        generationShown = false
        catchUp = 0
        lateness = 0
    }

    /// A switch (or a suspend, or a lost camera) begins: outputs get the placeholder, if anything
    /// was shown before. True when an episode starts now (the caller makes the blurred frame).
    mutating func enterPlaceholder() -> Bool {
        guard lastPTS != nil, mode != .placeholder else { return false }
        mode = .placeholder
        placeholderPending = true
        return true
    }

    /// Where a frame captured at `pts` goes, with the clock at `now`; `hasPlaceholder`: a
    /// blurred frame exists to fill and fade from.
    mutating func place(pts: UInt64, now: UInt64, hasPlaceholder: Bool) -> Placement {
        let fd = frameDuration
        // A frame's slot comes from its capture time when the source's timestamps are on the
        // session clock (cameras, a test source started in step with it), else from when it
        // arrived (a source whose timestamps start at 0 when added later). Decided once, at a
        // camera's first frame, by whether it was captured after the camera was told to start
        // and not in the future. However late that frame arrives (a machine that stalls for
        // seconds), it says nothing about the clock: a source that falls behind catches up in
        // a burst, which capture times slot one by one, and arrival times would mostly skip.
        if !generationShown { useCaptureTime = pts <= now + 2 * fd && pts + 2 * fd >= cameraStart }
        let t = useCaptureTime ? pts : now
        let anchor = self.anchor ?? t
        self.anchor = anchor
        // The slot a frame's time falls in (never a later one), so a frame is shown no later
        // than it was captured: the placeholder after it then follows a flip within one slot.
        var k = Int64((Double(Int64(t) - Int64(anchor)) / Double(fd) + 0.01).rounded(.down))
        let next = lastPTS.map { Int64(($0 - anchor) / fd) + 1 } ?? k
        // A new camera whose first frame comes more than two slots after the placeholder took its
        // slot (a camera's own latency, a loaded machine) would have every frame dropped while
        // the placeholder, which follows the clock, stays ahead: its frames go out that much
        // later instead, still spaced by their capture times.
        if !generationShown, useCaptureTime, lastPTS != nil, k < next - 2 {
            lateness = UInt64(next - k) * fd
        }
        k += Int64(lateness / fd)
        // A frame whose slot is already taken goes out late, in the next free slot (up to 2
        // ahead: late frames bunch on a busy machine). A new camera's first frames can land
        // there when they reach us later than the placeholder ticks; during the crossfade such
        // a frame is skipped instead (unseen under the blend), so output time comes back to
        // capture time and a later flip's placeholder follows its request by one slot at most.
        if k < next, useCaptureTime, case .fading = mode, catchUp < fadeFrames {
            catchUp += 1
            return .skip
        }
        if k < next - 2 { return .skip }
        let slot = max(next, k)
        var fill: [UInt64] = []
        let first = !generationShown
        if first {
            generationShown = true
            // The ticker fell behind (a busy machine): the placeholder fills the slots it
            // missed, so the timeline has no hole where the camera was switching.
            if mode == .placeholder, hasPlaceholder, lastPTS != nil, next < k {
                fill = (next..<k).map { anchor + UInt64($0) * fd }
            }
            if mode == .placeholder { mode = hasPlaceholder ? .fading(0) : .live }
        }
        var blend: Int?
        if case .fading(let n) = mode, hasPlaceholder {
            blend = n
            mode = n + 1 >= fadeFrames ? .live : .fading(n + 1)
        } else {
            mode = .live
        }
        let at = anchor + UInt64(slot) * fd
        for f in fill { pushed(f, synthetic: true) }
        pushed(at, synthetic: blend != nil)
        return .show(at: at, fill: fill, blend: blend, first: first)
    }

    /// What the placeholder ticker does with the clock at `now`. The first placeholder frame of
    /// an episode goes out as soon as its slot begins (a flip shows at once); later ones a slot
    /// behind the clock, so the new camera's first frame, which arrives a little after its
    /// capture time, finds its own slot still free.
    func tick(now: UInt64, hasPlaceholder: Bool) -> Tick {
        guard mode == .placeholder, let last = lastPTS, hasPlaceholder else { return .idle }
        let due = last + frameDuration
        let at = placeholderPending ? due : due + frameDuration
        return now < at ? .wait(until: at) : .push(due)
    }

    /// A frame went out at `pts` (`synthetic`: a placeholder or crossfade frame).
    mutating func pushed(_ pts: UInt64, synthetic: Bool) {
        lastPTS = pts
        guard synthetic, placeholderPending else { return }
        placeholderPending = false
        placeholderShown = pts
    }

    /// The output time of an episode's first placeholder frame, once, after it went out.
    mutating func takePlaceholderShown() -> UInt64? {
        defer { placeholderShown = nil }
        return placeholderShown
    }
}
