import Foundation
@testable import GpickKit
import GpickBase
import GstCore
import GpickTestSupport
import Testing

/// The camera's frame pool after a pile-up. When frames wait downstream (a recording's queue
/// riding out a stall, a consumer holding them), the pool must allocate one for each; GStreamer's
/// own pools keep them all for the rest of the session (41 MiB at 720p for a 2 s stall).
/// gpick's (CFramePool) frees all but four idle ones as they come back.
@Suite struct FramePoolTests {
    /// Sixty frames held at once, then let go: the pool allocated for them, and once they are
    /// back it holds no more than its four idle frames and the few the stream has in flight.
    @Test func framesAPileUpMadeThePoolAllocateAreFreedWhenTheyComeBack() async throws {
        let session = CaptureSession(try SessionTests.config("test:colors", width: 640, height: 480))
        try await session.start()
        #expect(try await TestEnvironment.eventually(30) { session.deliveredFrames >= 10 })
        let steady = try #require(session.sourceFramePool)
        #expect(steady.allocated > 0 && steady.allocated <= 12, "the stream alone allocated \(steady.allocated) frames")

        var held: [Sample] = []
        for try await frame in session.nextFrames(60) { held.append(frame) }
        let piled = try #require(session.sourceFramePool)
        #expect(piled.allocated >= steady.allocated + UInt64(held.count) - 12, "\(held.count) frames held, \(piled.allocated) allocated")
        held.removeAll()

        // Back in the pool as the stream goes on: all but a few freed, however loaded the machine.
        var now = piled
        let settled = try await TestEnvironment.eventually(30) {
            now = session.sourceFramePool ?? now
            return now.allocated - now.trimmed <= 12
        }
        await session.stop()
        #expect(settled, "\(now.allocated) frames allocated, \(now.trimmed) freed: \(now.allocated - now.trimmed) kept")
        #expect(now.trimmed >= UInt64(50), "\(now.trimmed) freed of \(now.allocated)")
    }
}
