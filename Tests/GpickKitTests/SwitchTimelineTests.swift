import Testing
@testable import GpickKit

/// The switch's timing decisions with a clock of the test's own: no pipeline, no sleeps.
@Suite struct SwitchTimelineTests {
    static let fd: UInt64 = 33_333_333  // 30 fps
    /// Slot k on the grid anchored at `base`.
    static func slot(_ k: UInt64, base: UInt64 = 5_000_000_000) -> UInt64 { base + k * fd }

    func shown(_ p: SwitchTimeline.Placement) -> UInt64? {
        if case .show(let at, _, _, _) = p { return at }
        return nil
    }

    @Test func framesTakeTheSlotTheirCaptureTimeFallsIn() {
        var t = SwitchTimeline(fps: 30)
        #expect(t.frameDuration == Self.fd && t.fadeFrames == 5)
        // The first frame anchors the grid; later ones are captured with jitter within a slot.
        let captures: [UInt64] = [0, Self.fd + 100_000, 2 * Self.fd + Self.fd / 2, 3 * Self.fd - 200_000]
        let out = captures.map { c in shown(t.place(pts: Self.slot(0) + c, now: Self.slot(0) + c + 1_000_000, hasPlaceholder: false)) }
        // Floor (with 1 % tolerance): a frame is never shown later than it was captured.
        #expect(out == [Self.slot(0), Self.slot(1), Self.slot(2), Self.slot(3)])
        #expect(t.mode == .live)
    }

    @Test func aFrameWhoseSlotIsTakenGoesOutLateAtMostTwoSlotsBehind() {
        var t = SwitchTimeline(fps: 30)
        for k: UInt64 in 0...5 { _ = t.place(pts: Self.slot(k), now: Self.slot(k), hasPlaceholder: false) }
        // Frames bunched behind on a busy machine: the next free slot, up to 2 ahead of theirs.
        let late1 = shown(t.place(pts: Self.slot(4), now: Self.slot(7), hasPlaceholder: false))
        #expect(late1 == Self.slot(6))
        let late2 = shown(t.place(pts: Self.slot(5), now: Self.slot(7), hasPlaceholder: false))
        #expect(late2 == Self.slot(7))
        // Three slots behind: dropped, so the timeline stays continuous.
        let tooLate = t.place(pts: Self.slot(4), now: Self.slot(8), hasPlaceholder: false)
        #expect(tooLate == .skip)
    }

    @Test func theFirstPlaceholderGoesOutAtOnceLaterOnesASlotBehind() {
        var t = SwitchTimeline(fps: 30)
        for k: UInt64 in 0...2 { _ = t.place(pts: Self.slot(k), now: Self.slot(k), hasPlaceholder: false) }
        #expect(t.tick(now: Self.slot(2), hasPlaceholder: true) == .idle, "live: no placeholder")
        t.newCamera(startedAt: Self.slot(2))
        let entered = t.enterPlaceholder()
        #expect(entered)
        let enteredAgain = t.enterPlaceholder()
        #expect(!enteredAgain, "one episode at a time")
        // Slot 3 begins: the first blurred frame goes out then.
        #expect(t.tick(now: Self.slot(3) - 1, hasPlaceholder: true) == .wait(until: Self.slot(3)))
        #expect(t.tick(now: Self.slot(3), hasPlaceholder: true) == .push(Self.slot(3)))
        t.pushed(Self.slot(3), synthetic: true)
        let firstShown = t.takePlaceholderShown()
        #expect(firstShown == Self.slot(3))
        let shownAgain = t.takePlaceholderShown()
        #expect(shownAgain == nil, "reported once")
        // The next one, for slot 4, only once slot 5 has begun: the new camera's frame for slot 4
        // may still be on its way.
        #expect(t.tick(now: Self.slot(4) + 1, hasPlaceholder: true) == .wait(until: Self.slot(5)))
        #expect(t.tick(now: Self.slot(5), hasPlaceholder: true) == .push(Self.slot(4)))
    }

    @Test func theNewCameraFillsWhatTheTickerMissedThenFadesIn() {
        var t = SwitchTimeline(fps: 30)
        for k: UInt64 in 0...2 { _ = t.place(pts: Self.slot(k), now: Self.slot(k), hasPlaceholder: false) }
        t.newCamera(startedAt: Self.slot(2))
        _ = t.enterPlaceholder()
        t.pushed(Self.slot(3), synthetic: true)
        // A starved ticker pushed nothing for slots 4…6; the new camera's first frame is slot 7.
        guard case .show(let at, let fill, let blend, let first) = t.place(pts: Self.slot(7), now: Self.slot(7), hasPlaceholder: true) else {
            Issue.record("the new camera's first frame was not shown")
            return
        }
        #expect(at == Self.slot(7) && first)
        #expect(fill == [Self.slot(4), Self.slot(5), Self.slot(6)], "no hole in the timeline")
        #expect(blend == 0)
        // The crossfade: fadeFrames blended frames, then live.
        var blends: [Int?] = []
        for k: UInt64 in 8...12 {
            if case .show(_, _, let b, _) = t.place(pts: Self.slot(k), now: Self.slot(k), hasPlaceholder: true) { blends.append(b) }
        }
        #expect(blends == [1, 2, 3, 4, nil])
        #expect(t.mode == .live)
    }

