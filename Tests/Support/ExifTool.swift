import Foundation
import GpickBase

/// One exiftool for the whole test run, kept open as its `-stay_open` option means it to be:
/// perl compiles Image::ExifTool's modules once (about 130 ms of CPU here), not once per check,
/// and the suite is CPU-bound. The checks read and write tags exactly as a separate
/// `exiftool ARGS…` would: each command is sent with `-echo4` of its exit status and `-executeN`,
/// and its answer is its stdout up to `{readyN}`, its stderr up to the status line, and that
/// status. Commands run one at a time (RequestHost).
///
/// `-config` must come first on exiftool's command line, so a command that needs one runs an
/// exiftool of its own. The host ends when this process does: a shell forwards its stdin and,
/// at the end of it, tells exiftool to stop (left alone, it would poll a closed pipe).
public enum ExifTool {
    public static let path = "/usr/bin/exiftool"
    static let host = RequestHost("exiftool") {
        try Subprocess.start("/bin/sh", ["-c", "{ cat; printf -- '-stay_open\\nFalse\\n'; } | exec \(path) -stay_open True -@ -"],
                             stdinPipe: true)
    }
    /// Numbers the commands, so that each answer's markers are its own.
    private static let sent = Locked(0)

    /// `exiftool ARGS…`'s status, stdout and stderr. `timeout` is a hang bound.
    public static func run(_ args: [String], timeout: Double = 60) async throws -> Subprocess.Result {
        if let bad = args.first(where: { $0.contains("\n") || $0 == "-config" || $0.lowercased().hasPrefix("-stay_open") || $0.hasPrefix("-execute") }) {
            throw TestFailure("exiftool's argument \"\(bad)\" cannot be sent through its -stay_open argument file")
        }
        let id = sent.withLock { n -> Int in n += 1; return n }
        let statusMark = "{gpick-exiftool-status\(id)} "
        let ready = Data("{ready\(id)}\n".utf8), mark = Data(statusMark.utf8)
        let request = (args + ["-echo4", statusMark + "${status}", "-execute\(id)"]).joined(separator: "\n") + "\n"
        return try await host.ask(request, what: "\(args)", timeout: timeout) { out, err in
            guard let end = out.range(of: ready), let at = err.range(of: mark),
                  let newline = err[at.upperBound...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let status = Int32(String(decoding: err[at.upperBound..<newline], as: UTF8.self)) ?? -1
            let result = Subprocess.Result(status: status, stdout: String(decoding: out[..<end.lowerBound], as: UTF8.self),
                                           stderr: String(decoding: err[..<at.lowerBound], as: UTF8.self))
            return (result, RequestHost.Taken(stdout: end.upperBound, stderr: newline + 1))
        }
    }

    /// As `run`, failing the test when exiftool's status is not 0.
    @discardableResult
    public static func check(_ args: [String], timeout: Double = 60) async throws -> Subprocess.Result {
        let r = try await run(args, timeout: timeout)
        guard r.status == 0 else { throw TestFailure("exiftool \(args.joined(separator: " ")) exited \(r.status): \(r.stderr)") }
        return r
    }
}
