import Dispatch
import FoundationEssentials
import Glibc
import GpickBase

/// Prints a command's events: JSON objects one per line with `--json`, short human lines otherwise.
package final class Events: Sendable {
    package let json: Bool
    package let command: String
    private let start = DispatchTime.now()

    package init(json: Bool, command: String) {
        self.json = json
        self.command = command
    }

    /// Seconds since the command started (monotonic).
    package var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }

    package func emit(_ event: String, _ fields: JSONFields = [:]) {
        guard json else { return }
        var obj = fields.mapValues(\.json)
        obj["event"] = .string(event)
        obj["command"] = .string(command)
        obj["t"] = .number((elapsed * 1e6).rounded() / 1e6)
        if let line = JSONValue.object(obj).line { print(line) }
    }

    package func started(_ fields: JSONFields = [:]) { emit("started", fields) }
    package func finished(_ fields: JSONFields = [:]) { emit("finished", fields) }

    package func fileWritten(_ path: String, bytes: Int64, extra: JSONFields = [:]) {
        if json {
            emit("file-written", extra.merging(["path": path, "bytes": bytes]) { a, _ in a })
        } else {
            print(path)
        }
    }

    package func notice(_ message: String) {
        if json { emit("notice", ["message": message]) } else { Console.notice(message) }
    }

    /// GStreamer's warnings: an event with --json; on stderr only with --verbose (they are
    /// about GStreamer's internals, which a failure, if any, explains in its own line).
    package func warning(_ message: String, detail: String?) {
        if json { emit("warning", ["message": message]) } else if Console.verbose { Console.notice("warning: \(detail ?? message)") }
    }

    /// Reports a failure: JSON event on stdout, and the one line on stderr.
    package func error(_ e: GpickError) {
        emit("error", ["message": e.line, "kind": e.kind.rawValue])
    }
}

/// Runs a command body, turning failures into an error event plus the one stderr line.
package func reporting(_ events: Events, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let e as GpickError {
        events.error(e)
        throw e
    }
}
