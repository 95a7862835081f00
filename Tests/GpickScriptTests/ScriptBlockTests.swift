import Foundation
import GpickKit
import Testing
@testable import GpickScript

/// `on motion … end` blocks: folded into one statement with their lines, checked whole before
/// anything runs, and errors named by line and column.
@Suite struct ScriptBlockTests {
    func failure(_ text: String) -> ScriptSyntaxError? {
        do { _ = try ScriptParser.parse(text); return nil } catch { return error }
    }

    @Test func aBlockHoldsItsLines() throws {
        let s = try ScriptParser.parse("""
            zone door 0.5,0 1,0 1,1 0.5,1
            on motion in door cooldown 30s
              snap door-%n-%t.jpg   # each time
              record 10s door-%n.mp4
            end
            wait 1h
            """)
        #expect(s.map(\.line) == [1, 2, 6])
        guard case .onMotion(let zone, let cooldown, let body) = s[1].command else { Issue.record("\(s[1])"); return }
        #expect(zone == "door" && cooldown == 30)
        #expect(body.map(\.command) == [.snap("door-%n-%t.jpg"), .record(duration: 10, path: "door-%n.mp4")])
        #expect(body.map(\.line) == [3, 4])
        #expect(try ScriptParser.parse("on motion\necho moved\nend\n").first?.command
                == .onMotion(zone: nil, cooldown: 0, body: [ScriptStatement(line: 2, command: .echo("moved"), text: "echo moved")]))
    }

    /// The README's door camera, as shipped.
    @Test func theDoorSampleParses() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/door.gpick")
        let s = try ScriptParser.parse(try String(contentsOf: file, encoding: .utf8))
        #expect(s.contains { if case .onMotion("door", 60, let body) = $0.command { body.count == 1 } else { false } }, "\(s)")
        var clip = ClipOptions()
        (clip.zone, clip.snap, clip.retention.maxAge) = ("door", true, 7 * 86_400)
        #expect(s.contains { $0.command == .clipsStart(name: "visit-%t.mp4", clip: clip) }, "\(s)")
    }

    @Test func aRunFillsInItsNumberAndTime() throws {
        let date = Date(timeIntervalSince1970: 1_796_000_000)
        let stamp = MotionClips.name("%t", number: 0, at: date)
        #expect(stamp.count == 19 && stamp.allSatisfy { $0.isNumber || $0 == "-" || $0 == "_" }, "\(stamp)")
        let snap = ScriptStatement(line: 3, command: .snap("door-%n-%t.jpg"), text: "snap door-%n-%t.jpg")
        #expect(snap.expanding(number: 7, at: date).command == .snap("door-7-\(stamp).jpg"))
        let echo = ScriptStatement(line: 4, command: .echo("100%% sure: %n"), text: "")
        #expect(echo.expanding(number: 2, at: date).command == .echo("100% sure: 2"))
    }

    @Test(arguments: [
        ("on motion\nsnap a.jpg\n", 1, 1, "this on block has no end"),
        ("snap a.jpg\nend\n", 2, 1, "end without an on block to close"),
        ("on motion\nend\n", 2, 1, "has no lines to run"),
        ("on motion\non motion\nend\nend\n", 2, 1, "on inside the on block of line 1"),
        ("on motion\nserve start\nend\n", 2, 1, "serve cannot run inside the on block of line 1"),
        ("on motion\nrecord start a.mp4\nend\n", 2, 1, "record start cannot run inside"),
        ("on motion\nwait motion\nend\n", 2, 1, "wait motion cannot run inside"),
        ("on motion\nsnap a-%d.jpg\nend\n", 2, 6, "only %t (time), %n (number) and %% may follow a percent sign"),
        ("on motion in door\nsnap a.jpg\nend\n", 1, 14, "no zone \"door\" before this line"),
        ("on sound\nsnap a.jpg\nend\n", 1, 4, "on reacts to motion, not \"sound\""),
        ("on motion cooldown\nsnap a.jpg\nend\n", 1, 11, "cooldown needs a value"),
        ("on motion cooldown soon\nsnap a.jpg\nend\n", 1, 20, "\"soon\" is not a duration"),
        ("on motion\nsnap a.jpg\nend now\n", 3, 5, "unexpected \"now\""),
    ])
    func badBlocksAreFoundBeforeAnythingRuns(_ text: String, _ line: Int, _ column: Int, _ says: String) {
        let e = failure(text)
        #expect(e?.line == line && e?.column == column && e?.message.contains(says) == true, "\(String(describing: e))")
    }
}
