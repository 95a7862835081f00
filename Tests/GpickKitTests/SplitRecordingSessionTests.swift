import Foundation
@testable import GpickKit
import GpickTestSupport
import Testing

/// A split recording in the test process, so that ThreadSanitizer (`make tsan`) sees its parts
/// handed over on the streaming thread while the next ones are attached and the finished ones
/// finalised. (`record --split` itself is tested in CLITests.)
@Suite struct SplitRecordingSessionTests {
    /// Started mid-session, in parts of six frames: every frame from the first on, once, each
    /// part starting where the one before ended (later than its boundary when it was attached
    /// late, never earlier).
    @Test func partsStartedMidSessionHoldEveryFrameOnce() async throws {
        let dir = TestEnvironment.tempDir()
        let session = try await SessionTests.running()
        let split = try await SplitRecording.start(in: session, to: try OutputPath("\(dir)/s.mp4"),
                                                   settings: RecordingSettings(container: .mp4, duration: 1), partSeconds: 0.2)
        let result = try await split.finished()
        await session.stop()
        let counts = result.parts.map(\.frames)
        #expect(result.frames == 30, "\(counts)")
        #expect(result.parts.map { ($0.path as NSString).lastPathComponent } == (1...result.parts.count).map { String(format: "s-%03d.mp4", $0) })
        var before = 0
        for (i, part) in result.parts.enumerated() {
            #expect(part.frames >= 1 && before >= i * 6, "part \(i + 1) after \(before) frames: \(counts)")
            #expect(abs((part.start ?? -1) - Double(before) / 30) < 0.001, "part \(i + 1) starts at \(part.start ?? -1): \(counts)")
            before += part.frames
        }
        let stamps = try await Self.expectEveryFrameOnce(result)
        #expect((stamps.first ?? nil).map { $0 >= 5 } == true, "\(stamps)")
    }

    /// Every part attached and finished makes the pipeline recalculate its latency, work handed
    /// off the streaming thread (coalesced: a loaded machine hands over fewer): a session that
    /// records in parts for months must not keep each finished job until it stops. Handed over
    /// here directly, fifty at once and then one at a time until the finished ones are gone.
    @Test func finishedHandOversAreNotKeptForTheWholeSession() async throws {
        let session = try await SessionTests.running()
        for _ in 0..<50 { session.sessionJob {} }
        var jobs = session.sessionJobs
        let settled = try await TestEnvironment.eventually(30) {
            session.sessionJob {}
            jobs = session.sessionJobs
            return jobs.held <= 2
        }
        await session.stop()
        #expect(jobs.handedOver > 50)
        #expect(settled, "\(jobs.held) of \(jobs.handedOver) jobs still held")
    }

