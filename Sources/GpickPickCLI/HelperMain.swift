import ArgumentParser
import Foundation
import GpickBase
import GpickCLI

/// The `main` of the executables gpick hands commands to (gpick-library, gpick-avatar): one
/// error line on stderr, the exit codes gpick uses, and an exit without destructors
/// (`Console.leave`) once everything is printed.
package enum HelperMain {
    package static func run<Root: AsyncParsableCommand>(_ root: Root.Type) async -> Never {
        // Run directly (not through gpick), libcamera would log its own lines when the picker or
        // an avatar looks for a camera; a user's own LIBCAMERA_LOG_LEVELS wins.
        setenv("LIBCAMERA_LOG_LEVELS", "*:FATAL", 0)
        // GLib, GStreamer and decoders (libpng, libjpeg, libheif, libtiff) print on their own;
        // gpick says what matters. Verbosity comes from gpick as GPICK_VERBOSE, or from --verbose.
        Console.keepLibraryTextOffStderr()
        Console.verboseFromEnvironment()
        Console.lineBufferStandardOutput()
        do {
            var command = try root.parseAsRoot()
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
            Console.leave(0)
        } catch let e as GpickError {
            Console.error(e)
            Console.leave(e.exitCode)
        } catch let code as ExitCode {
            Console.leave(code.rawValue)
        } catch {
            let code = root.exitCode(for: error)
            if code == .success { root.exit(withError: error) }  // --help, --version
            let message = root.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            Console.error(message.replacingOccurrences(of: "Error: ", with: ""))
            Console.leave(code == .validationFailure ? 64 : code.rawValue)
        }
    }
}
