import CGStreamer
import Foundation
@testable import GpickKit
import GpickTestSupport
import GstCore
import Testing

/// A file source's bin (`filesrc ! decodebin ! … ! identity sync=true`) is live (the identity
/// makes it NO_PREROLL) and holds an element that changes state asynchronously (decodebin, until
/// its type is found). GstBin forwards the decodebin's ASYNC_START to the session pipeline but,
/// when the ASYNC_DONE comes after the source bin has committed its own PAUSED, not the ASYNC_DONE
/// ("nothing pending"): the pipeline then waits for it for ever, stuck in PAUSED with its sinks
/// prerolled. `gpick record` from a file hit it about once in 20 to 60 runs, when the decodebin
/// finished between the pipeline's PAUSED and PLAYING; here that order is made certain.
@Suite struct FileSourceStartTests {
    @Test func aFileSourceWhoseDecoderSettledBeforePlayLetsThePipelinePlay() async throws {
        let dir = TestEnvironment.tempDir()
        let file = "\(dir)/clip.y4m"
        try await MediaFixtures.run([("/usr/bin/gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=60", "!", "video/x-raw,width=320,height=240,framerate=30/1,format=I420",
            "!", "y4menc", "!", "filesink", "location=\(file)",
        ])])
        var c = try SessionTests.config("file:\(file)")
        c.startTimeout = 10
        let session = CaptureSession(c)
        try await session.prepare()
        let pipeline = try #require(session.pipeline)
        try await pipeline.setState(.paused)
        let stage = try #require(session.state.withLock { $0.stage })
        let decoder = try #require(stage.bin.children.first { $0.factoryName == "decodebin" })
        // The decodebin has found the file's type and committed PAUSED: its ASYNC_DONE is posted.
        #expect(try await TestEnvironment.eventually(10) { Self.currentState(of: decoder) == GST_STATE_PAUSED })
        // The pipeline reaches PLAYING (stuck, it stayed in PAUSED, waiting for the source bin).
        try await pipeline.setState(.playing)
        #expect(try await TestEnvironment.eventually(10) { Self.currentState(of: pipeline) == GST_STATE_PLAYING },
                "\(Self.currentState(of: pipeline))")
        await session.stop()
    }

    static func currentState(of element: Element) -> GstState {
        var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        _ = gst_element_get_state(element.pointer, &current, &pending, 0)
        return current
    }
}
