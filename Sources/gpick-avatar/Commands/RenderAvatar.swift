import ArgumentParser
import Foundation
import GpickAvatar
import GpickBase
import GpickCLI
import GpickImages
import GpickKit
import GpickLibrary
import GpickPicker
import GpickPickCLI
import Glibc

/// `gpick avatar -o FILE [options]`: one profile image, written atomically; with
/// `--save-model`, its model beside it.
struct RenderAvatar: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a profile image (the default command of `gpick avatar`).",
        discussion: """
            The background is a colour, a vertical gradient or an image cut to a square; without one, a gradient \
            picked by the text, so a name always gets the same colours. The text shrinks to fit inside the square \
            inscribed in the shape; its colour, unless given, is black or white, whichever has the higher WCAG \
            contrast over the pixels under it, with a soft scrim under it when neither reaches 4.5:1. The output's \
            format follows its extension: .png, .jpg, .jpeg or .webp. The same model always gives the same bytes.
            """
    )

    @Option(name: .shortAndLong, help: ArgumentHelp("The image to write: a .png, .jpg, .jpeg or .webp file.", valueName: "FILE"))
    var output: String

    @OptionGroup var avatar: AvatarOptions

    @Option(name: .long, help: ArgumentHelp("Start from this model (JSON, as --save-model writes it); options given override it.", valueName: "FILE.json"))
    var model: String?

    @Option(name: .customLong("save-model"), help: ArgumentHelp("Write the model too, to render the same image again or edit it.", valueName: "FILE.json"))
    var saveModel: String?

    @Flag(name: .long, help: "Print one JSON object per event on stdout.")
    var json = false

    func validate() throws {
        try AvatarOptions.checkOutput(output)
        if let saveModel, saveModel.isEmpty { throw ValidationError("--save-model: the file name is empty") }
    }

    func run() async throws {
        let events = Events(json: json, command: "avatar")
        try await reporting(events) {
            let made = try await AvatarJob(options: avatar, modelPath: model, modelOutput: saveModel).make(events: events)
            try await made.write(to: output, modelTo: saveModel, events: events)
            events.finished(["files": saveModel == nil ? 1 : 2])
        }
    }
}

/// One avatar from the command line: the model (from a file, then the options), its image
/// loaded (a file, a URL, an asset, a camera's photo), rendered.
struct AvatarJob {
    var options: AvatarOptions
    var modelPath: String?
    /// Where the model will be saved: a camera's photo is kept beside it, for the model to name.
    var modelOutput: String?

    struct Made {
        var model: ProfileImage
        var avatar: RenderedAvatar
        /// A camera's photo written beside the model, removed if the rest cannot be written.
        var photo: OutputPath?

        /// The image, then the photo and the model, each atomically; the output is checked first.
        func write(to output: String, modelTo modelOutput: String?, events: Events) async throws(GpickError) {
            do {
                try await writeFiles(to: output, modelTo: modelOutput, events: events)
            } catch {
                if let photo { unlink(photo.path) }
                throw error
            }
        }

        private func writeFiles(to output: String, modelTo modelOutput: String?, events: Events) async throws(GpickError) {
            let target = try OutputPath(output)
            let modelTarget = try modelOutput.map { p throws(GpickError) in try OutputPath(p) }
            guard let format = RenderedAvatar.Format(fileExtension: target.pathExtension) else {
                throw GpickError(.usage, "cannot tell the format of \(output) from its name: end it in .png, .jpg, .jpeg or .webp")
            }
            let avatar = self.avatar
            let bytes = try await OffPool.run { () throws(GpickError) in try avatar.encoded(as: format) }
            let model = self.model
            try await AtomicWrite.store(bytes, to: target)
            var extra: JSONFields = ["width": avatar.size, "height": avatar.size, "format": format.rawValue, "text": model.shownText]
            if let c = avatar.textColor { extra["text-color"] = c.description }
            events.fileWritten(target.path, bytes: Int64(bytes.count), extra: extra)
            if let modelTarget {
                let json = model.json()
                try await AtomicWrite.store(json, to: modelTarget)
                events.fileWritten(modelTarget.path, bytes: Int64(json.count), extra: ["kind": "model"])
            }
        }
    }

