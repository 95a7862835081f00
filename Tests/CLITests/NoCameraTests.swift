import Foundation
import GpickTestSupport
import Testing

/// A machine with no camera (reliability check 35): no PipeWire (a private, empty runtime
/// folder), and on this machine no libcamera camera and no V4L2 device. `auto` is then no camera:
/// every command says so in one line with exit 69 and writes nothing; the picker shows no camera
/// cell; `--source test` still gives the test pattern. Skipped where a V4L2 camera can be opened.
@Suite(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/video0"), "this machine has a V4L2 camera"))
struct NoCameraTests {
    /// The environment of a session with no PipeWire daemon.
    static func env() -> [String: String] {
        let runtime = TestEnvironment.tempDir("xdg-none")
        chmod(runtime, 0o700)
        return ["XDG_RUNTIME_DIR": runtime]
    }

    static let small = ["--width", "320", "--height", "240"]

    @Test(arguments: [
        ["snap", "-o", "OUT/a.jpg"], ["record", "--duration", "1", "-o", "OUT/a.mp4"], ["live", "-o", "OUT/shot"],
        ["avatar", "--image", "camera", "--text", "A B", "-o", "OUT/me.png"], ["thumb", "camera", "-o", "OUT/t.png"],
        ["thumb", "camera:auto", "-o", "OUT/t.png"],
    ])
    func everyCommandSaysSoInOneLine(_ args: [String]) async throws {
        let dir = TestEnvironment.tempDir()
        let argv = args.map { $0.replacingOccurrences(of: "OUT", with: dir) }
        let r = try await Subprocess.gpick(argv + (args[0] == "avatar" || args[0] == "thumb" ? [] : Self.small), env: Self.env(),
                                           timeout: 60)
        #expect(r.status == 69, "\(args): \(r.status) \(r.stderr)")
        #expect(r.stderrLines.count == 1, "\(args): \(r.stderr)")
        #expect(r.stderr.contains("no camera found") && r.stderr.contains("PipeWire is not running")
                && r.stderr.contains("--source test gives the test pattern"), "\(args): \(r.stderr)")
        #expect(TestEnvironment.files(in: dir).isEmpty, "\(args): nothing written: \(TestEnvironment.files(in: dir))")
    }

    /// Scripts and sessions too: the first command that needs the camera fails, naming its line.
    @Test func aSessionSaysSoAtItsFirstShot() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["session", "--output-dir", dir] + Self.small, env: Self.env(), stdin: "snap a.jpg\n")
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderr.contains("no camera found"), "\(r.stderr)")
        #expect(TestEnvironment.files(in: dir).isEmpty)
    }

    /// Named, the test source is there whatever the machine has.
    @Test func theTestSourceWhenNamed() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--source", "test", "-o", "\(dir)/a.jpg"] + Self.small, env: Self.env())
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(try await Media.frames("\(dir)/a.jpg").first?.stamp?.sourceID == 1)
    }

    /// The picker: no camera cell, a notice saying why, and the library as usual.
    @Test func thePickerShowsNoCameraCell() async throws {
        let lib = try await PickerWebTests.Library(["red.jpg": "red.jpg"])
        let p = try Subprocess.start(TestEnvironment.binary, ["pick", "--ui", "web", "--no-open", "--library", lib.root],
                                     env: lib.env.merging(Self.env().merging(["DISPLAY": ""]) { $1 }) { $1 })
        let err = try await p.waitForOutput("token=", stderr: true)
        let url = try #require(err.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))
        let picker = PickerWebTests.Running(process: p, url: url.trimmingCharacters(in: .whitespacesAndNewlines))
        let answer = try await picker.drive("nocamera", then: ["key", "ESCAPE"])
        #expect(PickerWebTests.cells(answer).map { $0["kind"] as? String } == ["item"], "\(answer)")
        #expect((answer["notice"] as? String)?.contains("No camera found: PipeWire is not running") == true, "\(answer)")
        let r = try await picker.finish()
        #expect(r.status == 130)
    }

    /// The avatar editor: its Camera button is there, disabled, and says why.
    @Test func theEditorsCameraButtonSaysWhy() async throws {
        let editor = try await BrowserPageTests.AvatarEditorTests.edit(["--text", "A B", "--source", "auto"], env: Self.env())
        let steps = try await editor.drive(["camera-state", "cancel"])
        let state = try #require(steps.first)
        #expect(state["camera-disabled"] as? Bool == true, "\(state)")
        #expect((state["camera-title"] as? String)?.contains("no camera found: PipeWire is not running") == true, "\(state)")
    }
}
