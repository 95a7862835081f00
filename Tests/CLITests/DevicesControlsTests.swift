import Foundation
import GpickTestSupport
import Testing

/// `gpick devices --controls FILE` and `--control`: a camera's controls from a pasted listing, the
/// values checked as capture commands check them against the camera; `--control` on a source that
/// has no controls gpick can set.
struct DevicesControlsTests {
    static let c922 = "controls/logitech-c922.txt"

    @Test func theControlsAndWhatWouldBeSet() async throws {
        try #require(CameraData.verified.contains(Self.c922), "\(Self.c922) is not in ../shared/cameras: the camera tests need it")
        let r = try await Subprocess.gpick(["devices", "--controls", CameraData.path(Self.c922), "--control", "exposure-time=120",
                                            "--control", "power-line-frequency=50", "--json"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let lines = r.stdoutLines.filter { !$0.isEmpty }
        try #require(lines.count == 1, "\(r.stdout)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let controls = try #require(o["controls"] as? [[String: Any]])
        #expect(controls.count == 17)
        let time = try #require(controls.first { $0["control"] as? String == "exposure_time_absolute" })
        #expect(time["name"] as? String == "exposure-time" && time["min"] as? Int == 3 && time["max"] as? Int == 2047)
        #expect(time["flags"] as? [String] == ["inactive"])
        let set = try #require(o["set"] as? [[String: Any]])
        #expect(set.map { "\($0["control"] ?? "")=\($0["value"] ?? "")" }
                == ["auto_exposure=1", "exposure_time_absolute=120", "power_line_frequency=1"])

        let plain = try await Subprocess.gpick(["devices", "--controls", CameraData.path(Self.c922)])
        #expect(plain.stdoutLines.contains("  exposure-time (exposure_time_absolute): 3…2047, default 250, now 250 [inactive]"), "\(plain.stdout)")
    }

    @Test func refusedControlsAreOneLine() async throws {
        try #require(CameraData.verified.contains(Self.c922), "\(Self.c922) is not in ../shared/cameras: the camera tests need it")
        let range = try await Subprocess.gpick(["devices", "--controls", CameraData.path(Self.c922), "--control", "focus=42"])
        #expect(range.status == 64 && range.stderrLines.count == 1 && range.stderr.contains("focus 42 is outside what camera"), "\(range.stderr)")
        #expect(range.stderr.contains("0…250 (step 5)"))
        let syntax = try await Subprocess.gpick(["snap", "--source", "test", "--control", "exposure", "-o", TestEnvironment.tempDir() + "/x.jpg"])
        #expect(syntax.status == 64 && syntax.stderrLines.count == 1 && syntax.stderr.contains("--control: control \"exposure\": give NAME=VALUE"),
                "\(syntax.stderr)")
        let dir = TestEnvironment.tempDir()
        let test = try await Subprocess.gpick(["snap", "--source", "test", "--control", "gain=10", "-o", dir + "/x.jpg"])
        #expect(test.status == 64 && test.stderrLines.count == 1, "\(test.stderr)")
        #expect(test.stderr.contains("test:smpte has no controls gpick can set: it sets them on V4L2 cameras"), "\(test.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.jpg"))
        // While a script runs: the line that asked, and the same reason.
        let script = try await Subprocess.gpick(["session", "--source", "test", "--output-dir", dir], stdin: "snap a.jpg\nset camera.exposure-time 100\n")
        #expect(script.status != 0 && script.stderrLines.count == 1, "\(script.stderr)")
        #expect(script.stderr.contains("line 2: test:smpte has no controls gpick can set"), "\(script.stderr)")
        // --save-controls remembers only what was set: nothing without a --control, nothing
        // for a camera that took none.
        let config = dir + "/config"
        let none = try await Subprocess.gpick(["snap", "--source", "test", "--save-controls", "-o", dir + "/y.jpg"], env: ["XDG_CONFIG_HOME": config])
        #expect(none.status == 64 && none.stderrLines.count == 1 && none.stderr.contains("--save-controls remembers --control values"), "\(none.stderr)")
        let refused = try await Subprocess.gpick(["snap", "--source", "test", "--control", "gain=10", "--save-controls", "-o", dir + "/y.jpg"],
                                                 env: ["XDG_CONFIG_HOME": config])
        #expect(refused.status == 64 && refused.stderrLines.count == 1, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: config + "/gpick/controls.conf"))
    }

    /// Check 41 in a terminal (tmux): a control the camera refuses is one line, and the session
    /// goes on: the next command runs. Ctrl-D ends it, and its status reports the failure.
    @Test func aSessionTypedAtATerminalGoesOnAfterARefusedControl() async throws {
        let dir = TestEnvironment.tempDir()
        let tmux = PreviewTests.Tmux()
        let cmd = ([TestEnvironment.binary, "session", "--source", "test", "--width", "320", "--height", "240", "--output-dir", dir])
            .map { "'\($0)'" }.joined(separator: " ")
        // The tmux server outlives this call: it must not keep any of the test's descriptors.
        let closeAll = "for f in /proc/$$/fd/*; do n=${f##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done 2>/dev/null"
        _ = try await Subprocess.run("/bin/bash", ["-c", "\(closeAll); tmux -L \(tmux.socket) new-session -d -s t -x 150 -y 24 \"$0\" </dev/null >/dev/null 2>&1",
                                                   "\(cmd); echo gpick-exit=$?; sleep 60"], timeout: 20)
        defer { Task { _ = try? await tmux.run(["kill-server"]) } }
        func paneShows(_ text: String) async throws -> String {
            let deadline = Date().addingTimeInterval(HangBound.seconds(30))
            var pane = ""
            while !pane.contains(text) {
                guard Date() < deadline else { throw TestFailure("the terminal never showed \"\(text)\": \(pane)") }
                try await Task.sleep(for: .milliseconds(50))
                pane = try await tmux.pane(escapes: false)
            }
            return pane
        }
        _ = try await tmux.run(["send-keys", "-t", "t", "set camera.gain 10", "Enter"])
        _ = try await paneShows("has no controls gpick can set")
        _ = try await tmux.run(["send-keys", "-t", "t", "snap a.jpg", "Enter"])
        _ = try await paneShows(dir + "/a.jpg")
        #expect(try await Media.frames(dir + "/a.jpg").first?.stamp?.sourceID == 1)
        _ = try await tmux.run(["send-keys", "-t", "t", "C-d"])
        let pane = try await paneShows("gpick-exit=")
        #expect(pane.contains("gpick-exit=1"), "\(pane)")
        let errors = pane.split(separator: "\n").filter { $0.contains("error") }
        #expect(errors == ["gpick: error: line 1: test:smpte has no controls gpick can set: it sets them on V4L2 cameras (v4l2:/dev/videoN)"], "\(pane)")
    }
}
