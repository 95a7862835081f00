import Foundation
import GpickKit
import GpickTestSupport
import Synchronization
import Testing

/// A terminal preview's frames follow its box while the camera runs: a terminal resized, a
/// picker's camera cell that changes size. The box's caps were set from the caller's thread
/// while the preview's streaming thread ran: the scaler could choose its output for one box and
/// the caps filter be told of the next before that output reached it, refuse it, and fail the
/// session with "format not supported" (once in five loaded runs of the tmux preview test; here,
/// 3 of 10 runs beside two busy loops, and none of 50 once the caps change at an idle moment).
struct PreviewResizeTests {
    @Test func theBoxChangesTwoHundredTimesWhileFramesFlow() async throws {
        let session = CaptureSession(try SessionTests.config(width: 640, height: 480))
        // GStreamer's warnings (an element that failed to negotiate says so) tell a failure's cause.
        let warnings = Mutex<[String]>([])
        session.onEvent { if case .warning(let w, let detail) = $0 { warnings.withLock { $0.append("\(w) [\(detail ?? "")]") } } }
        try await session.start()
        let last = Mutex<(width: Int, height: Int)?>(nil)
        var options = PreviewOptions()
        options.frameHandler = { frame in last.withLock { $0 = (frame.width, frame.height) } }
        options.frameBox = PixelBox(width: 160, height: 120)
        let preview = try await Preview.start(.terminal, in: session, options: options)
        #expect(try await TestEnvironment.eventually(10) { preview.framesShown >= 3 })
        // Sizes that need scaling every time, changed faster than frames come (30 fps), so that
        // many changes meet a frame between the scaler and the box.
        let boxes = [PixelBox(width: 160, height: 120), PixelBox(width: 90, height: 60), PixelBox(width: 317, height: 201)]
        for i in 0..<200 {
            try preview.setFrameBox(boxes[i % boxes.count])
            if i % 4 == 0 { try await Task.sleep(for: .milliseconds(5)) }
            if session.failureReason != nil { break }
        }
        // The last box: 317×201 fits 4:3 as 268×200 (even sizes).
        try preview.setFrameBox(PixelBox(width: 317, height: 201))
        let fitted = try await TestEnvironment.eventually(10) {
            session.failureReason == nil && last.withLock { $0.map { $0 == (268, 200) } ?? false }
        }
        #expect(session.failureReason == nil, "\(session.failureReason?.message ?? "") [\(session.failureReason?.detail ?? "")] warnings: \(warnings.withLock { $0 })")
        #expect(fitted, "frames at \(String(describing: last.withLock { $0 })), not 268×200")
        await preview.stop()
        await session.stop()
    }
}
