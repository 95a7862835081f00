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
}
