import Foundation
import GpickTestSupport
import Testing

/// `gpick avatar edit` as a user runs it: the page driven in a real headless Chromium, the
/// preview's pixels read back from the page, the files decoded after ✕. One page at a time, in
/// the avatar driver's own browser.
extension BrowserPageTests {
@Suite(.serialized) struct AvatarEditorTests {
    struct Running {
        let process: Subprocess.Running
        let url: String
        let out: String
        var origin: String { String(url.prefix { $0 != "?" }).replacing(/\/$/, with: "") }

        /// `avatar_driver.py URL STEP…` in a tab of the shared browser: each step's preview
        /// pixel and status.
        func drive(_ steps: [String]) async throws -> [[String: Any]] {
            let said = try await BrowserHost.avatarEditor.session([url] + steps, timeout: 120)
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(said.utf8)) as? [String: Any], "driver: \(said)")
            #expect(answer["ok"] as? Bool == true, "\(answer)")
            return answer["steps"] as? [[String: Any]] ?? []
        }

        func curl(_ path: String, _ extra: [String] = []) async throws -> String {
            try await Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}"] + extra + [origin + path]).stdout
        }
    }

    static func edit(_ args: [String], env: [String: String] = [:]) async throws -> Running {
        let out = TestEnvironment.tempDir("avatar-edit")
        let p = try Subprocess.start(TestEnvironment.binary, ["avatar", "edit", "-o", out + "/me.png", "--no-open", "--source", "test"] + args,
                                     env: env.merging(["DISPLAY": ""]) { $1 })
        let err = try await p.waitForOutput("token=", stderr: true)
        let url = try #require(err.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))
        return Running(process: p, url: url.trimmingCharacters(in: .whitespacesAndNewlines), out: out)
    }

    static func pixel(_ step: [String: Any]) -> (Int, Int, Int) {
        let p = step["pixel"] as? [Int] ?? [-1, -1, -1]
        return (p[0], p[1], p[2])
    }

    static func near(_ p: (Int, Int, Int), _ q: (Int, Int, Int), _ tolerance: Int = 40) -> Bool {
        abs(p.0 - q.0) <= tolerance && abs(p.1 - q.1) <= tolerance && abs(p.2 - q.2) <= tolerance
    }

    @Test func colourImageColourAndBackThenSaveWritesTheImageAndTheModel() async throws {
        let red = TestEnvironment.tempDir("avatar-edit-red") + "/red.png"
        try await MediaFixtures.run([("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=#e53935:s=320x240", "-frames:v", "1", red])])
        let editor = try await Self.edit(["--text", "Ada Lovelace"])
        let steps = try await editor.drive(["colour:#1e88e5", "upload:" + red, "color-button", "color-button", "save"])
        try #require(steps.count == 5)
        // The colour is shown at once; the image replaces it; "Color" shows the colour again
        // (the image kept), and pressing it again brings the image back.
        #expect(Self.near(Self.pixel(steps[0]), (0x1e, 0x88, 0xe5)), "colour: \(steps[0])")
        #expect(Self.near(Self.pixel(steps[1]), (0xe5, 0x39, 0x35)), "image: \(steps[1])")
        #expect(Self.near(Self.pixel(steps[2]), (0x1e, 0x88, 0xe5)) && steps[2]["pressed"] as? String == "true", "color: \(steps[2])")
        #expect(Self.near(Self.pixel(steps[3]), (0xe5, 0x39, 0x35)) && steps[3]["colours-hidden"] as? Bool == true, "back: \(steps[3])")
        #expect((steps[4]["status"] as? String ?? "").contains("Saved"), "\(steps[4])")

        let r = try await editor.process.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == editor.out + "/me.png\n", "\(r.stdout)")
        // The image, its model, and the uploaded photo beside them (the model names it by path and hash).
        let img = try await Media.rgba(editor.out + "/me.png")
        #expect(img.width == 500 && img.height == 500)
        #expect(img.pixels[3] == 0, "a circle's corner is transparent")
        let model = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: editor.out + "/me.json"))) as? [String: Any])
        let image = try #require(model["image"] as? [String: Any])
        #expect(model["background"] as? String == "image" && image["path"] as? String == editor.out + "/me-photo.png", "\(model)")
        #expect((model["last-colors"] as? [String])?.first == "#1e88e5", "the last colour is remembered: \(model)")
        // The model renders the same bytes from the command line.
        let again = try await Subprocess.gpick(["avatar", "--model", editor.out + "/me.json", "-o", editor.out + "/again.png"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(FileManager.default.contents(atPath: editor.out + "/me.png") == FileManager.default.contents(atPath: editor.out + "/again.png"))
    }

    @Test func dropPasteLibraryAndCameraThenCancelWritesNothing() async throws {
        let lib = try await LibrarySheetTests.Library(["blue.jpg": "blue.jpg"])
        let editor = try await Self.edit(["--text", "Wu"], env: lib.env)
        let steps = try await editor.drive(["drop:#43a047", "paste:#fdd835", "library", "camera", "text:Zed", "cancel"])
        try #require(steps.count == 6)
        #expect(Self.near(Self.pixel(steps[0]), (0x43, 0xa0, 0x47)), "drop: \(steps[0])")
        #expect(Self.near(Self.pixel(steps[1]), (0xfd, 0xd8, 0x35)), "paste: \(steps[1])")
        #expect((steps[2]["assets"] as? [String])?.count == 1, "library: \(steps[2])")
        let blue = Self.pixel(steps[2])
        #expect(blue.2 > 150 && blue.0 < 80, "the library's blue photo: \(steps[2])")
        #expect(Self.pixel(steps[3]) != blue && (steps[3]["status"] as? String ?? "") == "", "camera: \(steps[3])")
        let r = try await editor.process.wait(timeout: 20)
        #expect(r.status == 130 && r.stdout.isEmpty, "\(r.status) \(r.stdout) \(r.stderr)")
        #expect(TestEnvironment.files(in: editor.out).isEmpty, "\(TestEnvironment.files(in: editor.out))")
    }

    @Test func theTokenAndTheHostAreRequiredAndClosingThePageCancels() async throws {
        let editor = try await Self.edit([])
        #expect(try await editor.curl("/") == "403", "no token")
        #expect(try await editor.curl("/?token=" + String(editor.url.split(separator: "token=").last ?? "")) == "200")
        #expect(try await editor.curl("/?token=wrong") == "403")
        #expect(try await editor.curl(editor.url.replacingOccurrences(of: editor.origin, with: ""), ["-H", "Host: evil.example"]) == "403", "foreign Host")
        // Paths with .. never reach a handler, and thumbnails go by library id only.
        let token = String(editor.url.split(separator: "token=").last ?? "")
        let escape = try await editor.curl("/thumb/../../etc/passwd?token=" + token, ["--path-as-is"])
        #expect(escape == "404", "\(escape)")
        #expect(try await editor.curl("/thumb/%2e%2e%2fetc%2fpasswd?token=" + token) == "404")
        #expect(try await editor.curl("/thumb/etc?token=" + token) == "404")
        #expect(try await editor.curl("//etc/passwd?token=" + token, ["--path-as-is"]) == "404", "an absolute path")
        #expect(try await editor.curl("/thumb//etc/passwd?token=" + token, ["--path-as-is"]) == "404", "an absolute path")
        // A change without the header is refused even with the cookie.
        #expect(try await editor.curl("/api/save", ["-X", "POST", "-b", "gpick-token-\(editor.origin.split(separator: ":").last ?? "")=\(token)", "-d", "{}"]) == "403")
        // The page opened and then closed without ✕: cancelled, nothing written.
        _ = try await editor.drive([])
        let r = try await editor.process.wait(timeout: 20)
        #expect(r.status == 130, "\(r.stderr)")
        #expect(TestEnvironment.files(in: editor.out).isEmpty)
    }
}
}
