import GpickKit
import Testing
@testable import GpickScript

/// The script language, parsed without a session: statements, quoting, and every error as
/// line:column.
@Suite struct ScriptParserTests {
    func command(_ line: String) throws -> ScriptCommand? {
        try ScriptParser.parseLine(line, lineNumber: 1)?.command
    }

    func error(_ line: String, lineNumber: Int = 1) -> ScriptSyntaxError? {
        do { _ = try ScriptParser.parseLine(line, lineNumber: lineNumber); return nil } catch { return error }
    }

    @Test func everyCommandParses() throws {
        #expect(try command("snap a.jpg") == .snap("a.jpg"))
        #expect(try command("burst 5 b.jpg every 3") == .burst(count: 5, path: "b.jpg", every: 3))
        #expect(try command("burst 5 b.jpg") == .burst(count: 5, path: "b.jpg", every: 1))
        #expect(try command("record 1.5s c.mp4") == .record(duration: 1.5, path: "c.mp4"))
        #expect(try command("timelapse 8h every 10s lapse.mp4") == .timelapse(duration: 28_800, every: 10, path: "lapse.mp4"))
        var clip = ClipOptions()
        #expect(try command("clips start m-%n.mp4") == .clipsStart(name: "m-%n.mp4", clip: clip))
        (clip.pre, clip.post, clip.zone, clip.snap, clip.retention.maxBytes, clip.retention.minFree) = (1.5, 10, "path", true, 20 << 30, 0.05)
        #expect(try command("clips start door/m-%t.mp4 post 10s snap pre 1.5s in path keep-size 20G keep-free 5%")
                == .clipsStart(name: "door/m-%t.mp4", clip: clip))
        #expect(try command("clips stop") == .clipsStop)
        #expect(try command("record 500ms c.mp4") == .record(duration: 0.5, path: "c.mp4"))
        #expect(try command("record start d.mkv") == .recordStart("d.mkv"))
        #expect(try command("record stop") == .recordStop)
        #expect(try command("record start door.mp4 split 60s keep 24h keep-size 20G keep-free 5%")
                == .recordLoop(path: "door.mp4", partSeconds: 60, retention: PartRetention(maxAge: 86_400, maxBytes: 20 << 30, minFree: 0.05)))
        #expect(try command("record start door.mp4 split 0.5s") == .recordLoop(path: "door.mp4", partSeconds: 0.5, retention: PartRetention()))
        #expect(try command("wait 2m") == .wait(120))
        #expect(try command("set src.pattern ball") == .set(element: "src", property: "pattern", value: "ball"))
        #expect(try command("preview start http") == .preview(start: true, sink: .http))
        #expect(try command("preview start") == .preview(start: true, sink: nil))
        #expect(try command("preview stop") == .preview(start: false, sink: nil))
        #expect(try command("mode live") == .mode(live: true))
        #expect(try command("countdown 3") == .countdown(3))
        #expect(try command("flip") == .flip)
        #expect(try command("suspend") == .suspend)
        #expect(try command("resume") == .resume)
        #expect(try command("live shot") == .live("shot"))
        #expect(try command("source test:ball") == .source("test:ball"))
        #expect(try command("echo hello   world") == .echo("hello world"))
    }

    @Test func expectations() throws {
        #expect(try command("expect c.mp4 frames >= 30") == .expect(path: "c.mp4", .frames(.ge, 30)))
        #expect(try command("expect c.mp4 duration 2s within 40ms") == .expect(path: "c.mp4", .duration(2, tolerance: 0.04)))
        #expect(try command("expect a.jpg size 320x240") == .expect(path: "a.jpg", .size(320, 240)))
        #expect(try command("expect c.mp4 stamps 0..89") == .expect(path: "c.mp4", .stamps(first: 0, last: 89)))
        #expect(try command("expect c.mp4 stamps 10..") == .expect(path: "c.mp4", .stamps(first: 10, last: nil)))
        #expect(try command("expect a.jpg kind photo") == .expect(path: "a.jpg", .kind("photo")))
        #expect(try command("expect a.jpg exists") == .expect(path: "a.jpg", .exists))
    }

    @Test func quotesKeepNamesLiteralAndCommentsEndTheLine() throws {
        #expect(try command("snap 'a b %s.jpg'") == .snap("a b %s.jpg"))
        #expect(try command("snap \"say \\\"hi\\\".jpg\"") == .snap("say \"hi\".jpg"))
        #expect(try command("snap a#b.jpg") == .snap("a#b.jpg"), "# inside a word is literal")
        #expect(try command("snap a.jpg # the first") == .snap("a.jpg"))
        #expect(try command("   # only a comment") == nil)
        #expect(try command("") == nil)
    }

    @Test func errorsNameLineAndColumn() {
        let cases: [(String, Int, String)] = [
            ("snp a.jpg", 1, "unknown command \"snp\" (did you mean \"snap\"?)"),
            ("snap", 5, "snap needs FILE"),
            ("snap a.jpg b.jpg", 12, "unexpected \"b.jpg\""),
            ("wait soon", 6, "\"soon\" is not a duration"),
            ("burst 0 b.jpg", 7, "burst count \"0\" must be a whole number ≥ 1"),
            ("burst 3 b.jpg each 2", 15, "expected \"every K\""),
            ("record 0s c.mp4", 8, "record duration must be > 0"),
            ("set pattern ball", 5, "expected ELEMENT.PROPERTY"),
            ("preview start tv", 15, "preview sink \"tv\" is not window, terminal or http"),
            ("snap 'a.jpg", 6, "unterminated single quote"),
            ("expect c.mp4 frame == 3", 14, "unknown check \"frame\" (did you mean \"frames\"?)"),
            ("expect c.mp4 stamps 1-9", 21, "expected a range like 0..89"),
            ("mode video", 6, "mode takes photo or live"),
            ("record start d.mp4 splat 60s", 20, "usage: record start FILE [split SECONDS"),
            ("record start d.mp4 split", 20, "split needs the length of a part"),
            ("record start d.mp4 split 0s", 26, "a part must last more than 0 s"),
            ("record start d.mp4 split 60s keep forever", 35, "keep \"forever\" must be a duration"),
            ("record start d.mp4 split 60s keep-size lots", 40, "keep-size \"lots\" must be a size"),
            ("record start d.mp4 split 60s keep-free 120%", 40, "keep-free \"120%\" must be a share"),
            ("record start d.mp4 split 60s kep 1h", 30, "unknown split option \"kep\" (did you mean \"keep\"?)"),
            ("record start d.mp4 split 60s keep", 30, "keep needs a value"),
        ]
        for (line, column, message) in cases {
            let e = error(line, lineNumber: 7)
            #expect(e?.line == 7 && e?.column == column, "\(line): \(String(describing: e))")
            #expect(e?.message.contains(message) == true, "\(line): \(String(describing: e))")
        }
    }

    @Test func aWholeScriptIsCheckedBeforeAnythingRuns() throws {
        let ok = try ScriptParser.parse("snap a.jpg\n\n# pause\nwait 0.5s\nrecord 1s c.mp4\n")
        #expect(ok.map(\.line) == [1, 4, 5])
        #expect(ok.map(\.text) == ["snap a.jpg", "wait 0.5s", "record 1s c.mp4"])
        do {
            _ = try ScriptParser.parse("snap a.jpg\nwait x\nflip\n")
            Issue.record("a bad line passed")
        } catch {
            #expect(error.line == 2 && error.column == 6)
        }
    }
}
