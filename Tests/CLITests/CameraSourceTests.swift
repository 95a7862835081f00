import Foundation
import GpickTestSupport
import Testing

/// libcamera and the camera plugins, where no camera can be made: the errors and `doctor`.
/// (libcamera has no virtual camera on Debian 12; a real one is untested, see the README.)
struct CameraSourceTests {
    @Test func libcameraWithNoSuchCameraIsOneLineAndExit69() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["snap", "--source", "libcamera:/base/soc/none@10", "-o", "\(dir)/x.jpg"])
        #expect(r.status == 69)
        #expect(r.stderrLines.count == 1 && r.stderrLines[0].hasPrefix("gpick: error: no libcamera camera \"/base/soc/none@10\""), "\(r.stderr)")
        #expect(!r.stderr.contains("INFO") && !r.stderr.contains("WARN"), "libcamera's own log reached stderr: \(r.stderr)")
        #expect(TestEnvironment.files(in: dir).isEmpty)
    }

    @Test func doctorAndSourcesNameTheCameraPackages() async throws {
        let full = try await Subprocess.gpick(["doctor", "--json"])
        let checks = WindowSinkTests.events(full.stdout).filter { $0["event"] as? String == "check" }
        for name in ["pipewire cameras", "libcamera cameras"] {
            let c = try #require(checks.first { $0["check"] as? String == name }, "\(full.stdout)")
            #expect(c["ok"] as? Bool == true, "\(c)")
        }
        // Only the session's plugins: neither camera plugin is installed.
        let env = try WindowSinkTests.restricted(["libgstvideorate.so"])
        let bare = try await Subprocess.gpick(["doctor", "--json"], env: env)
        #expect(bare.status == 69)
        let missing = WindowSinkTests.events(bare.stdout).filter { $0["event"] as? String == "check" }
        for (name, element, package) in [("pipewire cameras", "pipewiresrc", "gstreamer1.0-pipewire"),
                                         ("libcamera cameras", "libcamerasrc", "gstreamer1.0-libcamera")] {
            let c = try #require(missing.first { $0["check"] as? String == name })
            #expect(c["missing"] as? [String] == [element] && c["packages"] as? [String] == [package], "\(c)")
        }
        let text = try await Subprocess.gpick(["doctor"], env: env)
        #expect(text.stdout.contains("MISSING  libcamera cameras: libcamerasrc (gstreamer1.0-libcamera); apt-get install gstreamer1.0-libcamera"),
                "\(text.stdout)")
        for (source, package) in [("libcamera", "gstreamer1.0-libcamera"), ("pipewire:testcam", "gstreamer1.0-pipewire")] {
            let dir = TestEnvironment.tempDir()
            let r = try await Subprocess.gpick(["snap", "--source", source, "-o", "\(dir)/x.jpg"], env: env)
            #expect(r.status == 69 && r.stderrLines.count == 1 && r.stderr.contains(package), "\(source): \(r.stderr)")
        }
    }
}
