import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickPickCLI
import Glibc

/// `gpick library …` and `gpick thumb …`: gpick runs this executable for them (as git and cargo
/// run theirs), so that gpick itself stays free of SQLite and libvips and starts as fast as before.
@main
struct GpickLibraryTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpick",
        abstract: "The pick half of gpick: the media library, thumbnails and the picker.",
        version: GpickVersion.current,
        subcommands: [LibraryCommand.self, ThumbCommand.self, PickCommand.self, InspectCommand.self]
    )

    static func main() async { await HelperMain.run(Self.self) }
}

struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Index the photos and videos in your Pictures and Videos folders; list them, or draw a contact sheet of them.",
        subcommands: [ScanCommand.self, ListCommand.self, SheetCommand.self, ImportCommand.self, WatchCommand.self, ThumbsCommand.self]
    )
}
