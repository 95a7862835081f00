import Foundation
@testable import GpickKit
import GpickTestSupport
import Testing

/// A recording without a set length (a script's `record start`): past the time its MP4's
/// header space indexes it goes on in NAME-002.mp4, NAME-003.mp4, … (reliability check 5),
/// where it used to stop; Matroska has no such bound and stays one file.
@Suite struct OpenRecordingTests {
    @Test func anMP4GoesOnPastItsHeaderSpaceInTheNextFile() async throws {
        let dir = TestEnvironment.tempDir()
        let session = try await SessionTests.running()
        var settings = RecordingSettings(container: .mp4)
        settings.values["reserve"] = "1s"  // a file a second: 30 frames each
        let rec = try await OpenRecording.start(in: session, to: try OutputPath("\(dir)/o.mp4"), settings: settings)
        // 3.5 s of frames, counted as the recording takes them (a loaded machine's source lags the clock).
        #expect(try await TestEnvironment.eventually(HangBound.seconds(30)) { rec.progress.frames >= 105 })
        rec.requestStop()
        let files = try await rec.finished()
        await session.stop()
        let names = files.map { ($0.path as NSString).lastPathComponent }
        #expect(names.count >= 4 && names == ["o.mp4"] + (2...names.count).map { String(format: "o-%03d.mp4", $0) }, "\(names)")
        #expect(TestEnvironment.files(in: dir).sorted() == names.sorted())
        // Each file plays alone, with the frames it reports; together every frame once, in order.
        _ = try await SplitRecordingSessionTests.expectEveryFrameOnce(SplitRecordingResult(parts: files))
        #expect(files.reduce(0) { $0 + $1.frames } >= 105)
    }

    @Test func matroskaIsOneFile() async throws {
        let dir = TestEnvironment.tempDir()
        let session = try await SessionTests.running()
        let rec = try await OpenRecording.start(in: session, to: try OutputPath("\(dir)/o.mkv"), settings: RecordingSettings(container: .mkv))
        guard case .one = rec else { Issue.record("\(rec)"); return }
        #expect(try await TestEnvironment.eventually(HangBound.seconds(30)) { rec.progress.frames >= 15 })
        rec.requestStop()
        let files = try await rec.finished()
        await session.stop()
        #expect(files.map(\.path) == ["\(dir)/o.mkv"])
        #expect(try await Media.stampIndices("\(dir)/o.mkv").count == files.first?.frames)
    }
}
