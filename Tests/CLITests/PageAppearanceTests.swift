import Foundation
import GpickTestSupport
import Testing

/// The avatar editor's page and both pages' looks. Each suite is one page at a time in its own
/// Chromium (`BrowserHost`), beside the picker's page tests (`PickerWebTests`): three chains that
/// run side by side, so that none waits for another's minutes at the end of the run.
enum BrowserPageTests {}

/// How the picker and the avatar editor look, as a user's browser shows them: axe-core (Deque's
/// accessibility engine) on both pages in light and dark, and pixels of headless Chromium's
/// screenshots (the theme's header, the accent on the focused and selected cell and the Choose
/// button, a user stylesheet, the camera cell's shape). One page at a time, in the page
/// checks' own browser.
extension BrowserPageTests {
@Suite(.serialized) struct PageAppearanceTests {
    /// `page_checks.py URL SCHEME STEP…` in a tab of the shared browser: each step's answer.
    static func check(_ url: String, scheme: String = "none", _ steps: [String]) async throws -> [[String: Any]] {
        let said = try await BrowserHost.pageChecks.session([url, scheme] + steps, timeout: 180)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(said.utf8)) as? [String: Any], "driver: \(said)")
        #expect(answer["ok"] as? Bool == true, "\(answer)")
        return answer["steps"] as? [[String: Any]] ?? []
    }

    static func step(_ steps: [[String: Any]], _ name: String) -> [String: Any] {
        steps.first { $0["step"] as? String == name } ?? [:]
    }

    /// No violation at all; when there are, each one's id, impact and where.
    static func expectNoViolations(_ steps: [[String: Any]], _ what: String) {
        let axe = step(steps, "axe")
        let violations = axe["violations"] as? [[String: Any]]
        #expect(violations != nil, "\(what): axe did not run: \(axe)")
        let listed = (violations ?? []).map { "\($0["id"] ?? "")/\($0["impact"] ?? ""): \($0["targets"] ?? "") (\($0["help"] ?? ""))" }
        #expect(listed.isEmpty, "\(what): \(listed.count) axe violations:\n\(listed.joined(separator: "\n"))")
        #expect((axe["passes"] as? Int ?? 0) >= 15, "\(what): axe checked little: \(axe)")
    }

    static func pixel(_ steps: [[String: Any]], _ name: String) -> [Int] {
        (step(steps, "pixels")["pixels"] as? [String: Any])?[name] as? [Int] ?? []
    }

    static func near(_ p: [Int], _ q: [Int], _ tolerance: Int = 12) -> Bool {
        p.count == 3 && zip(p, q).allSatisfy { abs($0 - $1) <= tolerance }
    }

    static func box(_ steps: [[String: Any]], _ name: String) -> [String: Any] {
        (step(steps, "pixels")["boxes"] as? [String: Any])?[name] as? [String: Any] ?? [:]
    }

    /// Both themes, named or followed from the system (auto): axe finds nothing, with the camera
    /// cell, its buttons and the library's cells on the page; the header is the theme's colour.
    @Test func thePickerPassesAxeInLightAndDark() async throws {
        let lib = try await PickerWebTests.Library(["red.jpg": "red.jpg", "blue.jpg": "blue.jpg", "clip.mp4": "green.mp4"])
        let runs: [(String, [String], String, [Int])] = [
            ("light", ["--theme", "light"], "dark", [255, 255, 255]),
            ("dark", ["--theme", "dark"], "light", [0x1e, 0x20, 0x26]),
            ("auto, light system", [], "light", [255, 255, 255]),
            ("auto, dark system", ["--theme", "auto"], "dark", [0x1e, 0x20, 0x26]),
        ]
        for (what, args, scheme, header) in runs {
            let picker = try await PickerWebTests.pick(lib, ["--source", "test", "--width", "320", "--height", "240", "--multi",
                                                             "--output-dir", lib.dir] + args)
            let steps = try await Self.check(picker.url, scheme: scheme, ["axe", "select", "axe", "pixels"])
            Self.expectNoViolations(Array(steps.prefix(1)), what)
            Self.expectNoViolations(Array(steps.dropFirst(2).prefix(1)), what + ", one cell selected")
            #expect(Self.near(Self.pixel(steps, "header"), header), "\(what): header \(Self.pixel(steps, "header"))")
            let r = try await picker.finish()
            #expect(r.status == 130, "\(what): \(r.stderr)")
        }
    }

    /// The accent is on the focused cell's ring and on the Choose button (with black text, which
    /// reads better on orange), and a user stylesheet's rule wins over gpick's.
    @Test func anAccentAndAUserStylesheetShowInThePage() async throws {
        let lib = try await PickerWebTests.Library(["red.jpg": "red.jpg", "blue.jpg": "blue.jpg"])
        let style = lib.dir + "/mine.css"
        try "body { background: #ff00ff }\n".write(toFile: style, atomically: false, encoding: .utf8)
        let shots = TestEnvironment.tempDir("page-shots")
        let picker = try await PickerWebTests.pick(lib, ["--no-camera", "--multi", "--theme", "light", "--accent", "#f80",
                                                         "--style", style, "--spacing", "10", "--insets", "20"])
        // The stylesheet is at its fixed address only, behind the token like the rest.
        #expect(try await picker.curl("/user.css") == "403")
        #expect(try await picker.curl("/user.css", ["-H", "X-Gpick-Token: \(picker.token)"]) == "200")
        let steps = try await Self.check(picker.url, ["select", "axe", "pixels", "shot:\(shots)/accent.png"])
        Self.expectNoViolations(steps, "accent and stylesheet")
        #expect(Self.near(Self.pixel(steps, "focus-ring"), [255, 136, 0]), "ring: \(Self.pixel(steps, "focus-ring"))")
        #expect(Self.near(Self.pixel(steps, "confirm"), [255, 136, 0]), "Choose: \(Self.pixel(steps, "confirm"))")
        #expect(Self.box(steps, "confirm")["color"] as? String == "rgb(0, 0, 0)", "\(Self.box(steps, "confirm"))")
        #expect(Self.near(Self.pixel(steps, "page"), [255, 0, 255], 2), "page: \(Self.pixel(steps, "page"))")
        #expect(Self.near(Self.pixel(steps, "header"), [255, 255, 255]), "header: \(Self.pixel(steps, "header"))")
        // --insets 20: the grid starts 20 px into the page.
        let focused = Self.box(steps, "focused"), main = Self.box(steps, "main")
        #expect(abs((focused["x"] as? Double ?? 0) - 20) < 1 && abs((focused["y"] as? Double ?? 0) - (main["y"] as? Double ?? 0) - 20) < 1,
                "\(focused) in \(main)")
        let r = try await picker.finish()
        #expect(r.status == 130, "\(r.stderr)")
    }

    /// A 16:9 camera is shown 16:9, whole: its cell spans two columns and the frame is
    /// letterboxed in it (dark at the cell's edge, the test pattern inside), not cropped square.
    /// The arrows move the page's focus by rows over it, one cell in the tab order at a time.
    @Test func theCameraCellKeepsTheCamerasShape() async throws {
        var files: [String: String] = [:]
        for n in 1...6 { files["p\(n).jpg"] = n % 2 == 0 ? "red.jpg" : "blue.jpg" }
        let lib = try await PickerWebTests.Library(files)
        let picker = try await PickerWebTests.pick(lib, ["--source", "test", "--width", "640", "--height", "360", "--columns", "4",
                                                         "--output-dir", lib.dir])
        let steps = try await Self.check(picker.url, ["pixels", "keys:ArrowRight,ArrowDown,ArrowLeft,ArrowUp,ArrowDown"])
        // Rows: [camera camera p p] [p p p p]. Right: the first item; down: the cell under it;
        // left; up from under the camera's second column: the camera; down: the row's first cell.
        let focus = (Self.step(steps, "keys")["focus"] as? [[Int]] ?? []).map { $0.first ?? -2 }
        #expect(focus == [1, 5, 4, 0, 3], "\(Self.step(steps, "keys"))")
        #expect((Self.step(steps, "keys")["focus"] as? [[Int]] ?? []).allSatisfy { $0.last == 1 }, "one cell in the tab order")
        let cell = Self.box(steps, "camera")
        let ratio = (cell["w"] as? Double ?? 0) / max(1, cell["h"] as? Double ?? 1)
        #expect(abs(ratio - 2) < 0.1, "a two-column cell: \(cell)")
        let frames = (Self.step(steps, "pixels")["boxes"] as? [String: Any])?["cameraNatural"] as? [Int] ?? []
        #expect(frames == [640, 360], "the page gets 16:9 frames: \(frames)")
        let edge = Self.pixel(steps, "camera-edge"), inside = Self.pixel(steps, "camera-inside")
        #expect(edge.count == 3 && edge.allSatisfy { $0 < 40 }, "letterboxed: \(edge)")
        #expect((inside.max() ?? 0) > 120, "the pattern inside: \(inside)")
        let r = try await picker.finish()
        #expect(r.status == 130, "\(r.stderr)")
    }

    /// The avatar editor in the system's light and dark: no axe violation, its header and
    /// buttons in the picker's colours.
    @Test func theAvatarEditorPassesAxeInLightAndDark() async throws {
        for (scheme, header) in [("light", [255, 255, 255]), ("dark", [0x1e, 0x20, 0x26])] {
            let editor = try await AvatarEditorTests.edit(["--text", "Ada Lovelace"])
            let steps = try await Self.check(editor.url, scheme: scheme, ["axe", "pixels"])
            Self.expectNoViolations(steps, "editor, \(scheme)")
            #expect(Self.near(Self.pixel(steps, "header"), header), "\(scheme): header \(Self.pixel(steps, "header"))")
            let r = try await editor.process.wait(timeout: 20)
            #expect(r.status == 130, "\(scheme): \(r.stderr)")
        }
    }

    @Test func badAppearanceIsOneLine() async throws {
        let lib = try await PickerWebTests.Library([:], scan: false)
        for (args, code, words) in [(["--accent", "red"], 64, "--accent must be a hex colour"),
                                    (["--accent", "#12345"], 64, "--accent must be a hex colour"),
                                    (["--theme", "purple"], 64, "--theme"),
                                    (["--spacing", "65"], 64, "--spacing must be 0…64"),
                                    (["--insets", "-3"], 64, "--insets must be 0…128"),
                                    (["--style", lib.dir + "/none.css"], 65, "no such stylesheet: \(lib.dir)/none.css")] {
            let r = try await lib.run(["pick", "--no-open", "--no-camera", "--ui", "web"] + args)
            #expect(r.status == code && r.stderrLines.count == 1 && r.stderr.contains(words), "\(args): \(r.status) \(r.stderr)")
        }
    }
}
}
