import Foundation

/// One exiftool for the whole test run, kept open as its `-stay_open` option means it to be:
/// perl compiles Image::ExifTool's modules once (about 130 ms of CPU here), not once per check,
/// and the suite is CPU-bound. The checks read and write tags exactly as a separate
/// `exiftool ARGS…` would: each command is sent with `-echo4` of its exit status and `-executeN`,
/// and its answer is its stdout up to `{readyN}`, its stderr up to the status line, and that
/// status. Commands run one at a time, in the order asked.
///
/// `-config` must come first on exiftool's command line, so a command that needs one runs an
/// exiftool of its own. The host ends when this process does: a shell forwards its stdin and,
/// at the end of it, tells exiftool to stop (left alone, it would poll a closed pipe).
public actor ExifTool {
    public static let path = "/usr/bin/exiftool"
    static let shared = ExifTool()

    private var host: Subprocess.Running?
    private var sent = 0
    private var stdoutSeen = 0, stderrSeen = 0
    /// A command is running: the actor is reentrant at its awaits, commands are not.
    private var busy = false

    /// `exiftool ARGS…`'s status, stdout and stderr. `timeout` is a hang bound.
    public static func run(_ args: [String], timeout: Double = 60) async throws -> Subprocess.Result {
        try await shared.run(args, timeout: timeout)
    }

    /// As `run`, failing the test when exiftool's status is not 0.
    @discardableResult
    public static func check(_ args: [String], timeout: Double = 60) async throws -> Subprocess.Result {
        let r = try await run(args, timeout: timeout)
        guard r.status == 0 else { throw TestFailure("exiftool \(args.joined(separator: " ")) exited \(r.status): \(r.stderr)") }
        return r
    }

    private func run(_ args: [String], timeout: Double) async throws -> Subprocess.Result {
        if let bad = args.first(where: { $0.contains("\n") || $0 == "-config" || $0.lowercased().hasPrefix("-stay_open") || $0.hasPrefix("-execute") }) {
            throw TestFailure("exiftool's argument \"\(bad)\" cannot be sent through its -stay_open argument file")
        }
        while busy { try await Task.sleep(for: .milliseconds(5)) }
        busy = true
        defer { busy = false }
        let host = try running()
        sent += 1
        let id = sent
        let statusMark = "{gpick-exiftool-status\(id)} "
        host.send((args + ["-echo4", statusMark + "${status}", "-execute\(id)"]).joined(separator: "\n") + "\n")
        let ready = Data("{ready\(id)}\n".utf8), mark = Data(statusMark.utf8)
        let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
        while true {
            let (out, err) = host.output(stdoutFrom: stdoutSeen, stderrFrom: stderrSeen)
            if let end = out.range(of: ready), let at = err.range(of: mark),
               let newline = err[at.upperBound...].firstIndex(of: UInt8(ascii: "\n")) {
                stdoutSeen += end.upperBound - out.startIndex
                stderrSeen += newline + 1 - err.startIndex
                let status = Int32(String(decoding: err[at.upperBound..<newline], as: UTF8.self)) ?? -1
                return Subprocess.Result(status: status, stdout: String(decoding: out[..<end.lowerBound], as: UTF8.self),
                                         stderr: String(decoding: err[..<at.lowerBound], as: UTF8.self))
            }
            guard host.isRunning, Date() < deadline else {
                // A hung or dead exiftool: the next command starts a new one.
                host.signal(SIGKILL)
                self.host = nil
                throw TestFailure("exiftool gave no answer to \(args) within \(HangBound.seconds(timeout)) s: \(String(decoding: err.suffix(800), as: UTF8.self))")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func running() throws -> Subprocess.Running {
        if let host, host.isRunning { return host }
        let started = try Subprocess.start("/bin/sh", ["-c", "{ cat; printf -- '-stay_open\\nFalse\\n'; } | exec \(Self.path) -stay_open True -@ -"],
                                           stdinPipe: true)
        host = started
        stdoutSeen = 0
        stderrSeen = 0
        return started
    }
}
