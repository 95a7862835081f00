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

    /// Starts `binary` on a long job (the recording is an hour long, the picker waits) so that what
    /// is done to it always finds it running: in a CI run on a busy host a signal came more than
    /// 30 s after the recording had started. Children run without core dumps (`ulimit -c 0`), so
    /// none lands in the tests' folder, and without the Swift runtime's backtracer, which a debug
    /// build finds (the static release build does not) and which returns from a signal sent by
    /// another process.
    static func longJob(_ binary: String, verbose: Bool, env extra: [String: String] = [:]) async throws -> Subprocess.Running {
        let dir = TestEnvironment.tempDir()
        let command = binary == "gpick-library"
            ? [LibraryCLI.binary, "pick", "--ui", "web", "--no-open", "--no-camera", "--library", dir]
            : [TestEnvironment.binary, "record", "--source", "test", "--duration", "3600", "--json", "-o", "\(dir)/c.mp4"] + (verbose ? ["--verbose"] : [])
        let env = ["XDG_DATA_HOME": dir + "/data", "XDG_CACHE_HOME": dir + "/cache", "SWIFT_BACKTRACE": "enable=no"].merging(extra) { $1 }
        let p = try Subprocess.start("/bin/sh", ["-c", "ulimit -c 0 && exec \"$0\" \"$@\""] + command, env: env)
        if binary == "gpick-library" {
            try await p.waitForOutput("token=", stderr: true)
        } else {
            try await p.waitForOutput("\"event\":\"started\"")
        }
        return p
    }

    /// A crash says so: with libraries' text kept off stderr, libc's and GLib's abort lines go
    /// nowhere, and a segmentation fault prints nothing at all. The process still ends by its
    /// signal (status 128 + it). A real crash, made inside the process: gdb attaches and has it
    /// call abort(), or read address 0.
    @Test(arguments: [("gpick", false, SIGSEGV), ("gpick-library", false, SIGABRT), ("gpick", true, SIGSEGV)])
    func aCrashLeavesOneLineOnStderr(binary: String, verbose: Bool, sig: Int32) async throws {
        let p = try await Self.longJob(binary, verbose: verbose)
        let crash = sig == SIGABRT ? "call (void)abort()" : "call (unsigned long)strlen(0)"
        let gdb = try await Subprocess.run("/usr/bin/gdb", ["-p", "\(p.process.processIdentifier)", "-batch", "-nx",
                                                           "-ex", "handle SIGSEGV nostop noprint pass", "-ex", "handle SIGABRT nostop noprint pass",
                                                           "-ex", crash], timeout: 120)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 128 + sig, "\(r.status) \(r.stderr) gdb: \(gdb.stdout.suffix(300)) \(gdb.stderr.suffix(300))")
        let crashLines = r.stderr.split(separator: "\n").filter { $0.contains("crashed") || $0.contains("stopped by") }
        if verbose {
            // Libraries' own text reaches stderr already; the shell says how the process ended.
            #expect(crashLines.isEmpty, "\(r.stderr)")
        } else {
            let name = sig == SIGSEGV ? "SIGSEGV" : "SIGABRT"
            #expect(crashLines == ["gpick: error: crashed (\(name)): a bug in gpick or in a library it uses; "
                                   + "run the command again with --verbose to see what the libraries said"], "\(r.stderr)")
        }
    }

    /// A signal another process sends is not a crash: the line names it and its sender. Under
    /// systemd's watchdog (WATCHDOG_USEC set) SIGABRT is the watchdog's signal, and the line says
    /// so, for the journal of a service whose camera stalled.
    @Test(arguments: [(SIGSEGV, false), (SIGABRT, true)])
    func aSignalFromAnotherProcessSaysWhoSentIt(sig: Int32, watchdog: Bool) async throws {
        let p = try await Self.longJob("gpick", verbose: false, env: watchdog ? ["WATCHDOG_USEC": "30000000"] : [:])
        p.signal(sig)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 128 + sig, "\(r.status) \(r.stderr)")
        let name = sig == SIGSEGV ? "SIGSEGV" : "SIGABRT"
        let said = r.stderr.split(separator: "\n").filter { $0.contains("crashed") || $0.contains("stopped by") }
        #expect(said == ["gpick: error: stopped by \(name) from process \(getpid())"
                         + (watchdog ? ": the watchdog's signal (gpick feeds it only while the camera's frames flow)" : "")], "\(r.stderr)")
    }
}
