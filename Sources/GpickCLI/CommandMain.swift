import ArgumentParser
import FoundationEssentials
import GpickBase

/// The one way a command ends, for gpick and for the executables it hands commands to: a
/// GpickError is its one line and its exit code; an ExitCode is kept; ArgumentParser's own errors
/// are their first line, with a usage error's code; --help and --version print and exit 0.
package enum CommandMain {
    /// Parses and runs `root`'s command, then `finish` (release what the process holds) and
    /// `leave` with the exit status.
    package static func run<Root: ParsableCommand>(_ root: Root.Type, arguments: [String]? = nil, finish: @Sendable () -> Void = {},
                                                   leave: @Sendable (Int32) -> Never) async -> Never {
        do {
            var command = try root.parseAsRoot(arguments)
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
            finish()
            leave(0)
        } catch let e as GpickError {
            Console.error(e)
            finish()  // failure paths must release everything too
            leave(e.exitCode)
        } catch let code as ExitCode {
            leave(code.rawValue)
        } catch {
            let code = root.exitCode(for: error)
            if code == .success { root.exit(withError: error) }  // --help, --version
            let message = root.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            Console.error(message.replacing("Error: ", with: ""))
            leave(code == .validationFailure ? GpickError.Kind.usage.exitCode : code.rawValue)
        }
    }
}
