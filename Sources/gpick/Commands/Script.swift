import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit
import GpickScript
import GstCore

/// Options shared by `script` and `session`.
struct ScriptOptions: ParsableArguments {
    @Option(name: .customLong("output-dir"), help: "Directory every file a script names is written to (and read from by expect).")
    var outputDir: String = "."

    @Flag(name: .customLong("keep-going"), help: "Go on after a failing command (the exit status still reports it).")
    var keepGoing = false

    @Option(name: .long, parsing: .unconditional, help: "JPEG quality 1…100 for snap and burst.")
    var quality: Int?

    @Option(name: .long, help: "photo, or live: keep a live-photo pre-roll armed from the start, so every `live` shot has its before part.")
    var mode = "photo"

    @Option(name: .customLong("preview-port"), parsing: .unconditional, help: "Port on 127.0.0.1 for `preview start http` (0: any free port).")
    var previewPort = 8080

    @Option(name: .customLong("rtsp-port"), parsing: .unconditional, help: "RTSP port on 127.0.0.1 for `serve start` (0: any free port).")
    var rtspPort = 8554

    func validate() throws {
        guard (0...65535).contains(previewPort) else { throw ValidationError("--preview-port \(previewPort) must be 0…65535") }
        guard (0...65535).contains(rtspPort) else { throw ValidationError("--rtsp-port \(rtspPort) must be 0…65535") }
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality \(quality) must be 1…100") }
        guard ["photo", "live"].contains(mode) else { throw ValidationError("unknown --mode \"\(mode)\" (use photo or live)") }
    }

    func runnerOptions(_ capture: SourceOptions, _ pipelines: PipelineOptions) throws(GpickError) -> ScriptRunner.Options {
        guard isDirectory(outputDir) == true else {
            throw GpickError(.output, "output directory does not exist: \(outputDir)")
        }
        var o = ScriptRunner.Options(configuration: try capture.configuration(library: pipelines.library),
                                     outputDirectory: URL(fileURLWithPath: outputDir).standardized.path)
        o.keepGoing = keepGoing
        o.jpegQuality = quality
        o.liveMode = mode == "live"
        o.previewPort = previewPort
        o.rtspPort = rtspPort
        return o
    }
}

/// Prints script events: JSON lines, or paths/echo/countdown for people, errors on stderr.
func scriptPrinter(_ events: Events) -> ScriptRunner.Emit {
    { name, fields in
        var f: JSONFields = [:]
        for (k, v) in fields { f[k] = v }
        // A failing statement's typed reason: its remedy, worded in this CLI's flags.
        if let reason = f["reason"] as? GpickError {
            f.removeValue(forKey: "reason")
            if let line = fields["line"] as? Int { f["message"] = "line \(line): \(reason.line)" }
        }
        if events.json {
            events.emit(name, f)
            if name == "error", let m = f["message"] as? String { Console.error(m) }
            return
        }
        switch name {
        case "capture-data-delivered", "file-written": if let p = fields["path"] as? String { print(p) }
        case "echo": print(fields["text"] as? String ?? "")
        case "preview-started": if let u = fields["url"] as? String { print(u) }
        case "countdown": print(fields["remaining"].map { "\($0)" } ?? "")
        case "error": Console.error(f["message"] as? String ?? "failed")
        case "notice": Console.notice(fields["message"] as? String ?? "")
        case "interrupted": if let line = fields["line"] as? Int { Console.notice("stopped at line \(line)") }
        case "warning": if Console.verbose { Console.notice("warning: \(fields["message"] as? String ?? "")") }
        default: break
        }
    }
}

struct Script: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "script",
        abstract: "Run a capture script: snaps, bursts, recordings, waits and checks on one running session.",
        discussion: "The whole file is checked first: a syntax error is reported as FILE:LINE:COLUMN and nothing runs.")

    @Argument(help: "The script file.")
    var file: String

    @OptionGroup var script: ScriptOptions
    @OptionGroup var capture: SourceOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func run() async throws {
        let events = Events(json: out.json, command: "script")
        try await reporting(events) {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw GpickError(.input, "cannot read script \(file)")
            }
            let statements: [ScriptStatement]
            do { statements = try ScriptParser.parse(text) } catch let error as ScriptSyntaxError {
                throw GpickError(.input, "\(file):\(error.line):\(error.column): \(error.message)")
            }
            let emit = scriptPrinter(events)
            let runner = ScriptRunner(try script.runnerOptions(capture, pipelines), emit: emit)
            events.started(["file": file, "statements": statements.count])
            let ok = await runInterruptibly(runner, emit: emit) { await runner.run(statements) }
            events.finished(["ok": ok, "failures": await runner.failures])
            if !ok { throw ExitCode(await Self.exitCode(runner)) }
        }
    }
}

