import GpickCLI
import GpickFormats
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

/// The pick half's commands run in `gpick-library`, installed beside gpick, as git and cargo run
/// their subcommands: gpick itself links neither SQLite nor libvips, so `gpick snap` starts as
/// fast as before. These types only put the commands in gpick's help; `main` hands them over
/// before parsing anything.
enum PickHalf {
    static let commands: Set<String> = ["library", "thumb", "pick", "avatar"]

    /// Whether `gpick inspect …` (`arguments`, the command first) names one photo and only
    /// what gpick-library's inspect takes too (`InspectHandOver`): `main` then hands it over
    /// before parsing. Otherwise gpick parses it, and `Inspect.run` hands a photo over then.
    static func inspectsOnePhoto(_ arguments: [String]) -> Bool {
        InspectHandOver.file(arguments).map(MetadataReader.looksLikeStill(path:)) ?? false
    }

    /// The executable beside gpick that runs `command`.
    static func helper(for command: String?) -> String { command == "avatar" ? "gpick-avatar" : "gpick-library" }

    /// Replaces this process with `gpick-library ARGS…` (`gpick-avatar` for avatars); returns
    /// only if it cannot.
    static func exec(_ arguments: [String]) -> GpickError {
        let tool = helperPath(helper(for: arguments.first))
        var argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) }
        argv.append(nil)
        // The helper gets the user's stderr, not the /dev/null that keeps gpick's libraries quiet.
        if Console.errorDescriptor != 2 { dup2(Console.errorDescriptor, 2) }
        // And the signals a shell gives a program: inspect hands over from its async `run`, on
        // a pool thread that blocks SIGINT, and execv would keep that.
        let code = ShellSignals.exec { execv(tool, argv) }
        return cannotRun(tool, code)
    }

    /// Why `tool` could not be started (execv's or posix_spawn's errno), in one line.
    static func cannotRun(_ tool: String, _ code: Int32) -> GpickError {
        code == ENOENT
            ? GpickError(.plugin, "\(tool.split(separator: "/").last.map(String.init) ?? tool) is not installed beside gpick (\(tool)); `make install` installs it")
            : GpickError(.runtime, "cannot run \(tool): \(String(cString: strerror(code)))")
    }

    /// `name` in the folder of this executable (a build folder), or where an install puts it:
    /// PREFIX/libexec/gpick beside PREFIX/bin, off the PATH, as git keeps its own in
    /// libexec/git-core. Found through /proc, so a symlink to gpick still finds its own helper;
    /// when neither is there, the path beside gpick (what the error names).
    static func helperPath(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return name }
        let exe = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let folder = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let beside = folder + "/" + name
        let installed = folder + "/../libexec/gpick/" + name
        return access(beside, X_OK) != 0 && access(installed, X_OK) == 0 ? installed : beside
    }
}

struct LibraryHandOff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "The media library: scan, list, import and draw contact sheets of the photos and videos in your Pictures and Videos folders."
    )
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
    func run() throws { throw PickHalf.exec(["library"] + arguments) }
}

struct ThumbHandOff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Make a thumbnail (PNG, JPEG or WebP) of a photo or video: a file, a URL, asset:ID of the library, or a camera's frame."
    )
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
    func run() throws { throw PickHalf.exec(["thumb"] + arguments) }
}

struct PickHandOff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pick",
        abstract: "Pick photos and videos from the library, or take one with the live camera cell; prints the chosen paths."
    )
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
    func run() throws { throw PickHalf.exec(["pick"] + arguments) }
}

struct AvatarHandOff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avatar",
        abstract: "Make a profile image from a colour, a gradient, a photo or the camera, with initials that stay readable; `avatar edit` opens an editor."
    )
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
    func run() throws { throw PickHalf.exec(["avatar"] + arguments) }
}
