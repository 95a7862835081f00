import Foundation

/// One headless Chromium per page driver (`Tests/Browser/browser_host.py`), shared by the tests
/// that use it, one session at a time: each session runs in a new tab, and its tabs are closed
/// after it, as a user closes a page. Starting Chromium costs more CPU than most page tests' own
/// work.
public actor BrowserHost {
    public static let picker = BrowserHost("picker_driver")
    public static let avatarEditor = BrowserHost("avatar_driver")
    public static let pageChecks = BrowserHost("page_checks")

    private let driver: String
    private var host: Subprocess.Running?
    /// Answer lines already taken from the host's stdout.
    private var answered = 0
    /// A session is running: the actor is reentrant at its awaits, sessions are not.
    private var busy = false

    init(_ driver: String) { self.driver = driver }

    /// Runs the driver's session with `argv` (its command-line arguments: the URL, then its
    /// own) in a new tab; the driver's JSON answer. `timeout` is a hang bound.
    public func session(_ argv: [String], timeout: Double) async throws -> String {
        while busy { try await Task.sleep(for: .milliseconds(20)) }
        busy = true
        defer { busy = false }
        let host = try running()
        let request = try JSONSerialization.data(withJSONObject: ["argv": argv])
        host.send(String(decoding: request, as: UTF8.self) + "\n")
        let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
        while true {
            let text = host.stdoutSoFar
            // Whole lines only: the last may still be arriving.
            let lines = text[..<(text.lastIndex(of: "\n") ?? text.startIndex)].split(separator: "\n")
            if lines.count > answered {
                answered += 1
                return String(lines[answered - 1])
            }
            guard host.process.isRunning, Date() < deadline else {
                // A hung or dead browser: the next session starts a new one.
                host.signal(SIGKILL)
                self.host = nil
                answered = 0
                throw TestFailure("the browser (\(driver)) gave no answer to \(argv) within \(HangBound.seconds(timeout)) s: \(host.stderrSoFar.suffix(800))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func running() throws -> Subprocess.Running {
        if let host, host.process.isRunning { return host }
        let script = TestEnvironment.repoRoot + "/Tests/Browser/browser_host.py"
        let started = try Subprocess.start("/usr/bin/python3", ["-u", script, driver], stdinPipe: true)
        host = started
        answered = 0
        return started
    }
}
