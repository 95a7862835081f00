import Foundation
import GpickTestSupport
import Testing

/// `gpick watch`: motion events from the session's frames, in each zone, in words or as JSON.
@Suite struct WatchTests {
    static func events(_ r: Subprocess.Result) -> [[String: Any]] {
        r.events
    }

    /// The moving ball: motion from its first frames, in the zone it crosses and the whole frame.
    @Test func theMovingBallIsMotionInItsZones() async throws {
        let r = try await Subprocess.gpick(["watch", "--source", "test:ball", "--width", "320", "--height", "240", "--duration", "2", "--json",
                                            "--zone", "all=0,0 1,0 1,1 0,1", "--zone", "corner=0,0 0.1,0 0.1,0.1 0,0.1"])
        #expect(r.status == 0, "\(r.stderr)")
        let e = Self.events(r)
        let started = e.filter { $0["event"] as? String == "motion-started" }
        #expect(started.map { $0["zone"] as? String } == ["all"], "\(e)")
        let first = try #require(started.first)
        // (How soon after the first frame: MotionWatchTests, which knows the first frame's time.)
        #expect((first["area"] as? Double ?? 0) > 0.006, "\(first)")
        let box = try #require(first["box"] as? [Double])
        #expect(box.count == 4 && box.allSatisfy { (0...1).contains($0) }, "\(box)")
        // Ended when the watch stops, at its last frame with motion.
        #expect(e.contains { $0["event"] as? String == "motion-ended" && $0["zone"] as? String == "all" })
    }

    /// Still colours (the stamp in their corner changes every frame, and is not looked at).
    @Test func stillColoursAreNoMotion() async throws {
        let r = try await Subprocess.gpick(["watch", "--source", "test:colors", "--width", "320", "--height", "240", "--duration", "3"])
        #expect(r.status == 0 && r.stdout.isEmpty, "\(r.stdout) \(r.stderr)")
    }

    @Test(arguments: [
        (["--zone", "door"], "--zone door must be NAME=POINTS"),
        (["--zone", "door=0,0 1,0"], "at least 3 points"),
        (["--mask", "0,0 2,0 1,1"], "point 2.0,0.0 is outside the frame"),
        (["--zone", "a=0,0 1,0 1,1", "--zone", "a=0,0 1,0 0,1"], "--zone a is given twice"),
        (["--threshold", "0"], "--threshold 0.0 must be 1…255"),
        (["--min-area", "0"], "--min-area 0.0 must be"),
    ])
    func badWatchOptionsAreOneLine(_ args: [String], _ mentions: String) async throws {
        let r = try await Subprocess.gpick(["watch", "--source", "test", "--duration", "1"] + args)
        #expect(r.status == 64 && r.stderrLines.count == 1 && r.stderr.contains(mentions), "\(args): \(r.stderr)")
    }
}
