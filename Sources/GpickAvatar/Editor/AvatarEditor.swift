import GpickWeb
import Foundation
import GpickBase
import GpickImages
import GpickLibrary

/// The avatar editor (`gpick avatar edit`): a page on gpick's web server (127.0.0.1, a token,
/// the Host checked) with an instant preview, colours, text, shape and an image from the camera,
/// the library, a file, a drop or the clipboard. ✕ saves the image and its model atomically;
/// cancelling, or closing the page, writes nothing.
public final class AvatarEditor: Sendable {
    public struct Configuration: Sendable {
        /// The model the page starts from (its image, if any, is offered as "m0").
        public var start: ProfileImage
        public var output: OutputPath
        public var modelOutput: OutputPath
        public var images: AvatarImages
        /// The library's index, for the page's library grid (nil: no library).
        public var indexPath: String?
        /// Takes a camera photo (JPEG bytes), or says why none can be taken; nil: no camera button.
        public var takePhoto: (@Sendable () async throws(GpickError) -> [UInt8])?
        /// Why no camera can be opened now (no camera at all, access denied): the Camera button is
        /// shown disabled, with this as its tooltip. nil: it can be tried.
        public var cameraUnavailable: String?
        /// The preview's side in pixels (the saved image has the model's size).
        public var previewSide = 400
        /// What the library grid says when the library has never been indexed (an app names its
        /// own way to index it; gpick's command line names `gpick library scan`).
        public var noIndexAdvice = "The library has no index yet, so there are no photos to show."

        public init(start: ProfileImage, output: OutputPath, modelOutput: OutputPath, images: AvatarImages, indexPath: String?,
                    takePhoto: (@Sendable () async throws(GpickError) -> [UInt8])?) {
            self.start = start
            self.output = output
            self.modelOutput = modelOutput
            self.images = images
            self.indexPath = indexPath
            self.takePhoto = takePhoto
        }
    }

    public enum Event: Sendable {
        /// The page's address, with its token.
        case ready(url: String)
        /// Saved: the image, the model, and a photo kept beside them when there is one.
        case saved(image: String, model: String, photo: String?)
        case cancelled
        case failed(GpickError)
    }

    struct State {
        var images: [String: EditorImage] = [:]
        var uploads = 0
        var ended = false
    }

    /// Uploads and camera photos kept at once (each up to 64 MiB, with its preview picture).
    static let uploadsKept = 4

    public let configuration: Configuration
    let state = Monitor(State())
    private let output = Locked<AsyncStream<Event>.Continuation?>(nil)
    private let serverBox = Locked<WebServer?>(nil)

    public init(_ configuration: Configuration) throws(GpickError) {
        try configuration.start.validate()
        self.configuration = configuration
        if let image = configuration.start.image {
            let label = image.path.map { ($0 as NSString).lastPathComponent } ?? image.url ?? image.asset.map { "asset \($0)" } ?? "image"
            state.withLock { $0.images["m0"] = EditorImage(origin: .reference(image), label: label) }
        }
    }