extension Script {
    /// A failed run exits 1; one that failed for want of a camera or a plugin exits as the
    /// one-shot commands do then (69), so that `gpick session` on a machine with no camera says so.
    static func exitCode(_ runner: ScriptRunner) async -> Int32 {
        switch await runner.firstFailureKind {
        case .device?, .plugin?: 69
        default: 1
        }
    }
}

struct Session: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Keep a capture session running and take script commands from stdin, one per line.",
        discussion: """
        Typed at a terminal, a command that fails is reported and the session goes on, as in \
        sqlite3 or psql (the exit status still reports it); from a pipe or a file the first failure \
        ends it, unless --keep-going.

        Example: printf 'snap a.jpg\\nwait 0.5s\\nsnap b.jpg\\n' | gpick session --source test
        """)

    @OptionGroup var script: ScriptOptions
    @OptionGroup var capture: SourceOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func run() async throws {
        let events = Events(json: out.json, command: "session")
        try await reporting(events) {
            let emit = scriptPrinter(events)
            // A person typing gets the next prompt after a mistake, not the end of the session.
            var options = try script.runnerOptions(capture, pipelines)
            options.keepGoing = options.keepGoing || isatty(STDIN_FILENO) == 1
            let runner = ScriptRunner(options, emit: emit)
            events.started([:])
            let keepGoing = options.keepGoing
            let ok = await runInterruptibly(runner, emit: emit) {
                var lineNumber = 0
                var syntaxFailures = 0
                // An `on motion` block runs once its `end` has come.
                var blocks = ScriptBlocks()
                func syntax(_ error: ScriptSyntaxError) {
                    syntaxFailures += 1
                    emit("error", ["line": error.line, "column": error.column, "message": "\(error.line):\(error.column): \(error.message)"])
                }
                for await line in StdinLines.stream() {
                    lineNumber += 1
                    do {
                        guard let parsed = try ScriptParser.parseLine(line, lineNumber: lineNumber),
                              let s = try blocks.feed(parsed) else { continue }
                        if !(await runner.execute(s)) && !keepGoing { return false }
                    } catch let error as ScriptSyntaxError {
                        syntax(error)
                        if !keepGoing { return false }
                    } catch {
                        return false
                    }
                }
                do { try blocks.finish() } catch let error as ScriptSyntaxError { syntax(error) } catch {}
                return await runner.failures == 0 && syntaxFailures == 0
            }
            events.finished(["ok": ok])
            if !ok { throw ExitCode(await Script.exitCode(runner)) }
        }
    }
}

/// Prepares the runner (live mode starts the session at once), then runs the body; SIGINT/SIGTERM
/// cancel it. Either way, recordings are finalised before returning.
func runInterruptibly(_ runner: ScriptRunner, emit: @escaping ScriptRunner.Emit,
                      _ body: @escaping @Sendable () async -> Bool) async -> Bool {
    let stopper = SignalStopper()
    let task = Task { () async -> Bool in
        do { try await runner.prepare() } catch {
            emit("error", ["message": (error as? GpickError)?.line ?? "\(error)"])
            return false
        }
        return await body()
    }
    stopper.onSignal { _ in task.cancel() }
    let ok = await task.value
    await runner.finish(interrupted: stopper.signalled > 0)
    // Stopped by a signal, as `record` is: a success unless a line failed before it.
    if stopper.signalled > 0 { return await runner.failures == 0 }
    return ok
}

/// Lines of stdin, read on a thread of their own (never blocking the cooperative pool).
enum StdinLines {
    static func stream() -> AsyncStream<String> {
        AsyncStream { cont in
            detachThread {
                while let line = readLine(strippingNewline: true) { cont.yield(line) }
                cont.finish()
            }
        }
    }
}
