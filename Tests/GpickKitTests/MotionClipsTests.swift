import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import GstCore
import Testing

/// `MotionClips` told of motion directly, so the moment of each call is the test's: the frames'
/// stamps say what reached the clip.
@Suite struct MotionClipsTests {
    /// A running test:colors session with clips armed (`settings` named `c-%n.mp4`, into a folder
    /// of the test's own), `frames` frames after the ring was armed; every clip event collected.
    static func armed(_ configure: (inout MotionClips.Settings) -> Void, frames: Int) async throws
        -> (session: CaptureSession, clips: MotionClips, events: Collected, armedAt: Int) {
        let dir = TestEnvironment.tempDir()
        let session = CaptureSession(try SessionTests.config("test:colors"))
        try await session.start()
        var settings = MotionClips.Settings()
        settings.name = "c-%n.mp4"
        configure(&settings)
        let events = Collected()
        let clips = try await MotionClips.start(in: session, directory: dir, settings: settings) { e in
            events.withLock { $0.append(e) }
        }
        let armed = try #require(session.retainedFrame?.stamp?.index)
        #expect(try await TestEnvironment.eventually(30) { (session.retainedFrame?.stamp?.index ?? 0) >= armed + frames })
        return (session, clips, events, armed)
    }

    /// The clip events told so far.
    final class Collected: Sendable {
        private let events = Locked<[MotionClips.Event]>([])
        func withLock<T: Sendable>(_ body: (inout [MotionClips.Event]) -> T) -> T { events.withLock { body(&$0) } }
    }

    /// Stopped the moment its clip opens (a script's `clips stop` right after a motion, on a
    /// loaded machine the clip has not begun to follow the ring yet): the clip still holds its
    /// second before the motion and every frame from there to where the ring was, none twice.
    @Test func aClipStoppedAsItOpensHoldsItsSecondsBefore() async throws {
        // Two seconds of frames after the ring was armed: the second before the motion is in it.
        let (session, clips, events, _) = try await Self.armed({ $0.pre = 1; $0.post = 2 }, frames: 60)
        let at = try #require(session.retainedFrame)
        let index = try #require(at.stamp?.index), time = try #require(at.time)
        clips.motion(MotionEvent(kind: .started, zone: "frame", area: 0.1, box: MotionBox(x: 0, y: 0, width: 1, height: 1),
                                 score: 0.1, time: Double(time) / 1e9))
        await clips.stop()
        await session.stop()

        let seen = events.withLock { $0 }
        let written = seen.compactMap { if case .written(let c) = $0 { c } else { nil } }
        let failed = seen.compactMap { if case .failed(let p, let e) = $0 { "\(p): \(e.message)" } else { nil } }
        #expect(failed.isEmpty, "\(failed)")
        let clip = try #require(written.first, "\(seen)")
        let stamps = try await Media.stampIndices(clip.path)
        let first = try #require(stamps.first ?? nil)
        #expect(Media.isConsecutive(stamps, from: first), "\(clip.path): \(stamps)")
        #expect(first <= index - 30, "\(clip.path) starts at frame \(first), the motion at \(index)")
        #expect(stamps.count == clip.frames && clip.frames >= 30, "\(clip)")
    }

