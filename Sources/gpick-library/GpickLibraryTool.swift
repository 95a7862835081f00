import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import Glibc

/// `gpick library …` and `gpick thumb …`: gpick runs this executable for them (as git and cargo
/// run theirs), so that gpick itself stays free of SQLite and libvips and starts as fast as before.
@main
struct GpickLibraryTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpick",
        abstract: "The pick half of gpick: the media library, thumbnails and the picker.",
        version: GpickVersion.current,
        subcommands: [LibraryCommand.self, ThumbCommand.self, PickCommand.self]
    )

    static func main() async {
        Console.lineBufferStandardOutput()
        do {
            var command = try parseAsRoot()
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
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }  // --help, --version
            let message = Self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            Console.error(message.replacingOccurrences(of: "Error: ", with: ""))
            Console.leave(code == .validationFailure ? 64 : code.rawValue)
        }
    }
}

struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Index the photos and videos in your Pictures and Videos folders; list them, or draw a contact sheet of them.",
        subcommands: [ScanCommand.self, ListCommand.self, SheetCommand.self, ImportCommand.self, WatchCommand.self, ThumbsCommand.self]
    )
}
