import GpickCLI
import ArgumentParser
import CGpickStartup
import FoundationEssentials
import Glibc
import GpickKit
import GstCore

@main
struct Gpick: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpick",
        abstract: "Camera capture for Linux: stills, bursts, recordings and more, from a camera or the test source.",
        version: GpickVersion.current,
        subcommands: [PreviewCommand.self, Snap.self, Record.self, Live.self, Serve.self, Publish.self, Script.self, Session.self, Run.self, Inspect.self, Devices.self, Doctor.self, Pipelines.self, Recordings.self, Watch.self, TimelapseCommand.self, LibraryHandOff.self, ThumbHandOff.self, PickHandOff.self, AvatarHandOff.self]
    )

    /// Errors print as one line on stderr (no usage dump), with a non-zero exit.
    static func main() async {
        // The pick half runs in gpick-library, and so does a photo's inspect: hand over before
        // anything else starts.
        let arguments = CommandLine.arguments
        if arguments.count > 1, PickHalf.commands.contains(arguments[1]) || PickHalf.inspectsOnePhoto(Array(arguments.dropFirst())) {
            let e = PickHalf.exec(Array(arguments.dropFirst()))
            Console.error(e)
            Glibc.exit(e.exitCode)
        }
        // Loading the plugin registry takes tens of ms: CGpickStartup began it as the executable
        // loaded, alongside the runtime's start, argument parsing and pipeline files (later
        // callers of Gst.initialize wait for it). Without that thread, start it here.
        if gpick_startup_init_started() == 0 { detachThread { _ = try? Gst.initialize() } }
        // Library text was kept off stderr as gpick loaded (CGpickStartup), unless asked for.
        // GPICK_VERBOSE=1 is --verbose for every command.
        Console.verboseFromEnvironment()
        // Events and printed paths are read line by line by scripts and pipes: never hold a line back.
        Console.lineBufferStandardOutput()
        await CommandMain.run(Gpick.self, finish: Gst.deinitializeForLeakReport) { Console.leave($0) }
    }
}