    /// Parts attached only once a frame two frames past their boundary has entered the tee, as
    /// on a machine whose encoders take longer to start than a part lasts (which a fast idle
    /// machine never shows at any rate gpick records): each part starts late, at the first
    /// frame after it was attached, and the part before it keeps the frames until then. No
    /// frame is lost or recorded twice, and each part's start says where it began. The
    /// recording is stopped once three parts are written, so how many parts it has does not
    /// depend on how fast this machine attaches them.
    @Test func partsAttachedAfterTheirBoundaryStartLateAndLoseNoFrame() async throws {
        let dir = TestEnvironment.tempDir()
        let session = try await SessionTests.running()
        let split = try await SplitRecording.start(in: session, to: try OutputPath("\(dir)/late.mp4"),
                                                   settings: RecordingSettings(container: .mp4), partSeconds: 0.2,
                                                   attaching: .after(frames: 2))
        let written = Monitor(0), three = Signal()
        split.onPartWritten { _ in if written.withLock({ $0 += 1; return $0 }) >= 3 { three.fire() } }
        #expect(await three.wait(timeout: HangBound.seconds(60)), "three parts written")
        split.requestStop()
        let result = try await split.finished()
        await session.stop()
        let counts = result.parts.map(\.frames)
        // Three parts are written; a fourth, begun just before the stop, holds frames only if
        // one came before the stop's moment (else it ends empty and is left out, as any part
        // the recording's end reaches first).
        #expect(result.parts.count >= 3, "\(counts)")
        // In output time (seconds from part 1's first frame): a source that falls behind its
        // clock under load can leave a frame's slot out of the session's timeline, so frame
        // counts and times need not agree there; no frame is lost (the stamps below say so).
        var end = 0.0
        for (i, part) in result.parts.enumerated() {
            let start = try #require(part.start, "part \(i + 1) has no start: \(counts)")
            // Part i + 1's boundary is 6 i frames in, and it was attached after a frame at
            // 6 i + 2 had entered the tee: it starts at 6 i + 3 or later.
            if i > 0 { #expect(start >= Double(6 * i + 3) / 30 - 0.001, "part \(i + 1) starts at \(start) s: not late: \(counts)") }
            #expect(start >= end - 0.001, "part \(i + 1) starts at \(start) s, before the part before it ends (\(end) s): \(counts)")
            #expect(part.frames >= 1, "part \(i + 1) is empty: \(counts)")
            end = start + Double(part.frames) / 30
        }
        try await Self.expectEveryFrameOnce(result)
    }

    /// A part attached more than three seconds after its boundary (a starved machine): the
    /// part before keeps every frame until then, more than its own length plus the few seconds
    /// of header space it once had, and nothing is lost.
    @Test func aPartAttachedSecondsLateLosesNoFrame() async throws {
        let dir = TestEnvironment.tempDir()
        let session = try await SessionTests.running()
        let split = try await SplitRecording.start(in: session, to: try OutputPath("\(dir)/slow.mp4"),
                                                   settings: RecordingSettings(container: .mp4), partSeconds: 0.2,
                                                   attaching: .after(frames: 110))
        let partOne = Signal()
        split.onPartWritten { _ in partOne.fire() }
        #expect(await partOne.wait(timeout: HangBound.seconds(60)), "part 1 written")
        split.requestStop()
        let result = try await split.finished()
        await session.stop()
        let counts = result.parts.map(\.frames)
        // Part 1 took its 6 frames and the 110 after them, and at least the frame the next one
        // was attached after; part 2 began at the first frame after it was.
        #expect(result.parts.count >= 2 && counts[0] >= 117, "\(counts)")
        try await Self.expectEveryFrameOnce(result)
    }

    /// However long the recording's task waits to resume once part 1 is attached (here while
    /// 40 frames pass; a loaded machine's pool has kept it waiting that long), a recording
    /// with a duration has exactly its number of frames, consecutive.
    @Test func aRecordingResumedLateAfterItsFirstPartStillHasExactlyItsFrames() async throws {
        let dir = TestEnvironment.tempDir()
        let session = try await SessionTests.running()
        let split = try await SplitRecording.start(in: session, to: try OutputPath("\(dir)/resumed.mp4"),
                                                   settings: RecordingSettings(container: .mp4, duration: 1), partSeconds: 0.2,
                                                   attaching: .ahead(nanoseconds: 1_000_000_000)) { part in
            guard part == 1 else { return }
            let attached = session.deliveredFrames
            let passed = try? await TestEnvironment.eventually(20) { session.deliveredFrames >= attached + 40 }
            #expect(passed == true, "40 frames passed while the task waited")
        }
        let result = try await split.finished()
        await session.stop()
        #expect(result.frames == 30, "\(result.parts.map(\.frames))")
        let stamps = try await Self.expectEveryFrameOnce(result)
        #expect(stamps.count == 30, "\(stamps)")
    }

    /// A stop asked for while part 2 is being attached: part 2 stops at that same moment, so it
    /// takes no frame from after it (it is left out, empty), and part 1 ends there with no
    /// frame missing. Part 2 is held attached for 30 frames after the stop, before the
    /// recording registers it, and the camera's frames reach the session 200 ms after their
    /// capture (as a loaded machine's do): stopped only when registered, at that later moment,
    /// part 2 took the frames the handoff gave it from before then, after a gap.
    @Test func aStopWhileAPartIsBeingAttachedStopsItAtTheSameMoment() async throws {
        let dir = TestEnvironment.tempDir()
        let session = try await SessionTests.running("test?latency=200ms")
        let partTwo = Signal(), stopped = Signal()
        let split = try await SplitRecording.start(in: session, to: try OutputPath("\(dir)/stop.mp4"),
                                                   settings: RecordingSettings(container: .mp4), partSeconds: 0.2,
                                                   attaching: .ahead(nanoseconds: 1_000_000_000)) { part in
            guard part == 2 else { return }
            partTwo.fire()
            _ = await stopped.wait(timeout: HangBound.seconds(30))
            let then = session.deliveredFrames
            _ = try? await TestEnvironment.eventually(20) { session.deliveredFrames >= then + 30 }
        }
        #expect(await partTwo.wait(timeout: HangBound.seconds(30)), "part 2 attached")
        split.requestStop()
        stopped.fire()
        let result = try await split.finished()
        await session.stop()
        let counts = result.parts.map(\.frames)
        #expect(counts.count == 1 && counts[0] >= 1, "part 2 took no frame: \(counts)")
        try await Self.expectEveryFrameOnce(result)
    }

    /// Every frame the recording reports is in its parts' files once, in order, with no gap.
    /// Returns the stamps.
    @discardableResult
    static func expectEveryFrameOnce(_ result: SplitRecordingResult) async throws -> [Int?] {
        let stamps = try await stamps(of: result)
        let first = try #require(stamps.first ?? nil, "no stamp in \(result.parts.map(\.path))")
        #expect(stamps.count == result.frames && Media.isConsecutive(stamps, from: first),
                "parts \(result.parts.map(\.frames)) starting at \(result.parts.map { $0.start ?? -1 }) s: \(stamps.map { $0 ?? -1 })")
        return stamps
    }

    /// The stamps of every part's frames, in order; each part's file holds the frames it reports.
    static func stamps(of result: SplitRecordingResult) async throws -> [Int?] {
        var stamps: [Int?] = []
        for part in result.parts {
            let own = try await Media.stampIndices(part.path)
            #expect(own.count == part.frames, "\(part.path)")
            stamps += own
        }
        return stamps
    }
}