    /// A sample to hand the clip's decision: what it holds does not matter, only its times.
    static func encodedFrame() async throws -> (OwnedBuffer, Sample) {
        try await Gst.initialized()
        let buffer = try #require(OwnedBuffer.allocate(size: 4))
        return (buffer, try #require(Sample(holding: buffer.view, caps: try Caps("video/x-h264"))))
    }

    /// Frame `n`'s time at 30 fps, and the frame at a time.
    static func ns(_ frame: Int) -> UInt64 { UInt64(frame) * 1_000_000_000 / 30 }
    static func frame(_ time: UInt64) -> Int { Int((Double(time) * 30 / 1e9).rounded()) }

    /// The clip's one decision, frame by frame (frames of 1/30 s): past its end it waits until
    /// every start before that end has been told (on a loaded machine the watch compares frames
    /// seconds after the ring has them), goes on when one was, and ends with the first frame
    /// past its end once none can come; stopped, it ends where it was told to at once.
    @Test func aClipEndsOnlyOnceNoStartBeforeItsEndCanStillCome() async throws {
        let (buffer, sample) = try await Self.encodedFrame()
        defer { withExtendedLifetime(buffer) {} }
        let (ns, frame) = (Self.ns, Self.frame)
        var s = ClipStream.State()
        var written: [Int] = []
        /// Frames `range` from the ring; true when the clip ended.
        func ring(_ range: Range<Int>, writable: Int, decided: Int) -> Bool {
            for f in range {
                let e = LiveRing.Entry(time: ns(f), duration: ns(1), keyframe: f % 30 == 0, sample: sample)
                let (w, end) = ClipStream.release(&s, adding: e, writable: ns(writable), decided: ns(decided))
                written += w.map { frame($0.pts) }
                if end { return true }
            }
            return false
        }
        // Motion going on: written as far as the watch allows.
        #expect(!ring(0..<90, writable: 100, decided: 99))
        #expect(written == Array(0..<90))
        // Its end (frame 100) is told while the ring is at 130, starts told through 95 only.
        s.endAt = ns(100)
        #expect(!ring(90..<130, writable: 100, decided: 95))
        #expect(written == Array(0...100) && s.pending.map { frame($0.time) } == Array(101..<130) && !s.ended)
        // A start at 97 is told: the clip goes on, the waiting frames as far as the watch allows.
        s.endAt = nil
        #expect(!ring(130..<131, writable: 115, decided: 110))
        #expect(written == Array(0...115))
        // Its next end, 140: the frame past it waits for the starts through 140.
        s.endAt = ns(140)
        #expect(!ring(131..<146, writable: 115, decided: 139))
        #expect(written == Array(0...140) && !s.ended)
        #expect(ring(146..<147, writable: 115, decided: 140))
        #expect(written == Array(0...140) && s.ended && s.pending.isEmpty)

        // Stopped through frame 20 with nothing told yet: it ends there regardless.
        var stopped = ClipStream.State()
        stopped.endAt = ns(20)
        stopped.through = true
        var kept: [Int] = []
        var ended = false
        for f in 0..<25 where !ended {
            let e = LiveRing.Entry(time: ns(f), duration: ns(1), keyframe: f == 0, sample: sample)
            let (w, end) = ClipStream.release(&stopped, adding: e, writable: 0, decided: 0)
            kept += w.map { frame($0.pts) }
            ended = end
        }
        #expect(ended && kept == Array(0...20))
    }

    /// As long as a clip may be (2 s here), it ends before the next keyframe, and the clip that
    /// goes on from that keyframe has the rest: together every frame from before the motion to
    /// after it, none lost or twice, each clip no longer than it may be, and each with header
    /// space for that length, not for an hour.
    @Test func motionLongerThanAClipMayBeGoesOnInTheNext() async throws {
        let (session, clips, events, _) = try await Self.armed({ $0.pre = 1; $0.post = 1; $0.longest = 2 }, frames: 45)
        let motion = { (kind: MotionEvent.Kind) throws -> (index: Int, time: Double) in
            let at = try #require(session.retainedFrame)
            let time = Double(try #require(at.time)) / 1e9
            clips.motion(MotionEvent(kind: kind, zone: "frame", area: 0.1, box: MotionBox(x: 0, y: 0, width: 1, height: 1),
                                     score: 0.1, time: time))
            return (try #require(at.stamp?.index), time)
        }
        let start = try motion(.started)
        // Five seconds of motion: two clips' worth and more.
        #expect(try await TestEnvironment.eventually(30) { (session.retainedFrame?.stamp?.index ?? 0) >= start.index + 150 })
        let end = try motion(.ended)
        // The after part written, then stopped.
        #expect(try await TestEnvironment.eventually(30) { (session.retainedFrame?.stamp?.index ?? 0) >= end.index + 75 })
        #expect(try await TestEnvironment.eventually(30) {
            events.withLock { $0.contains { if case .written(let c) = $0 { c.last >= end.time + 0.9 } else { false } } }
        })
        await clips.stop()
        await session.stop()

        let seen = events.withLock { $0 }
        let failed = seen.compactMap { if case .failed(let p, let e) = $0 { "\(p): \(e.message)" } else { nil } }
        #expect(failed.isEmpty, "\(failed)")
        let started = seen.compactMap { if case .started(_, let n, _, let c) = $0 { (n, c) } else { nil } }
        let written = seen.compactMap { if case .written(let c) = $0 { c } else { nil } }.sorted { $0.number < $1.number }
        #expect(written.count >= 3, "\(seen)")
        // The first is the motion's own; each later one continues the one before.
        #expect(started.map(\.1) == [nil] + started.dropFirst().map { $0.0 - 1 }, "\(started)")
        var all: [Int?] = []
        for clip in written {
            let stamps = try await Media.stampIndices(clip.path)
            #expect(stamps.count == clip.frames, "\(clip)")
            // The ring's keyframes are a second apart: 2 s is a keyframe, so no clip is longer.
            #expect(clip.frames <= 60, "\(clip.path): \(clip.frames) frames")
            // Header space for about a minute, not an hour (4 MB at this size).
            #expect(clip.bytes < 1_000_000, "\(clip.path): \(clip.bytes) bytes")
            all += stamps
        }
        let first = try #require(all.first ?? nil)
        #expect(Media.isConsecutive(all, from: first), "\(written.map(\.path)): \(all)")
        #expect(first <= start.index - 30, "the clips start at frame \(first), the motion at \(start.index)")
        let last = try #require(all.last ?? nil)
        #expect(last >= end.index + 30, "the clips end at frame \(last), the motion at \(end.index)")
    }

    /// The rollover decision, frame by frame: a clip ends before the first keyframe `longest`
    /// past its first frame (and says where), not before one that comes sooner, and never when
    /// stopped (a stop ends it where told) or when its end comes first.
    @Test func aClipAsLongAsItMayBeEndsBeforeAKeyframe() async throws {
        let (buffer, sample) = try await Self.encodedFrame()
        defer { withExtendedLifetime(buffer) {} }
        let (ns, frame) = (Self.ns, Self.frame)
        /// Frames `range` (a keyframe every 30) through a clip of at most `longest` frames.
        func run(_ range: Range<Int>, longest: Int, endAt: Int? = nil, through: Bool = false) -> (written: [Int], state: ClipStream.State) {
            var s = ClipStream.State()
            s.longest = ns(longest)
            s.endAt = endAt.map(ns)
            s.through = through
            var written: [Int] = []
            for f in range {
                let e = LiveRing.Entry(time: ns(f), duration: ns(1), keyframe: f % 30 == 0, sample: sample)
                let (w, end) = ClipStream.release(&s, adding: e, writable: nil, decided: nil)
                written += w.map { frame($0.pts) + range.lowerBound }
                if end { break }
            }
            return (written, s)
        }
        // 2 s: ends before frame 60, which the next clip starts with, also when the camera's
        // clock stamped it a little early.
        let two = run(0..<200, longest: 60)
        #expect(two.written == Array(0..<60) && two.state.ended && two.state.rolledAt == ns(60))
        var early = ClipStream.State()
        early.longest = ns(60)
        var kept: [Int] = []
        for f in 0..<100 {
            let e = LiveRing.Entry(time: ns(f) - (f == 60 ? 2_000_000 : 0), duration: ns(1), keyframe: f % 30 == 0, sample: sample)
            let (w, end) = ClipStream.release(&early, adding: e, writable: nil, decided: nil)
            kept += w.map { frame($0.pts) }
            if end { break }
        }
        #expect(kept == Array(0..<60) && early.rolledAt == ns(60) - 2_000_000)
        // 2.5 s: the first keyframe past it is 90.
        let more = run(30..<200, longest: 75)
        #expect(more.written == Array(30..<120) && more.state.rolledAt == ns(120))
        // Its end before that: it ends there, as any clip.
        let ends = run(0..<200, longest: 60, endAt: 40)
        #expect(ends.written == Array(0...40) && ends.state.ended && ends.state.rolledAt == nil)
        // Waiting frames written as an end is told (no frame from the ring at hand): the
        // keyframe the clip would end before waits for the ring's next frame to decide it.
        var waiting = ClipStream.State()
        waiting.longest = ns(60)
        var out: [Int] = []
        for f in 0..<70 {
            let e = LiveRing.Entry(time: ns(f), duration: ns(1), keyframe: f % 30 == 0, sample: sample)
            out += ClipStream.release(&waiting, adding: e, writable: ns(50), decided: nil).0.map { frame($0.pts) }
        }
        #expect(out == Array(0...50))
        waiting.endAt = ns(100)
        let told = ClipStream.release(&waiting, adding: nil, writable: ns(50), decided: nil, mayRoll: false)
        #expect(told.0.map { frame($0.pts) } == Array(51..<60) && !told.1 && waiting.rolledAt == nil)
        let next = LiveRing.Entry(time: ns(70), duration: ns(1), keyframe: false, sample: sample)
        let decided = ClipStream.release(&waiting, adding: next, writable: ns(50), decided: nil)
        #expect(decided.0.isEmpty && decided.1 && waiting.rolledAt == ns(60))
        // Stopped through frame 100: the stop decides.
        let stopped = run(0..<200, longest: 60, endAt: 100, through: true)
        #expect(stopped.written == Array(0...100) && stopped.state.rolledAt == nil)
    }
}
