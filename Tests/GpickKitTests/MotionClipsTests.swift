import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
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
}
