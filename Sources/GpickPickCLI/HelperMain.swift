import ArgumentParser
import Foundation
import GpickBase
import GpickCLI
import CGpickBase

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
        // Thumbnails, pictures and frames are decoded into large buffers, one after another: each
        // goes back to the system when freed, so a batch peaks at what is decoded at once rather
        // than at what the heap kept of earlier ones (77 → 69 MiB over the bench's real files).
        _ = cgpick_return_large_blocks(256 << 10)
        await CommandMain.run(root, arguments: verboseTaken(root)) { Console.leave($0) }
    }

    /// `--verbose` (before any `--`) means what it means for gpick's own commands on every
    /// command of these executables: libraries' text reaches stderr. A command with a
    /// `--verbose` of its own (`inspect`) keeps it; the others never see it.
    static func verboseTaken<Root: ParsableCommand>(_ root: Root.Type) -> [String] {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let at = arguments.prefix(while: { $0 != "--" }).firstIndex(of: "--verbose") else { return arguments }
        Console.beVerbose()
        if (try? root.parseAsRoot(arguments)) == nil { arguments.remove(at: at) }
        return arguments
    }
}
