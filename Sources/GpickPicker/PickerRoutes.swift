import GpickWeb
import Foundation
import GpickBase
import GpickImages
import GpickKit
import GpickLibrary

/// The picker's pages and calls on gpick's web server. Items are named by id ("a12", "c3");
/// no client-given path ever reaches the file system.
struct PickerRoutes: Sendable {
    let picker: Picker
    let server: WebServer

    func mount() {
        let token = server.token
        let policy = PickerPage.contentSecurityPolicy(picker.configuration.appearance)
        server.mount("/") { request, response in
            guard response.allowsRead(request) else { return }
            // Made per request: take-or-pick's stages change what the page shows. The first items
            // come with it, and its head asks for their thumbnails (no round trip first); the
            // library's listing takes milliseconds, so a page asked for at start waits for it.
            picker.state.wait(until: { $0.libraryLoaded || $0.ended }, deadline: .now + .seconds(2)) { _ in }
            let page = PickerPage.html(configuration: picker.configuration, layout: picker.currentLayout, stage: picker.stage,
                                       items: picker.allItems, token: token)
            response.send(.ok, type: "text/html; charset=utf-8", body: page,
                          headers: ["Content-Security-Policy": policy])
        }
        let appearance = picker.configuration.appearance
        if let path = appearance.stylesheet {
            // Read per page load (edits show on reload), from the path the configuration names.
            server.mount(PickerPage.userStylePath) { request, response in
                guard response.allowsRead(request) else { return }
                do throws(GpickError) {
                    response.send(.ok, type: "text/css; charset=utf-8", body: try PickerConfiguration.Appearance.read(stylesheet: path))
                } catch {
                    response.text(.notFound, error.message + "\n")
                }
            }
        }
        server.mount("/api/items") { request, response in
            guard response.allowsRead(request) else { return }
            response.json(.ok, Array(("{\"items\":[" + picker.allItems.map(\.cellJSON).joined(separator: ",") + "]}").utf8))
        }
        server.mount("/api/state") { request, response in
            guard response.allowsRead(request) else { return }
            response.json(.ok, encoding: status())
        }
        // The page's stream: the camera's state and the overlays; its end means the page closed.
        let page = PageEvents { [picker] in picker.finish(.cancelled) }
        server.mount("/api/events") { request, response in
            guard response.allowsRead(request) else { return }
            page.serve(response) { seen in
                let next = picker.state.wait(until: { $0.version != seen || $0.ended }, deadline: .now + .seconds(10)) { s in
                    (s.version, s.ended)
                }
                if next.1 { return .ended }
                return next.0 == seen ? .nothing : .state(version: next.0, name: "state", data: WebJSON.bytes(status()))
            }
        }
        // Thumbnails are tasks: they wait on the thumbnail service, and a thread would sit parked.
        server.mount("/thumb/", prefix: true, task: { request, response in
            guard await response.allowsRead(request) else { return }
            await thumbnail(request, response)
        })
        server.mount("/thumbs", task: { request, response in
            guard await response.allowsRead(request) else { return }
            await thumbnails(request, response)
        })
        for (path, action) in actions {
            server.mount(path) { request, response in
                guard response.allowsPost(request) else { return }
                let body = PickerPageJSON.CallBody(request.body)
                switch OffPool.awaiting({ () async throws(GpickError) -> [UInt8] in WebJSON.bytes(try await action(body)) }) {
                case .success(let reply): response.json(.ok, reply)
                case .failure(let error):
                    let status: WebStatus = error.kind == .usage ? .badRequest : error.kind == .runtime ? .conflict : .internalError
                    response.json(status, encoding: WebJSON.Failure(error.message))
                }
            }
        }
    }


    func status() -> PickerPageJSON.State {
        picker.state.withLock { s in
            PickerPageJSON.State(camera: s.camera.page, problems: s.problems, notice: s.notice ?? "", version: s.version, ended: s.ended,
                                 count: s.assets.count + s.captures.count, assets: s.assets.count, stage: s.stage.rawValue,
                                 capture: s.captures.first?.cell)
        }
    }

    // MARK: Calls that change something (POST, with the X-Gpick-Token header)

    typealias Action = @Sendable (PickerPageJSON.CallBody) async throws(GpickError) -> PickerPageJSON.Reply

    var actions: [(String, Action)] {
        let picker = self.picker
        return [
            ("/api/confirm", { body throws(GpickError) in
                let ids = body.ids
                guard !ids.isEmpty else { throw GpickError(.usage, "nothing is selected") }
                guard picker.configuration.allowsMultiple || ids.count == 1 else {
                    throw GpickError(.usage, "this picker takes one item, not \(ids.count)")
                }
                var items: [PickerItem] = []
                for id in ids {
                    guard let item = picker.item(id: id) else { throw GpickError(.usage, "no item \(id)") }
                    if !items.contains(item) { items.append(item) }
                }
                picker.finish(.picked(items))
                return PickerPageJSON.Reply(ok: true, count: items.count)
            }),
            ("/api/selection", { body throws(GpickError) in
                picker.selectionChanged(to: body.ids)
                return .done
            }),
            ("/api/camera/rest", { body throws(GpickError) in
                await picker.rest(body.on ?? true).value
                return .done
            }),
            ("/api/cancel", { _ throws(GpickError) in
                picker.finish(.cancelled)
                return .done
            }),
            ("/api/action", { body throws(GpickError) in
                guard let name = body.name else { throw GpickError(.usage, "no such action") }
                try picker.choose(action: name)
                let stage = picker.stage
                return PickerPageJSON.Reply(ok: true, stage: stage == .grid ? nil : stage.rawValue)
            }),
            ("/api/snap", { _ throws(GpickError) in
                let camera = try picker.requireCamera()
                let files = try await camera.snap()
                return PickerPageJSON.Reply(item: try await picker.captured(files, kind: .photo).cell)
            }),
            ("/api/flip", { _ throws(GpickError) in
                let camera = try picker.requireCamera()
                let position = try await camera.flip()
                picker.setCamera { $0.position = position }
                return PickerPageJSON.Reply(position: position.rawValue)
            }),
            ("/api/live", { body throws(GpickError) in
                let camera = try picker.requireCamera()
                let current = await camera.liveOn
                let on = body.on ?? !current
                try await camera.setLive(on)
                picker.setCamera { $0.live = on }
                return PickerPageJSON.Reply(live: on)
            }),
            ("/api/record", { body throws(GpickError) in
                // {"on": false} stops (and never starts one), {"on": true} starts; no body toggles.
                let item = try await picker.video(body.on)
                let recording = picker.state.withLock { $0.camera.recording }
                return PickerPageJSON.Reply(recording: recording, item: item?.cell)
            }),
        ]
    }
}

extension Picker {
    func requireCamera() throws(GpickError) -> PickerCamera {
        guard currentLayout.showsCamera, let camera = cameraBox.withLock({ $0 }) else {
            throw GpickError(.usage, "this picker has no camera cell")
        }
        let status = state.withLock { $0.camera }
        if status.state == .failed { throw GpickError(.runtime, status.reason ?? "the camera failed") }
        return camera
    }
}
