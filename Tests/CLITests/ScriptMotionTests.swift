import Foundation
import GpickTestSupport
import Testing

/// Motion in scripts: `zone`, `mask` and `wait motion [in ZONE] [for D] [timeout D]`, checked
/// whole before anything runs, as every script is.
@Suite struct ScriptMotionTests {
    /// Runs a script (its output folder with `subfolders` made in it) to its end; the script's
    /// folder comes back, for the paths in its messages.
    static func run(_ script: String, source: String, subfolders: [String] = []) async throws -> (Subprocess.Result, String, [[String: Any]]) {
        let dir = TestEnvironment.tempDir(), out = TestEnvironment.tempDir()
        for f in subfolders { try FileManager.default.createDirectory(atPath: "\(out)/\(f)", withIntermediateDirectories: true) }
        try script.write(toFile: "\(dir)/m.gpick", atomically: false, encoding: .utf8)
        let r = try await Subprocess.gpick(["script", "\(dir)/m.gpick", "--source", source, "--width", "320", "--height", "240",
                                            "--output-dir", out, "--json"], timeout: 60)
        let events = r.events
        return (r, dir, events)
    }

    /// The moving ball in a zone: the wait ends once it has moved there for 0.3 s, and the next
    /// line runs.
    @Test func aScriptWaitsForMotionInAZoneThenSnaps() async throws {
        let (r, _, e) = try await Self.run("""
            zone middle 0.1,0.1 0.9,0.1 0.9,0.9 0.1,0.9
            mask 0,0 0.05,0 0.05,0.05 0,0.05
            wait motion in middle for 0.3s timeout 30s
            snap after.jpg
            """, source: "test:ball")
        #expect(r.status == 0, "\(r.stderr)")
        let started = try #require(e.first { $0["event"] as? String == "motion-started" }, "\(e)")
        #expect(started["zone"] as? String == "middle")
        let waited = try #require(e.first { $0["event"] as? String == "motion" }, "\(e)")
        #expect(waited["line"] as? Int == 3 && waited["zone"] as? String == "middle", "\(waited)")
        #expect(e.contains { $0["event"] as? String == "capture-data-delivered" && ($0["path"] as? String)?.hasSuffix("after.jpg") == true }, "\(e)")
    }

    /// Each start of motion runs the block once, numbered, on the frame at hand; the script ends
    /// once the second run has begun (a wait sees a start only after the blocks it starts), and
    /// that run is finished before the session stops.
    @Test func aBlockRunsEachTimeMotionStarts() async throws {
        let (r, _, e) = try await Self.run("""
            on motion cooldown 0.5s
              snap moved-%n.jpg
              echo moved %n
            end
            wait motion timeout 30s
            wait motion timeout 30s
            """, source: "test:colors?moves=150-180,240-270")
        #expect(r.status == 0, "\(r.stderr)")
        let runs = e.filter { $0["event"] as? String == "on-motion" }
        #expect(runs.map { $0["number"] as? Int } == [1, 2] && runs.allSatisfy { $0["line"] as? Int == 1 }, "\(runs)")
        #expect(e.filter { $0["event"] as? String == "echo" }.compactMap { $0["text"] as? String } == ["moved 1", "moved 2"])
        let files = e.filter { $0["event"] as? String == "capture-data-delivered" }.compactMap { ($0["path"] as? String)?.split(separator: "/").last }
        #expect(files == ["moved-1.jpg", "moved-2.jpg"], "\(files)")
        // Each still is the frame at hand as its run starts: after its motion began (by the
        // frames' stamps), and before the next (a loaded machine's run may start late).
        let stamps = e.filter { $0["event"] as? String == "capture-exposure-complete" }
            .compactMap { ($0["stamp"] as? String)?.split(separator: ":").last.flatMap { Int($0) } }
        #expect(stamps.count == 2 && (150..<240).contains(stamps[0]) && stamps[1] >= 240,
                "\(stamps) \(e.filter { ["motion-started", "on-motion", "capture-exposure-complete", "motion-ended"].contains($0["event"] as? String ?? "") })")
        #expect(e.filter { $0["event"] as? String == "on-motion-done" }.allSatisfy { $0["ok"] as? Bool == true })
    }

    /// A start while the block runs, or within its cooldown, does not run it again.
    @Test func aBlockDoesNotRunAgainWithinItsCooldown() async throws {
        let (r, _, e) = try await Self.run("""
            on motion cooldown 30s
              echo moved %n
            end
            wait motion timeout 30s
            wait motion timeout 30s
            """, source: "test:colors?moves=150-180,240-270")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(e.filter { $0["event"] as? String == "echo" }.compactMap { $0["text"] as? String } == ["moved 1"])
        #expect(e.contains { $0["event"] as? String == "on-motion-skipped" && $0["reason"] as? String == "cooling down" }, "\(e)")
    }

    /// Nothing moves: the wait fails at its timeout, naming its line.
    @Test func aWaitWithoutMotionFailsAtItsTimeout() async throws {
        let (r, _, _) = try await Self.run("wait motion timeout 2s\nsnap never.jpg\n", source: "test:colors")
        #expect(r.status != 0 && r.stderrLines.count == 1 && r.stderr.contains("line 1") && r.stderr.contains("no motion within 2 s"), "\(r.stderr)")
    }

    @Test(arguments: [
        ("wait motion in door\n", "1:16", "no zone \"door\" before this line"),
        ("zone door 0,0 1,0\n", "1:18", "zone needs NAME x1,y1"),
        ("mask 0,0 2,0 1,1\n", "1:6", "point 2.0,0.0 is outside the frame"),
        ("wait motion for\n", "1:13", "for needs a value"),
        ("wait motion soon 2s\n", "1:13", "unexpected \"soon\""),
        ("clips start m.mp4 in door\n", "1:22", "no zone \"door\" before this line"),
        ("clips start\n", "1:12", "clips start needs a file name"),
        ("clips start m-%q.mp4\n", "1:13", "only %t (time), %n (number) and %% may follow"),
        ("clips start m.mp4 pre\n", "1:19", "pre needs a value"),
        ("clips start m.mp4 soon 2s\n", "1:19", "unknown clips option \"soon\""),
        ("clips start m.mp4 snap snap\n", "1:24", "snap is given twice"),
        ("clips start m.mp4 longest 1s\n", "1:27", "longest must be 2 s…24 h"),
        ("clips begin m.mp4\n", "1:7", "clips takes start or stop"),
        ("on motion\n  clips start m.mp4\nend\n", "2:1", "clips start cannot run inside the on block of line 1"),
    ])
    func badMotionLinesAreFoundBeforeAnythingRuns(_ text: String, _ at: String, _ says: String) async throws {
        let (r, dir, _) = try await Self.run(text, source: "test")
        #expect(r.status == 65 && r.stderrLines.count == 1 && r.stderr.contains("\(dir)/m.gpick:\(at): ") && r.stderr.contains(says), "\(r.stderr)")
    }
}
