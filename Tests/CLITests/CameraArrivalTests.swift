import Foundation
import GpickTestSupport
import Testing

/// A camera plugged in while the picker runs. The picker starts with `--source auto` on a private
/// PipeWire whose camera node has been destroyed (as if unplugged): no camera cell, and the
/// status line says what was looked for. Then the node is made again, as plugging the camera in
/// does, and the cell comes into the grid with the camera's frames; the cursor or focus stays on
/// the cell it was on, and the camera takes photos.
@Suite(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/video0"), "this machine has a V4L2 camera"))
struct CameraArrivalTests {
    static let small = ["--width", "320", "--height", "240"]

    /// The daemon with its camera unplugged.
    static func unplug(_ pw: PipeWireDaemon) async throws {
        try await pw.destroy(node: PipeWireDaemon.cameraNode)
        let deadline = Date().addingTimeInterval(HangBound.seconds(10))
        while try await pw.nodeID(PipeWireDaemon.cameraNode) != nil {
            guard Date() < deadline else { throw TestFailure("the camera node outlived its destruction") }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    static func events(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["event"] as? String }
    }

    @Test func theWebPickerGetsItsCameraCellWhenACameraIsPluggedIn() async throws {
        let lib = try await PickerWebTests.Library(["red.jpg": "red.jpg"])
        try await PipeWireDaemon.with { pw in
            try await Self.unplug(pw)
            let captures = TestEnvironment.tempDir("arrival-captures")
            let p = try Subprocess.start(TestEnvironment.binary, ["pick", "--ui", "web", "--no-open", "--library", lib.root, "--json",
                                                                  "--output-dir", captures] + Self.small,
                                         env: lib.env.merging(pw.env.merging(["DISPLAY": ""]) { $1 }) { $1 })
            let err = try await p.waitForOutput("token=", stderr: true)
            let url = try #require(err.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init))
            let picker = PickerWebTests.Running(process: p, url: url.trimmingCharacters(in: .whitespacesAndNewlines))
            let told = TestEnvironment.tempDir("arrival") + "/no-camera-shown"
            // The driver's answer crosses tasks as JSON text.
            let driving = Task { try JSONSerialization.data(withJSONObject: try await picker.drive("arrive", [told], then: ["key", "ESCAPE"])) }
            try await p.waitForFile(told, timeout: 60)
            try await pw.recreateCamera()
            let answer = try #require(try JSONSerialization.jsonObject(with: try await driving.value) as? [String: Any])

            let before = (answer["before"] as? [[String: Any]] ?? []).map { $0["kind"] as? String }
            #expect(before == ["item"], "no camera cell before the camera came: \(answer)")
            #expect((answer["notice"] as? String)?.contains("No camera found: PipeWire is running but shares no camera") == true, "\(answer)")
            let arrived = (answer["arrived"] as? [[String: Any]] ?? []).map { $0["kind"] as? String }
            #expect(arrived == ["camera", "item"], "the camera cell comes first, the library after it: \(answer)")
            #expect(answer["focused_after"] as? String == answer["focused_before"] as? String && answer["focused_before"] != nil,
                    "the focus stays on the photo it was on: \(answer)")
            #expect(answer["notice_after"] as? String == "", "the no-camera line goes: \(answer)")
            // snap: the photo taken is at the head of the grid, after the camera cell.
            let kinds = PickerWebTests.cells(answer).map { $0["kind"] as? String }
            #expect(kinds == ["camera", "item", "item"], "\(answer)")

            let r = try await picker.finish()
            #expect(r.status == 130, "\(r.stderr)")
            let said = Self.events(r.stdout)
            #expect(said.contains("camera-arrived") && said.contains("captured"), "\(r.stdout)")
            #expect(said.firstIndex(of: "camera-arrived")! < said.firstIndex(of: "captured")!, "\(said)")
            // The photo went where it was asked to, not into the folder the picker was started in.
            let written = try FileManager.default.contentsOfDirectory(atPath: captures).filter { $0.hasPrefix("pick-") }
            #expect(written.count == 1, "\(written)")
        }
    }

    @Test func theTerminalPickerGetsItsCameraCellWhenACameraIsPluggedIn() async throws {
        let lib = try await PickerTerminalTests.Library(["red.jpg": "red.jpg"])
        let listed = try await PickerWebTests.listed(lib)
        try await PipeWireDaemon.with { pw in
            try await Self.unplug(pw)
            let picker = try await PickerTerminalTests.Running(lib, ["--source", "auto", "--json"] + Self.small,
                                                               columns: 90, rows: 28, env: pw.env)
            try await picker.waitFor("No camera found", seconds: 30)
            #expect(try await !picker.pane().contains("camera back"))
            try await pw.recreateCamera()
            try await picker.waitForOutput("camera-arrived", seconds: 30)
            // Live frames in the cell: its position label and no "starting".
            try await picker.waitFor("camera back", seconds: 30)
            let shown = try await picker.pane()
            #expect(!shown.contains("No camera found"), "the no-camera line goes: \(shown)")
            // The cursor was on the photo, and still is: Enter picks it (on the camera cell, it
            // would take a photo).
            try await picker.keys("Enter")
            let r = try await picker.finish()
            #expect(r.status == 0, "\(r.stderr)\n\(r.pane)")
            let picked = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["event"] as? String == "picked" }.compactMap { $0["path"] as? String }
            #expect(picked == [listed[0].path], "\(r.stdout)")
            #expect(Self.events(r.stdout).contains("camera-arrived"), "\(r.stdout)")
        }
    }

    /// A preview with `auto` and no camera waits for one (saying so once), and shows it once it
    /// is plugged in: the page's stream holds the camera's frames (its 75 % white bar, no gpick stamp).
    @Test func aPreviewWaitsForACameraAndShowsIt() async throws {
        let dir = TestEnvironment.tempDir()
        try await PipeWireDaemon.with { pw in
            try await Self.unplug(pw)
            let p = try Subprocess.start(TestEnvironment.binary, ["preview", "--sink", "http", "--port", "0", "--json", "--duration", "3600"] + Self.small,
                                         env: pw.env.merging(["DISPLAY": ""]) { $1 })
            let waiting = try await p.waitForOutput("waiting-for-camera", timeout: 30)
            let reason = PreviewTests.events(waiting).first { $0["event"] as? String == "waiting-for-camera" }?["reason"] as? String
            #expect(reason?.hasPrefix("no camera found: PipeWire is running but shares no camera") == true, "\(waiting)")
            #expect(!waiting.contains("\"url\""), "nothing is served before there is a camera: \(waiting)")
            try await pw.recreateCamera()
            let out = try await p.waitForOutput("\"url\"", timeout: 40)
            let said = PreviewTests.events(out).compactMap { $0["event"] as? String }
            #expect(said.prefix(3) == ["waiting-for-camera", "camera-arrived", "source-chosen"] || said.prefix(2) == ["waiting-for-camera", "camera-arrived"],
                    "\(out)")
            let url = try #require(PreviewTests.events(out).first { $0["event"] as? String == "started" }?["url"] as? String)
            let parts = try await PreviewTests.streamParts(url, parts: 3, dir: dir)
            let jpeg = try #require(parts.last)
            let file = "\(dir)/part.jpg"
            try Data(jpeg).write(to: URL(fileURLWithPath: file))
            #expect(try await Media.frames(file).first?.stamp == nil, "the camera's frame, not gpick's test pattern")
            let bar = try await PipeWireCameraTests.whiteBar(file)
            #expect((150...235).contains(bar), "PipeWire's test camera draws a 75 % white bar first (about 192): \(bar)")
            p.signal(SIGTERM)
            let r = try await p.wait(timeout: 15)
            #expect(r.status == 0, "\(r.stderr)")
        }
    }

    /// With no camera and nothing plugged in, the wait ends with `--duration`: the reason, exit 69.
    @Test func aPreviewThatNeverGetsACameraEndsAtItsDurationSayingWhy() async throws {
        let r = try await Subprocess.gpick(["preview", "--sink", "http", "--port", "0", "--duration", "2"] + Self.small,
                                           env: NoCameraTests.env().merging(["DISPLAY": ""]) { $1 }, timeout: 30)
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderrLines.count == 2 && r.stderrLines[0].contains("waiting for a camera to be plugged in")
                && r.stderrLines[1].contains("no camera found: PipeWire is not running"), "\(r.stderr)")
    }
}
