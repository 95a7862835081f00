import Foundation
import GpickKit
import GpickTestSupport
import GstCore
import Testing

@Suite(.serialized) struct SessionTests {
    static func config(_ source: String = "test", width: Int = 320, height: Int = 240) throws -> SessionConfiguration {
        var c = SessionConfiguration()
        c.source = try SourceSpec.parse(source)
        c.format = SessionFormat(width: width, height: height, fps: 30)
        c.library = TestEnvironment.library
        return c
    }

    /// A started session on `source` that has delivered `frames` frames.
    static func running(_ source: String = "test", frames: Int = 5) async throws -> CaptureSession {
        let session = CaptureSession(try config(source))
        try await session.start()
        #expect(try await TestEnvironment.eventually(10) { session.deliveredFrames >= frames })
        return session
    }

    @Test func snapIsTheRetainedFrame() async throws {
        let session = CaptureSession(try Self.config())
        try await session.start()
        // A running stream, some frames in.
        #expect(try await TestEnvironment.eventually(10) { session.deliveredFrames >= 9 })
        func stamp(_ sample: Sample?) -> FrameStamp? { sample?.withVideoFrame { FrameStamp.read(from: $0) } ?? nil }
        // The retained frame just before and just after asking: on a loaded machine more than
        // one frame can arrive between two reads, so the still is bounded by both.
        let before = stamp(session.latestFrame)
        let stream = session.nextFrames(1)
        let after = stamp(session.latestFrame)
        var first: FrameStamp?
        for try await f in stream { first = stamp(f) }
        await session.stop()
        // Zero shutter lag: the still is the frame current when asked, not one that came later.
        let a = try #require(before), b = try #require(first), c = try #require(after)
        #expect(a.index <= b.index && b.index <= c.index, "before \(a.index), still \(b.index), after \(c.index)")
        #expect(a.index >= 5)
    }

    @Test func framesOnlySessionDeliversAfterWarmupAndRefusesOutputs() async throws {
        var c = try Self.config()
        c.framesOnly = true
        c.warmupFrames = 3
        let session = CaptureSession(c)
        try await session.prepare()
        let first = session.nextFrames(5)  // asked before the camera starts: its first frames
        try await session.play()
        var stamps: [FrameStamp] = []
        for try await f in first {
            if let s = f.withVideoFrame({ FrameStamp.read(from: $0) }) ?? nil { stamps.append(s) }
        }
        // The camera's frames straight from its stage: the warm-up ones dropped, the rest in order.
        #expect(stamps.map(\.index) == Array(3..<8), "\(stamps.map(\.index))")
        do {
            _ = try await session.flip()
            Issue.record("a frames-only session flipped")
        } catch {
            #expect("\(error)".contains("frames-only"), "\(error)")
        }
        do {
            _ = try await MovieRecording.start(in: session, to: try OutputPath("\(TestEnvironment.tempDir())/x.mp4"),
                                               settings: RecordingSettings(container: .mp4, duration: 1))
            Issue.record("a frames-only session took a recording")
        } catch {
            #expect("\(error)".contains("frames-only"), "\(error)")
        }
        await session.stop()
        #expect(session.latestFrame == nil)
    }

    @Test func lastFramesEndTheCameraStream() async throws {
        var c = try Self.config()
        c.framesOnly = true
        c.warmupFrames = 2
        let session = CaptureSession(c)
        let events = EventLog()
        session.onEvent { events.add($0) }
        try await session.prepare()
        let shots = try session.lastFrames(3, every: 2)
        try await session.play()
        var indices: [Int?] = []
        for try await f in shots { indices.append((f.withVideoFrame { FrameStamp.read(from: $0) } ?? nil)?.index) }
        #expect(indices == [2, 4, 6])
        // The camera ended its stream with the last frame asked for: nothing more comes, and
        // that end is not reported as the source ending.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(session.deliveredFrames == 5, "\(session.deliveredFrames) frames delivered")
        await session.stop()
        #expect(events.all.isEmpty, "\(events.all)")

        let full = CaptureSession(try Self.config())
        #expect(throws: GpickError.self) { _ = try full.lastFrames(1) }
    }

