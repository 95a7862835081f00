import Foundation
import GpickKit
import GstCore
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
    /// The race made certain: the preview branch's own text, its box changed on the streaming
    /// thread after the scaler has chosen its output for the old box and before the converter
    /// (and the caps filter after it) see that output. The box's filter keeps taking the old
    /// size until the new one comes, so nothing is refused and frames reach the new box. With
    /// the filter told to take only its newest caps (GStreamer's default), the same moment
    /// fails the stream: "not-negotiated", what ended sessions about once in three full runs.
    @Test(arguments: [true, false])
    func aBoxChangedBetweenTheScalerAndTheFilterIsNoError(delayed: Bool) async throws {
        var file = try TestEnvironment.library.load("preview-terminal")
        if !delayed { file.pipeline.value = file.pipeline.value.replacingOccurrences(of: "caps-change-mode=delayed", with: "caps-change-mode=immediate") }
        #expect(delayed == file.pipeline.value.contains("caps-change-mode=delayed"))
        let pipeline = try await Pipeline.parse("videotestsrc is-live=true ! video/x-raw,format=I420,width=640,height=480,framerate=30/1 ! "
                                                + file.pipeline.value.replacingOccurrences(of: "\n", with: " "))
        let size = try pipeline.requireElement(named: "size")
        try size.set("caps", caps: try Caps("video/x-raw,format=RGB,width=160,height=120,pixel-aspect-ratio=1/1"))
        let sizes = Mutex<[String]>([])
        try AppSink(pipeline.requireElement(named: "out")).setCallbacks(onSample: { sample in
            if let v = sample.videoInfo { sizes.withLock { $0.append("\(v.width)x\(v.height)") } }
        })
        // Once frames flow at 160x120: the box becomes 80x60, which the scaler follows with new
        // caps; as those caps (80x60) pass the scaler, the box changes again, to 320x240.
        let step = Mutex(0)
        try #require(pipeline.requireElement(named: "convert").staticPad("sink")).addProbe(.eventDownstream) { info in
            guard info.eventType == .caps else { return .ok }
            let next = step.withLock { s -> Int in s += 1; return s }
            if next == 2 { try? size.set("caps", caps: try! Caps("video/x-raw,format=RGB,width=320,height=240,pixel-aspect-ratio=1/1")) }
            return .ok
        }
        let bus = pipeline.bus.messages()
        try await pipeline.setState(.playing)
        #expect(try await TestEnvironment.eventually(10) { sizes.withLock { $0.contains("160x120") } })
        try size.set("caps", caps: try Caps("video/x-raw,format=RGB,width=80,height=60,pixel-aspect-ratio=1/1"))
        let failed = Mutex<String?>(nil)
        let watch = Task {
            for await m in bus { if case .error(let e) = m { failed.withLock { $0 = "\(e.message) \(e.diagnostic)" }; return } }
        }
        let reachedOrFailed = try await TestEnvironment.eventually(10) { sizes.withLock { $0.last == "320x240" } || failed.withLock { $0 } != nil }
        try await pipeline.setState(.null)
        watch.cancel()
        let errors = failed.withLock { $0 }.map { [$0] } ?? []
        let reached = reachedOrFailed && sizes.withLock { $0.last == "320x240" }
        if delayed {
            #expect(errors.isEmpty, "\(errors)")
            #expect(reached, "frames at \(sizes.withLock { $0.suffix(3) })")
        } else {
            #expect(errors.contains { $0.contains("not-negotiated") }, "the race no longer fails the stream: \(errors), frames \(sizes.withLock { $0.suffix(3) })")
        }
    }

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
