import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickPickCLI
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

    static func main() async { await HelperMain.run(Self.self) }
}

struct AvatarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avatar",
        abstract: "Make a profile image: a colour, a gradient, a photo or the camera, with initials that stay readable.",
        subcommands: [RenderAvatar.self, EditAvatar.self],
        defaultSubcommand: RenderAvatar.self
    )
}