    @Test func framesLandingAheadDuringTheFadeAreSkippedToCatchUp() {
        var t = SwitchTimeline(fps: 30)
        for k: UInt64 in 0...2 { _ = t.place(pts: Self.slot(k), now: Self.slot(k), hasPlaceholder: false) }
        t.newCamera(startedAt: Self.slot(2))
        _ = t.enterPlaceholder()
        // The placeholder ticked up to slot 6 while the new camera warmed up.
        for k: UInt64 in 3...6 { t.pushed(Self.slot(k), synthetic: true) }
        // Its first frames were captured for slots 5 and 6, already taken: the first is shown
        // late, in slot 7, which starts the fade; the next, whose slot is taken too, is skipped
        // under the blend instead of pushing the camera a slot behind its capture time.
        let firstNew = shown(t.place(pts: Self.slot(5), now: Self.slot(6), hasPlaceholder: true))
        #expect(firstNew == Self.slot(7))
        let second = t.place(pts: Self.slot(6), now: Self.slot(7), hasPlaceholder: true)
        #expect(second == .skip)
        let backOnTime = shown(t.place(pts: Self.slot(8), now: Self.slot(8), hasPlaceholder: true))
        #expect(backOnTime == Self.slot(8), "back on capture time")
    }

    /// A camera whose frames reach the switch well after their capture time (a USB camera's
    /// decoding, a loaded machine): the placeholder has ticked past their slots, so its frames
    /// go out shifted by that lateness, evenly spaced, rather than being dropped one by one for
    /// good while the placeholder holds.
    @Test func aCameraLaterThanThePlaceholderGoesOutShiftedNotDropped() {
        var t = SwitchTimeline(fps: 30)
        for k: UInt64 in 0...2 { _ = t.place(pts: Self.slot(k), now: Self.slot(k), hasPlaceholder: false) }
        t.newCamera(startedAt: Self.slot(2))
        _ = t.enterPlaceholder()
        // The ticker keeps the placeholder going, a slot behind the clock, until the camera
        // shows; the camera's frames each arrive 6 slots (200 ms) after their capture.
        var out: [UInt64?] = []
        for n: UInt64 in 4...40 {
            if case .push(let at) = t.tick(now: Self.slot(n), hasPlaceholder: true) { t.pushed(at, synthetic: true) }
            if n >= 20 { out.append(shown(t.place(pts: Self.slot(n - 6), now: Self.slot(n), hasPlaceholder: true))) }
        }
        #expect(out.first == Self.slot(20), "the first frame takes the slot after the placeholder's: \(out)")
        #expect(out == (20...40).map { Self.slot($0) }, "then one slot each, none dropped: \(out)")
        #expect(t.mode == .live)
        #expect(t.lateness == 6 * Self.fd)
        // Capture times still decide: a frame captured half a slot late takes its shifted slot,
        // and one the camera dropped leaves its slot empty.
        let halfLate = shown(t.place(pts: Self.slot(35) + Self.fd / 2, now: Self.slot(41) + Self.fd / 2, hasPlaceholder: true))
        #expect(halfLate == Self.slot(41))
        let afterADrop = shown(t.place(pts: Self.slot(37), now: Self.slot(43), hasPlaceholder: true))
        #expect(afterADrop == Self.slot(43))
        // The next camera starts without that lateness.
        t.newCamera(startedAt: Self.slot(44))
        #expect(t.lateness == 0)
    }

    @Test func aSourceWhoseTimestampsStartAtZeroTakesSlotsByArrival() {
        var t = SwitchTimeline(fps: 30)
        for k: UInt64 in 0...2 { _ = t.place(pts: Self.slot(k), now: Self.slot(k), hasPlaceholder: false) }
        t.newCamera(startedAt: Self.slot(2))
        // A source added 5 s into the session stamping from 0: its times are not the clock's.
        let firstByArrival = shown(t.place(pts: 0, now: Self.slot(3), hasPlaceholder: false))
        #expect(firstByArrival == Self.slot(3))
        #expect(!t.useCaptureTime)
        let secondByArrival = shown(t.place(pts: Self.fd, now: Self.slot(4), hasPlaceholder: false))
        #expect(secondByArrival == Self.slot(4))
    }

    /// The session's first camera delivers its first frame 4 s after capturing it (the machine
    /// stalled, or the source waited that long to start after taking its timestamp offset),
    /// then catches up with the clock in a burst. Its timestamps are still the session clock's:
    /// every frame of the burst takes its own slot, none is skipped, and output time comes back
    /// to the clock once the burst is through.
    @Test func aFirstFrameSecondsLateStillSlotsByCaptureTimeAndTheBurstAfterItLosesNothing() {
        var t = SwitchTimeline(fps: 30)
        t.newCamera(startedAt: 0)
        let stall = Self.slot(120, base: 0)
        var out: [UInt64?] = []
        // 150 frames captured 0…149 slots in; those before the stall's end all arrive at its
        // end, a millisecond apart, and the rest on time.
        for k: UInt64 in 0..<150 {
            let pts = Self.slot(k, base: 0) + 3_000_000
            let now = max(pts + 1_000_000, stall + k * 1_000_000)
            out.append(shown(t.place(pts: pts, now: now, hasPlaceholder: false)))
        }
        #expect(t.useCaptureTime)
        #expect(out == (0..<150).map { Self.slot($0, base: 3_000_000) }, "every frame in its own slot: \(out)")
    }

    /// Timestamps ahead of the clock are not capture times on it either.
    @Test func aSourceStampingAheadOfTheClockTakesSlotsByArrival() {
        var t = SwitchTimeline(fps: 30)
        t.newCamera(startedAt: 0)
        let first = shown(t.place(pts: Self.slot(10, base: 0), now: Self.slot(1, base: 0), hasPlaceholder: false))
        #expect(first == Self.slot(1, base: 0))
        #expect(!t.useCaptureTime)
    }

    @Test func nothingShownMeansNoPlaceholder() {
        var t = SwitchTimeline(fps: 30)
        let entered = t.enterPlaceholder()
        #expect(!entered)
        #expect(t.tick(now: 1_000_000_000, hasPlaceholder: true) == .idle)
    }
}
