import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickBase

/// `--save-to-library`: a capture's files also go into the media library, indexed at once. Off by
/// default, as iOS camera pickers leave saving to the app: the files at -o are the result, and
/// they stay there either way (the library gets a copy). gpick links no SQLite, so the import
/// runs `gpick-library library import`, as `gpick library import` would.
struct LibrarySaveOptions: ParsableArguments {
    @Flag(name: .customLong("save-to-library"), help: ArgumentHelp(
        "Also copy what is captured into the media library, in ROOT/YYYY/MM/ by the date taken (movies in the Videos folder), indexed at once. The files at -o stay; one already in the library is not copied again."))
    var enabled = false

    @Option(name: .customLong("library"), help: ArgumentHelp(
        "With --save-to-library: a folder of the library (repeatable; files go into the first). Default: $GPICK_LIBRARY, else the Pictures and Videos folders of ~/.config/user-dirs.dirs.",
        valueName: "DIR"))
    var folders: [String] = []

    func validate() throws {
        for f in folders where f.isEmpty { throw ValidationError("--library: the folder is empty") }
        if !folders.isEmpty && !enabled { throw ValidationError("--library is for --save-to-library: add it, or leave --library out") }
    }

    /// Imports `files`, which this command has completely written, when asked to; reports where
    /// each landed. A failed import has had its line (from the import itself): this throws its
    /// exit status. The captured files are never touched.
    func save(_ files: [String], events: Events) async throws {
        guard enabled, !files.isEmpty else { return }
        let tool = PickHalf.helperPath("gpick-library")
        // --json always: its events are read here and reported as this command's own.
        var arguments = ["library", "import", "--json"]
        for f in folders { arguments += ["--library", f] }
        arguments += ["--"] + files
        let argv = arguments
        let end = try await OffPool.run { () throws(GpickError) -> ChildProcess.End in
            try ChildProcess.run(tool, argv, cannotStart: { PickHalf.cannotRun(tool, $0) }) { line in
                Self.report(line, events)
            }
        }
        switch end {
        case .exited(0): return
        case .exited(let status): throw ExitCode(status)
        case .signalled(let sig):
            let kind: GpickError.Kind = sig == SIGINT || sig == SIGTERM ? .interrupted : .runtime
            throw GpickError(kind, "saving to the library was stopped by signal \(sig); the captured files are kept")
        }
    }

    /// One event line of the import, as this command reports it: `saved` (the library's path,
    /// and `duplicate` when the content was there already) or `error`; the rest is the import's
    /// own business (its start, progress and summary).
    static func report(_ line: String, _ events: Events) {
        guard case .object(var fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)),
              case .string(let event)? = fields["event"] else {
            Console.writeError(line + "\n")  // not an event: shown as it is, never lost
            return
        }
        for key in ["event", "command", "t"] { fields[key] = nil }
        let path: String = if case .string(let p)? = fields["path"] { p } else { "" }
        switch event {
        case "imported":
            fields["moved"] = nil
            fields["duplicate"] = .bool(false)
            if events.json { events.emit("saved", fields) } else { print(path) }
        case "duplicate":
            // Not an error: the library has this content already, here.
            fields["duplicate"] = .bool(true)
            if events.json { events.emit("saved", fields) } else { Console.notice("already in the library: \(path)") }
        case "error":
            // Its line is on stderr already (the import's own): the event is for --json.
            events.emit("error", fields)
        default:
            break
        }
    }
}
