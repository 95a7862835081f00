import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import Glibc

/// `gpick avatar …`: gpick runs this executable for it (as it runs gpick-library for the
/// library), so that cairo and Pango load only for avatars.
@main
struct GpickAvatarTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpick",
        abstract: "Profile images for gpick.",
        version: GpickVersion.current,
        subcommands: [AvatarCommand.self]
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

struct AvatarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avatar",
        abstract: "Make a profile image: a colour, a gradient, a photo or the camera, with initials that stay readable.",
        subcommands: [RenderAvatar.self, EditAvatar.self],
        defaultSubcommand: RenderAvatar.self
    )
}
