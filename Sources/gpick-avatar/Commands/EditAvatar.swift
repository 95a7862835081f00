import ArgumentParser
import Foundation
import GpickAvatar
import GpickBase
import GpickCLI
import GpickImages
import GpickKit
import GpickLibrary
import GpickPickCLI
import GpickPicker

/// `gpick avatar edit -o FILE`: the editor page; ✕ saves FILE and its model and prints FILE's
/// path, Cancel (or closing the page) exits 130 and writes nothing.
struct EditAvatar: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit a profile image in the browser, with an instant preview; ✕ saves it and its model.",
        discussion: """
            The page is served on 127.0.0.1 only and needs the token in its printed URL. It offers colours, a \
            gradient, text, the shape, and an image from the camera, the library, a file, a drop or the clipboard. \
            ✕ writes FILE and the model (to --model's file, else FILE's name with .json) atomically, and prints \
            FILE's path. Cancel, or closing the page, exits 130 and writes nothing.
            """
    )

    @Option(name: .shortAndLong, help: ArgumentHelp("The image to write: a .png, .jpg, .jpeg or .webp file.", valueName: "FILE"))
    var output: String

    @Option(name: .long, help: ArgumentHelp("The model to start from and save to (JSON); default FILE's name with .json, started afresh.", valueName: "FILE.json"))
    var model: String?

    @OptionGroup var avatar: AvatarOptions

    @Option(name: .long, help: "The camera for the page's Camera button: auto, test, v4l2:/dev/videoN, pipewire[:NAME], libcamera[:NAME].")
    var source = "auto"

    @Option(name: .long, parsing: .unconditional, help: "Port on 127.0.0.1 for the page (0: any free port).")
    var port = 0

    @Flag(name: .customLong("no-open"), help: "Do not open the page in a browser; only print its URL.")
    var noOpen = false

    @Flag(name: .long, help: "Print one JSON object per event on stdout.")
    var json = false

    func validate() throws {
        try AvatarOptions.checkOutput(output)
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) is out of range (0-65535)") }
        do { _ = try SourceSpec.parse(source) } catch { throw ValidationError("--source: " + error.message) }
        if let image = avatar.image, image == "camera" || image.hasPrefix("camera:") {
            throw ValidationError("--image \(image): in the editor, take the photo with its Camera button")
        }
    }

    func run() async throws {
        let events = Events(json: json, command: "avatar-edit")
        let target = try OutputPath(output)
        let modelTarget = try OutputPath(model ?? target.sibling(AvatarEditor.stem(target.name) + ".json").path)
        var start = ProfileImage()
        if let model, fileStatus(model) != nil {
            let bytes = try await OffPool.run { () throws(GpickError) in try FileImageSource.readWhole(model, limit: 1 << 20) }
            start = try ProfileImage.decode(bytes, path: model)
        }
        start = try avatar.applied(to: start)
        let environment = ProcessInfo.processInfo.environment
        let indexPath = LibraryPaths.indexPath(environment: environment)
        let images = AvatarImages(indexPath: indexPath, thumbnails: ThumbnailCache(version: GpickVersion.current))
        if let given = avatar.image {
            let argument: ImageSourceArgument
            do { argument = try ImageSourceArgument(given) } catch { throw GpickError(.usage, error.message) }
            let focus = avatar.focus.flatMap(FocusPoint.init(parsing:)) ?? .centre
            start.setImage(try await AvatarJob.reference(argument, focus: focus, images: images).0)
        }
        let spec = source
        let takePhoto: @Sendable () async throws(GpickError) -> [UInt8] = { () async throws(GpickError) in
            try await AvatarJob.checkCamera(spec, given: "The camera (\(spec))")
            return try await ImageSourceArgument.camera(spec).withSource(environment: environment, thumbnails: images.thumbnails) { camera throws(GpickError) in
                try await camera.fullResolutionData()
            }
        }
        var configuration = AvatarEditor.Configuration(start: start, output: target, modelOutput: modelTarget, images: images,
                                                       indexPath: indexPath, takePhoto: takePhoto)
        configuration.noIndexAdvice = "The library has no index yet: run `gpick library scan` to index your photos."
        if let why = await Picker.cameraUnavailable(try SourceSpec.parse(spec)) {
            configuration.cameraUnavailable = "No camera can be opened: " + why.line
        }
        let editor = try AvatarEditor(configuration)
        let open = !noOpen && Browser.hasDisplay
        let signals = WatchSignals { _ in editor.cancel() }
        var outcome: AvatarEditor.Event = .cancelled
        for await event in editor.run(port: port) {
            switch event {
            case .ready(let url):
                Console.notice("avatar: \(url)")
                events.emit("ready", ["url": url])
                if open { Browser.open(url) }
            default:
                outcome = event
            }
        }
        withExtendedLifetime(signals) {}
        switch outcome {
        case .saved(let image, let model, let photo):
            // Like a picker's answer, the one path on stdout; JSON tells every file.
            if json {
                if let photo { events.fileWritten(photo, bytes: fileSize(photo), extra: ["kind": "photo"]) }
                events.fileWritten(model, bytes: fileSize(model), extra: ["kind": "model"])
                events.fileWritten(image, bytes: fileSize(image), extra: ["kind": "avatar"])
            } else {
                print(image)
            }
        case .failed(let error):
            throw error
        default:
            throw ExitCode(130)
        }
    }

    func fileSize(_ path: String) -> Int64 { fileStatus(path).map { Int64($0.st_size) } ?? 0 }
}
