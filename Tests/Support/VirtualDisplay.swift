import Foundation

/// An X server for one test (Xvfb). It picks a free display number itself (`-displayfd`), so
/// suites running side by side never race for one. `-noreset`: an X server resets when its last
/// client leaves and closes connections that arrive meanwhile (~10 % of quick reconnects here);
/// a desktop always has other clients, a bare test server does not.
public final class VirtualDisplay {
    public let name: String
    let process: Subprocess.Running

    public init() async throws {
        process = try Subprocess.start("/usr/bin/Xvfb", ["-displayfd", "1", "-noreset", "-screen", "0", "640x480x24", "-nolisten", "tcp"])
        // Xvfb prints its display once it listens, or ends. The bound is for a hung one only:
        // at the start of a full run, with hundreds of tests starting on two cores, two servers
        // once had said nothing after 10 s (it compiles its keymap with a child xkbcomp); its
        // stderr now says which, should it happen again.
        let deadline = Date().addingTimeInterval(HangBound.seconds(60))
        while true {
            let out = process.stdoutSoFar
            if out.hasSuffix("\n"), let n = Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) {
                name = ":\(n)"
                break
            }
            guard Date() < deadline, process.process.isRunning else {
                if process.process.isRunning { process.signal(SIGKILL) }
                throw TestFailure("Xvfb did not start within \(Int(HangBound.seconds(60))) s: \(out) \(process.stderrSoFar.suffix(600))")
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// SIGKILL: a child of the test runner inherits its blocked signals (SIGTERM among them),
    /// so SIGTERM left every test's Xvfb running; an X server for a test has nothing to save.
    public func stop() { process.signal(SIGKILL) }

    /// A screenshot of the whole screen as RGB.
    public func screenshot(_ dir: String) async throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let png = "\(dir)/screen-\(UUID().uuidString.prefix(6)).png"
        let r = try await Subprocess.run("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "x11grab", "-video_size", "640x480",
                                                             "-i", name, "-frames:v", "1", "-y", png])
        guard r.status == 0 else { throw TestFailure("screenshot: \(r.stderr)") }
        return try await Media.rgb(png)
    }

    /// The names of the X server's windows that have one (xdotool).
    public func windowNames() async throws -> [String] {
        let env = ["DISPLAY": name]
        let ids = try await Subprocess.run("/usr/bin/xdotool", ["search", "--name", "."], env: env).stdoutLines
        var names: [String] = []
        for id in ids {
            let n = try await Subprocess.run("/usr/bin/xdotool", ["getwindowname", id], env: env)
            if n.status == 0 { names.append(n.stdout.trimmingCharacters(in: .newlines)) }
        }
        return names
    }
}
