import GpickWeb
import Foundation
import GpickBase
import GpickImages
import GpickLibrary

/// The editor's page and calls on gpick's web server. Images are named by ids the server gave;
/// no client-given path ever reaches the file system.
struct AvatarEditorRoutes: Sendable {
    let editor: AvatarEditor
    let server: WebServer

    func mount() {
        let editor = self.editor, token = server.token
        server.mount("/") { request, response in
            guard response.allowsRead(request) else { return }
            response.send(.ok, type: "text/html; charset=utf-8", body: AvatarEditorPage.html(editor: editor, token: token),
                          headers: ["Content-Security-Policy": "default-src 'self'; img-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'"])
        }
        server.mountAsset("/avatar.js", type: "text/javascript; charset=utf-8", AvatarEditorPage.script)
        server.mountAsset("/avatar.css", type: "text/css; charset=utf-8", AvatarEditorPage.style)
        server.mount("/api/preview") { request, response in
            guard response.allowsPost(request) else { return }
            let body = request.body
            switch OffPool.awaiting({ () async throws(GpickError) in try await editor.preview(body) }) {
            case .success(let made):
                response.send(.ok, type: "image/png", body: made.png,
                              headers: ["Cache-Control": "no-store", "X-Text-Color": made.textColor?.description ?? "none"])
            case .failure(let error): fail(response, error)
            }
        }
        server.mount("/api/upload") { request, response in
            guard response.allowsPost(request) else { return }
            let body = request.body
            let label = Self.label(request.header("x-file-name"))
            reply(response) { () async throws(GpickError) in
                let added = try await editor.addUpload(body, label: label)
                return AvatarEditorJSON.Added(image: .init(id: added.id, label: added.label))
            }
        }
        server.mount("/api/camera") { request, response in
            guard response.allowsPost(request) else { return }
            reply(response) { () async throws(GpickError) in
                guard let take = editor.configuration.takePhoto else { throw GpickError(.usage, "this editor has no camera") }
                let added = try await editor.addUpload(try await take(), label: "Camera photo")
                return AvatarEditorJSON.Added(image: .init(id: added.id, label: added.label))
            }
        }
        server.mount("/api/library") { request, response in
            guard response.allowsRead(request) else { return }
            reply(response) { () async throws(GpickError) in try await Self.library(editor) }
        }
        server.mount("/thumb/", prefix: true) { request, response in
            guard response.allowsRead(request) else { return }
            thumbnail(request, response)
        }
        server.mount("/api/save") { request, response in
            guard response.allowsPost(request) else { return }
            let body = request.body
            reply(response) { () async throws(GpickError) in
                let saved = try await editor.save(body)
                editor.finish(.saved(image: saved.image, model: saved.model, photo: saved.photo))
                return AvatarEditorJSON.Saved(saved: saved.image, model: saved.model)
            }
        }
        server.mount("/api/cancel") { request, response in
            guard response.allowsPost(request) else { return }
            editor.finish(.cancelled)
            response.json(.ok, encoding: WebJSON.Done())
        }
        // The page's stream: its end means the page closed (the editor has no state to push).
        let page = PageEvents { editor.finish(.cancelled) }
        server.mount("/api/events") { request, response in
            guard response.allowsRead(request) else { return }
            page.serve(response) { _ in
                editor.state.wait(until: { $0.ended }, deadline: .now + .seconds(10)) { $0.ended } ? .ended : .nothing
            }
        }
    }

    private func reply<Reply: Encodable & Sendable>(_ response: WebResponse, _ work: @escaping @Sendable () async throws(GpickError) -> Reply) {
        switch OffPool.awaiting({ () async throws(GpickError) -> [UInt8] in WebJSON.bytes(try await work()) }) {
        case .success(let body): response.json(.ok, body)
        case .failure(let error): fail(response, error)
        }
    }

    private func fail(_ response: WebResponse, _ error: GpickError) {
        let status: WebStatus = error.kind == .usage || error.kind == .input ? .badRequest : error.kind == .device ? .conflict : .internalError
        response.json(status, encoding: WebJSON.Failure(error.message))
    }

    /// A file name the page reports, for labels only (never opened): its last part, short.
    static func label(_ given: String?) -> String {
        let name = (given?.removingPercentEncoding ?? given ?? "").split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? "Pasted image" : String(name.prefix(80))
    }

    // MARK: The library's grid: recent photos by id, thumbnails from the shared cache

    static func library(_ editor: AvatarEditor) async throws(GpickError) -> AvatarEditorJSON.Library {
        guard let indexPath = editor.configuration.indexPath, fileStatus(indexPath) != nil else {
            return AvatarEditorJSON.Library(assets: [], problem: editor.configuration.noIndexAdvice)
        }
        let listed = try await OffPool.run { () throws(GpickError) in
            try LibraryIndex.open(path: indexPath).list(AssetQuery(kind: .photo, limit: 200))
        }
        return AvatarEditorJSON.Library(assets: listed.compactMap { l in
            l.asset.id.map { AvatarEditorJSON.Image(id: "a\($0)", label: (l.asset.path as NSString).lastPathComponent) }
        })
    }

    private func thumbnail(_ request: WebRequest, _ response: WebResponse) {
        let id = String(request.path.dropFirst("/thumb/".count))
        let px = Int(request.query["px"] ?? "") ?? 256
        let sizes = ThumbnailCache.Size.allCases.sorted { $0.pixels < $1.pixels }
        let size = sizes.first(where: { $0.pixels >= px }) ?? sizes[sizes.count - 1]
        let editor = self.editor
        let result = OffPool.awaiting { () async throws(GpickError) -> [UInt8] in
            let image = try await editor.image(id)
            guard case .reference(let reference) = image.origin, reference.asset != nil, let path = reference.path else {
                throw GpickError(.usage, "no thumbnail for \(id)")
            }
            let cache = editor.configuration.images.thumbnails
            return try await cache.thumbnailPNG(for: path, mimeType: nil, size: size)
        }
        switch result {
        case .success(let png): response.send(.ok, type: "image/png", body: png, headers: ["Cache-Control": "private, max-age=3600"])
        case .failure(let error): response.text(.notFound, error.message + "\n")
        }
    }
}