    /// Serves the page on 127.0.0.1 (`port` 0: any free one) until it is saved or cancelled.
    public func run(port: Int = 0) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        output.withLock { $0 = continuation }
        do {
            // Photos come as uploads: bodies up to 64 MiB.
            let server = try WebServer(port: port, maxBody: 64 << 20)
            serverBox.withLock { $0 = server }
            AvatarEditorRoutes(editor: self, server: server).mount()
            continuation.yield(.ready(url: server.url()))
        } catch {
            finish(.failed(error))
        }
        return stream
    }

    public func cancel() { finish(.cancelled) }

    /// Ends with `event`, once: the server closes first.
    func finish(_ event: Event) {
        let first = state.withLock { s -> Bool in
            defer { s.ended = true }
            return !s.ended
        }
        guard first else { return }
        Task {
            if let server = serverBox.withLock({ $0 }) {
                // close() waits for the server's threads, one of which may be the caller's.
                await OffPool.run { server.close(grace: .seconds(2)) }
            }
            let c = output.withLock { c -> AsyncStream<Event>.Continuation? in defer { c = nil }; return c }
            c?.yield(event)
            c?.finish()
        }
    }

    // MARK: Images by id

    func image(_ id: String) async throws(GpickError) -> EditorImage {
        if let known = state.withLock({ $0.images[id] }) { return known }
        // A library asset, by its id in the index: looked up there, never by a path from the page.
        guard id.hasPrefix("a"), let assetID = Int64(id.dropFirst()), assetID > 0, let indexPath = configuration.indexPath else {
            throw GpickError(.usage, "no image \(id)")
        }
        let asset = try await OffPool.run { () throws(GpickError) in try LibraryIndex.open(path: indexPath).asset(id: assetID) }
        guard let asset else { throw GpickError(.usage, "no asset \(assetID) in the library") }
        let image = EditorImage(origin: .reference(ImageReference(asset: assetID, path: asset.path)), label: (asset.path as NSString).lastPathComponent)
        state.withLock { $0.images[id] = image }
        return image
    }

    /// The preview-sized picture of image `id`, decoded once.
    func previewPicture(_ id: String) async throws(GpickError) -> AvatarPicture {
        let image = try await image(id)
        if let ready = image.preview { return ready }
        let picture = try await image.picture(covering: configuration.previewSide, images: configuration.images)
        state.withLock { $0.images[id]?.preview = picture }
        return picture
    }

    /// Keeps bytes the page sent (or the camera took) as image "uN".
    func addUpload(_ bytes: [UInt8], label: String) async throws(GpickError) -> (id: String, label: String) {
        guard let ext = EditorImage.fileExtension(of: bytes) else {
            throw GpickError(.usage, "\(label) is not a photo gpick can read (JPEG, PNG, WebP, GIF, TIFF, HEIF or AVIF)")
        }
        var image = EditorImage(origin: .bytes(bytes, fileExtension: ext), label: label)
        // Decoded now: a file that is not really an image is refused at once, in words.
        image.preview = try await image.picture(covering: configuration.previewSide, images: configuration.images)
        let id = state.withLock { s -> String in
            s.uploads += 1
            let id = "u\(s.uploads)"
            s.images[id] = image
            // Memory stays bounded: only the newest uploads are kept (the page shows one image;
            // an older one is chosen again by uploading it again).
            if s.uploads > Self.uploadsKept { s.images["u\(s.uploads - Self.uploadsKept)"] = nil }
            return id
        }
        return (id, label)
    }

    // MARK: Rendering what the page shows

    /// The page's model: ProfileImage's JSON, with its image named by id: {"id": "u1", "focus": [x, y]}.
    func model(fromPage bytes: [UInt8]) throws(GpickError) -> (model: ProfileImage, imageID: String?) {
        guard case .object(var object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            throw GpickError(.usage, "the page sent no model")
        }
        var imageID: String?
        var focus = FocusPoint.centre
        if case .object(let image)? = object["image"] {
            if case .string(let id)? = image["id"] { imageID = id }
            if case .array(let f)? = image["focus"], f.count == 2, let x = f[0].number, let y = f[1].number {
                focus = FocusPoint(x: x, y: y)
            }
        }
        // Decoded with a stand-in reference (the model's own checks need one); the id is resolved
        // by the caller, never read as a path.
        object["image"] = imageID == nil ? nil : JSONValue(fields: ["path": "page-image", "focus": [focus.x, focus.y]])
        let cleaned = Array((JSONValue.object(object).line ?? "").utf8)
        var model = try ProfileImage.decode(cleaned, path: "the page's model")
        model.normalise()
        if let imageID {
            // A placeholder until the id is resolved: the reference's focus is what the page set.
            model.image = ImageReference(path: imageID, focus: focus)
        } else if model.background == .image {
            throw GpickError(.usage, "the page's model shows an image but names none")
        }
        return (model, imageID)
    }

    /// The preview PNG of what the page shows.
    func preview(_ pageModel: [UInt8]) async throws(GpickError) -> (png: [UInt8], textColor: AvatarColor?) {
        var (model, imageID) = try model(fromPage: pageModel)
        model.size = min(model.size, configuration.previewSide)
        var picture: AvatarPicture?
        if model.background == .image, let imageID { picture = try await previewPicture(imageID) }
        let avatar = try await AvatarRenderer(images: configuration.images).render(model, picture: picture)
        let png = try await OffPool.run { () throws(GpickError) in try avatar.encoded(as: .png) }
        return (png, avatar.textColor)
    }
}
