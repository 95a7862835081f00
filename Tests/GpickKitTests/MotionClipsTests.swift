import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import GstCore
import Testing

/// `MotionClips` told of motion directly, so the moment of each call is the test's: the frames'
/// stamps say what reached the clip.
@Suite struct MotionClipsTests {
    /// Stopped the moment its clip opens (a script's `clips stop` right after a motion, on a
    /// loaded machine the clip has not begun to follow the ring yet): the clip still holds its
    /// second before the motion and every frame from there to where the ring was, none twice.
    @Test func aClipStoppedAsItOpensHoldsItsSecondsBefore() async throws {
        let dir = TestEnvironment.tempDir()
        let session = CaptureSession(try SessionTests.config("test:colors"))
        try await session.start()
        var settings = MotionClips.Settings()
        settings.pre = 1
        settings.post = 2
        settings.name = "c-%n.mp4"
        let events = Locked<[MotionClips.Event]>([])
        let clips = try await MotionClips.start(in: session, directory: dir, settings: settings) { e in
            events.withLock { $0.append(e) }
        }
        let armed = try #require(session.retainedFrame?.stamp?.index)
        // Two seconds of frames after the ring was armed: the second before the motion is in it.
        #expect(try await TestEnvironment.eventually(30) { (session.retainedFrame?.stamp?.index ?? 0) >= armed + 60 })
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

    /// The clip's one decision, frame by frame (frames of 1/30 s): past its end it waits until
    /// every start before that end has been told (on a loaded machine the watch compares frames
    /// seconds after the ring has them), goes on when one was, and ends with the first frame
    /// past its end once none can come; stopped, it ends where it was told to at once.
    @Test func aClipEndsOnlyOnceNoStartBeforeItsEndCanStillCome() async throws {
        try await Gst.initialized()
        let buffer = try #require(OwnedBuffer.allocate(size: 4))
        let sample = try #require(Sample(holding: buffer.view, caps: try Caps("video/x-h264")))
        let ns = { (frame: Int) in UInt64(frame) * 1_000_000_000 / 30 }
        let frame = { (time: UInt64) in Int((Double(time) * 30 / 1e9).rounded()) }
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
}