    func make(events: Events) async throws(GpickError) -> Made {
        var model = ProfileImage()
        if let modelPath {
            let bytes = try await OffPool.run { () throws(GpickError) in try FileImageSource.readWhole(modelPath, limit: 1 << 20) }
            model = try ProfileImage.decode(bytes, path: modelPath)
        }
        model = try options.applied(to: model)
        try model.validate()
        let environment = ProcessInfo.processInfo.environment
        let thumbnails = ThumbnailCache(version: GpickVersion.current)
        let images = AvatarImages(indexPath: LibraryPaths.indexPath(environment: environment), thumbnails: thumbnails)
        let renderer = AvatarRenderer(images: images)
        guard let given = options.image else {
            return Made(model: model, avatar: try await renderer.render(model), photo: nil)
        }
        let argument: ImageSourceArgument
        do { argument = try ImageSourceArgument(given) } catch { throw GpickError(.usage, error.message) }
        let focus = options.focus.flatMap(FocusPoint.init(parsing:)) ?? .centre
        if case .camera(let spec) = argument {
            try await Self.checkCamera(spec, given: "--image \(given)")
            let side = model.size, keep = modelOutput != nil
            let (picture, photo) = try await argument.withSource(environment: environment, thumbnails: thumbnails) { camera throws(GpickError) in
                keep ? (nil, try await camera.fullResolutionData()) : (try await AvatarPicture.covering(side, from: camera), [])
            }
            guard let modelOutput else {
                model.setImage(ImageReference(path: "camera", focus: focus))
                return Made(model: model, avatar: try await renderer.render(model, picture: picture), photo: nil)
            }
            // The photo goes beside the model, and the avatar is drawn from that file, as a
            // render from the model will be: the same bytes both times.
            let modelTarget = try OutputPath(modelOutput)
            let photoTarget = modelTarget.sibling(AvatarEditor.stem(modelTarget.name) + "-photo.jpg")
            try await AtomicWrite.store(photo, to: photoTarget)
            events.fileWritten(photoTarget.path, bytes: Int64(photo.count), extra: ["kind": "photo"])
            do {
                let source = FileImageSource(path: photoTarget.path, thumbnails: thumbnails)
                model.setImage(ImageReference(path: photoTarget.path, sha256: ContentHash.sha256(bytes: photo), focus: focus))
                let drawn = try await renderer.render(model, picture: try await AvatarPicture.covering(side, from: source))
                return Made(model: model, avatar: drawn, photo: photoTarget)
            } catch {
                unlink(photoTarget.path)
                throw error
            }
        }
        let (reference, source) = try await Self.reference(argument, focus: focus, images: images)
        model.setImage(reference)
        let picture = try await AvatarPicture.covering(model.size, from: source)
        return Made(model: model, avatar: try await renderer.render(model, picture: picture), photo: nil)
    }

    /// A file, URL or asset as the model names it, with the SHA-256 of its bytes now (a saved
    /// model refuses them once they change), and the source to draw it from.
    static func reference(_ argument: ImageSourceArgument, focus: FocusPoint, images: AvatarImages) async throws(GpickError)
        -> (ImageReference, any ImageSource) {
        var reference: ImageReference
        switch argument {
        case .file(let path): reference = ImageReference(path: absolute(path), focus: focus)
        case .url(let url): reference = ImageReference(url: url, focus: focus)
        case .asset(let id): reference = ImageReference(asset: id, focus: focus)
        case .camera: throw GpickError(.usage, "a camera's photo is taken, not named")
        }
        let (source, hash) = try await images.source(for: reference)
        reference.sha256 = hash
        if let asset = source as? AssetImageSource { reference.path = asset.asset.path }
        return (reference, source)
    }

    /// One line naming why the camera cannot be opened, before any session starts.
    static func checkCamera(_ spec: String, given: String) async throws(GpickError) {
        let source = try SourceSpec.parse(spec)
        if let why = await Picker.cameraUnavailable(source) {
            throw GpickError(.device, "\(given): no camera can be opened: \(why.message)", remedy: why.remedy)
        }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
