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

    /// A crash says so: with libraries' text kept off stderr, libc's and GLib's abort lines go
    /// nowhere, and a segmentation fault prints nothing at all. The process still ends by its
    /// signal (status 128 + it). Sent from outside here: gpick has no way to crash on purpose.
    /// The children run without core dumps (`ulimit -c 0`), so none lands in the tests' folder,
    /// and without the Swift runtime's backtracer, which a debug build finds (the static release
    /// build does not) and which returns from a signal sent by another process. The recording
    /// is an hour long so the signal always finds it running: in a CI run on a busy host the
    /// test sent it more than 30 s after the recording had started.
    @Test(arguments: [("gpick", false, SIGSEGV), ("gpick-library", false, SIGABRT), ("gpick", true, SIGSEGV)])
    func aCrashLeavesOneLineOnStderr(binary: String, verbose: Bool, sig: Int32) async throws {
        let dir = TestEnvironment.tempDir()
        let command = binary == "gpick-library"
            ? [LibraryCLI.binary, "pick", "--ui", "web", "--no-open", "--no-camera", "--library", dir]
            : [TestEnvironment.binary, "record", "--source", "test", "--duration", "3600", "--json", "-o", "\(dir)/c.mp4"] + (verbose ? ["--verbose"] : [])
        let p = try Subprocess.start("/bin/sh", ["-c", "ulimit -c 0 && exec \"$0\" \"$@\""] + command,
                                     env: ["XDG_DATA_HOME": dir + "/data", "XDG_CACHE_HOME": dir + "/cache", "SWIFT_BACKTRACE": "enable=no"])
        if binary == "gpick-library" {
            try await p.waitForOutput("token=", stderr: true)
        } else {
            try await p.waitForOutput("\"event\":\"started\"")
        }
        p.signal(sig)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 128 + sig, "\(r.status) \(r.stderr)")
        let crashLines = r.stderr.split(separator: "\n").filter { $0.contains("crashed") }
        if verbose {
            // Libraries' own text reaches stderr already; the shell says how the process ended.
            #expect(crashLines.isEmpty, "\(r.stderr)")
        } else {
            let name = sig == SIGSEGV ? "SIGSEGV" : "SIGABRT"
            #expect(crashLines == ["gpick: error: crashed (\(name)): a bug in gpick or in a library it uses; "
                                   + "run the command again with --verbose to see what the libraries said"], "\(r.stderr)")
        }
    }
}