    @Test func lateBurstConsumerHoldsTheCameraBack() async throws {
        // A subscriber that lags holds at most `lagMemoryLimit` of frames (here 3 of 115 KiB)
        // before delivery waits for it: memory stays bounded and the test source's frames stay
        // consecutive.
        var c = try Self.config()
        c.framesOnly = true
        c.lagMemoryLimit = 3 * 320 * 240 * 3 / 2
        let session = CaptureSession(c)
        try await session.start()
        var indices: [Int?] = []
        var maxAhead = 0
        for try await f in session.nextFrames(12) {
            let index = (f.withVideoFrame { FrameStamp.read(from: $0) } ?? nil)?.index
            indices.append(index)
            try await Task.sleep(nanoseconds: 100_000_000)  // an encoder far slower than the camera
            // While the subscription still waits for frames (its last ones are all queued once
            // the camera is within the limit of the end, and the camera then runs free). The
            // camera's frames are stamped from 0 and all reach the hub, so it has delivered
            // `index + 1` frames up to this one: any more are frames ahead of the consumer.
            if indices.count <= 6, let index { maxAhead = max(maxAhead, session.deliveredFrames - (index + 1)) }
        }
        await session.stop()
        #expect(Media.isConsecutive(indices, from: (indices.first ?? 0) ?? 0), "\(indices)")
        // At most the 3 frames the limit lets it hold (and some: the camera did run ahead);
        // unbounded, the live 30 fps test camera would be ~12 frames ahead after 0.6 s.
        #expect(maxAhead >= 1 && maxAhead <= 3, "the camera ran \(maxAhead) frames ahead of the burst")
    }

    @Test func recordingAddedMidSessionStartsAtZero() async throws {
        let dir = TestEnvironment.tempDir()
        let session = try await Self.running(frames: 15)
        let rec = try await MovieRecording.start(in: session, to: try OutputPath("\(dir)/m.mp4"),
                                                 settings: RecordingSettings(container: .mp4, duration: 1))
        let result = try await rec.finished()
        await session.stop()
        #expect(result.frames == 30)
        let frames = try await Media.frames("\(dir)/m.mp4")
        #expect(frames.count == 30, "\(frames.map { "\($0.stamp?.index ?? -1)@\($0.pts ?? -1)" })")
        #expect((frames.first?.pts ?? 9) < 0.001, "the file starts at 0, not at the session's running time")
        let idx = frames.map { $0.stamp?.index }
        #expect((idx.first ?? 0) ?? 0 >= 10, "frames come from the running stream")
        #expect(Media.isConsecutive(idx, from: idx.first!!))
    }

    @Test func stopFinalisesOpenEndedRecording() async throws {
        let dir = TestEnvironment.tempDir()
        let session = CaptureSession(try Self.config())
        try await session.start()
        let rec = try await MovieRecording.start(in: session, to: try OutputPath("\(dir)/o.mkv"),
                                                 settings: RecordingSettings(container: .mkv))
        try await Task.sleep(nanoseconds: 700_000_000)
        rec.requestStop()
        let result = try await rec.finished()
        await session.stop()
        // ~0.7 s of frames (the test's own sleep may overshoot under load: a floor, no ceiling).
        #expect(result.frames >= 15)
        #expect(try await Media.stampIndices("\(dir)/o.mkv").count == result.frames)
    }

    /// 50 snap + record cycles in one process (a process of its own, so other tests' fds do not
    /// count): file descriptors and memory stay flat.
    @Test func fiftyCyclesDoNotLeak() async throws {
        let dir = TestEnvironment.tempDir()
        let o = try await SoakReport.run(["50"], outputDir: dir, timeout: 180)
        #expect(o.fdsAfter - o.fdsBefore <= 2, "fds \(o.fdsBefore) → \(o.fdsAfter)")
        #expect(o.rssAfterKiB - o.rssBeforeKiB < 30 * 1024, "RSS \(o.rssBeforeKiB) → \(o.rssAfterKiB) KiB")
        #expect(TestEnvironment.files(in: dir).count == 100)
    }

    @Test func sourceFailureFailsWaitersAndFinalisesRecording() async throws {
        let dir = TestEnvironment.tempDir()
        let session = CaptureSession(try Self.config("test?fail-after=60"))
        try await session.prepare()
        let rec = try await MovieRecording.start(in: session, to: try OutputPath("\(dir)/f.mp4"),
                                                 settings: RecordingSettings(container: .mp4, duration: 5))
        do { try await session.play() } catch { Issue.record("play: \(error)"); return }
        let result: RecordingResult
        do { result = try await rec.finished() } catch { Issue.record("finished: \(error) after \(rec.progress.frames) frames"); return }
        #expect(result.sourceError?.contains("fail-after=60") == true)
        #expect(result.frames == 60)
        // A recording on a session whose source has failed is refused at once.
        await #expect(throws: GpickError.self) {
            _ = try await MovieRecording.start(in: session, to: try OutputPath("\(dir)/g.mp4"),
                                               settings: RecordingSettings(container: .mp4, duration: 1))
        }
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/g.mp4"))
        #expect(session.failureReason != nil)
        await #expect(throws: (any Error).self) { for try await _ in session.nextFrames(1) {} }
        await session.stop()
        #expect(try await Media.stampIndices("\(dir)/f.mp4").count == result.frames)
    }
}

