import Foundation
import GpickBase
import GpickImages
import GpickLibrary
import Glibc

extension AvatarEditor {
    /// Saves what the page shows: an uploaded or camera image beside the avatar (its model names
    /// it), then the avatar and the model, each atomically. The avatar is drawn from the saved
    /// files, as `gpick avatar --model` draws it later: the same bytes. On failure nothing new stays.
    func save(_ pageModel: [UInt8]) async throws(GpickError) -> (image: String, model: String, photo: String?) {
        var (model, imageID) = try model(fromPage: pageModel)
        let c = configuration
        var photo: OutputPath?
        if let imageID {
            let image = try await image(imageID)
            let focus = model.image?.focus ?? .centre
            switch image.origin {
            case .reference(var reference):
                reference.focus = focus
                if reference.sha256 == nil { reference.sha256 = try await c.images.source(for: reference).sha256 }
                model.image = reference
            case .bytes(let bytes, let ext):
                let target = c.output.sibling(Self.stem(c.output.name) + "-photo." + ext)
                try await AtomicWrite.store(bytes, to: target)
                photo = target
                model.image = ImageReference(path: target.path, sha256: ContentHash.sha256(bytes: bytes), focus: focus)
            }
        }
        do throws(GpickError) {
            guard let format = RenderedAvatar.Format(fileExtension: c.output.pathExtension) else {
                throw GpickError(.usage, "cannot tell the format of \(c.output.path) from its name: end it in .png, .jpg, .jpeg or .webp")
            }
            let avatar = try await AvatarRenderer(images: c.images).render(model)
            let bytes = try await OffPool.run { () throws(GpickError) in try avatar.encoded(as: format) }
            try await AtomicWrite.store(bytes, to: c.output)
            try await AtomicWrite.store(model.json(), to: c.modelOutput)
        } catch {
            if let photo { unlink(photo.path) }
            throw error
        }
        return (c.output.path, c.modelOutput.path, photo?.path)
    }

    /// "me" of "me.png".
    public static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
