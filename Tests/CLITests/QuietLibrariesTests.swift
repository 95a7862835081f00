import Foundation
import GpickTestSupport
import Testing

/// What libraries print on their own stays off the user's stderr: libcamera's log (its device
/// provider logs "WARN IPAManager … No IPA found" on every machine without an IPA module, this one
/// included) in gpick and in the executables gpick hands commands to, run through gpick or alone.
@Suite struct QuietLibrariesTests {
    static let libcamera = ["IPAManager", "libcamera v", "camera_manager"]

    @Test func libcameraIsSilentInEveryBinary() async throws {
        let dir = TestEnvironment.tempDir()
        // The tests' environment has no LIBCAMERA_LOG_LEVELS, as a user's has none.
        #expect(ProcessInfo.processInfo.environment["LIBCAMERA_LOG_LEVELS"] == nil)
        let runs = [
            try await Subprocess.gpick(["devices"]),
            try await Subprocess.gpick(["thumb", "camera:test", "-o", "\(dir)/a.png"]),
            try await Subprocess.run(LibraryCLI.binary, ["thumb", "camera:test", "-o", "\(dir)/b.png"]),
        ]
        for r in runs {
            for word in Self.libcamera { #expect(!r.stderr.contains(word), "\(r.stderr)") }
        }
    }

    /// --verbose, which lets libraries' text through, is taken by every command, those gpick hands
    /// to gpick-library and gpick-avatar included; `inspect` keeps its own meaning of it.
    @Test func everyCommandTakesVerbose() async throws {
        let dir = TestEnvironment.tempDir()
        let home = ["HOME": dir, "XDG_DATA_HOME": dir + "/data", "XDG_CACHE_HOME": dir + "/cache", "GPICK_LIBRARY": dir]
        let runs: [(String, Subprocess.Result)] = [
            ("library list", try await Subprocess.gpick(["library", "list", "--verbose"], env: home)),
            ("thumb", try await Subprocess.gpick(["thumb", "camera:test", "--verbose", "-o", "\(dir)/t.png"], env: home)),
            ("avatar", try await Subprocess.gpick(["avatar", "--verbose", "--text", "Ada Lovelace", "-o", "\(dir)/a.png"], env: home)),
            ("snap", try await Subprocess.gpick(["snap", "--source", "test", "--verbose", "-o", "\(dir)/s.jpg"], env: home)),
        ]
        for (what, r) in runs { #expect(r.status == 0, "\(what): \(r.stderr)") }
        let inspect = try await Subprocess.gpick(["inspect", "--verbose", "\(dir)/s.jpg"], env: home)
        #expect(inspect.status == 0 && inspect.stdout.contains("1280"), "\(inspect.stdout) \(inspect.stderr)")
    }
}
