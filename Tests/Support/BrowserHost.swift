import Foundation

/// One headless Chromium per page driver (`Tests/Browser/browser_host.py`), shared by the tests
/// that use it, one session at a time: each session runs in a new tab, and its tabs are closed
/// after it, as a user closes a page. Starting Chromium costs more CPU than most page tests' own
/// work.
public final class BrowserHost: Sendable {
    public static let picker = BrowserHost("picker_driver")
    public static let avatarEditor = BrowserHost("avatar_driver")
    public static let pageChecks = BrowserHost("page_checks")

    private let host: RequestHost

    init(_ driver: String) {
        host = RequestHost("the browser (\(driver))") {
            try Subprocess.start("/usr/bin/python3", ["-u", TestEnvironment.repoRoot + "/Tests/Browser/browser_host.py", driver], stdinPipe: true)
        }
    }

    /// Runs the driver's session with `argv` (its command-line arguments: the URL, then its
    /// own) in a new tab; the driver's JSON answer, one line. `timeout` is a hang bound.
    public func session(_ argv: [String], timeout: Double) async throws -> String {
        let request = try JSONSerialization.data(withJSONObject: ["argv": argv])
        return try await host.ask(String(decoding: request, as: UTF8.self) + "\n", what: "\(argv)", timeout: timeout) { out, _ in
            // A whole line only: it may still be arriving.
            guard let newline = out.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            return (String(decoding: out[..<newline], as: UTF8.self), RequestHost.Taken(stdout: newline + 1))
        }
    }
}
