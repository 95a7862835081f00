import GpickWeb
import Foundation
import GpickBase
import GpickImages
import GpickKit

/// The grid's thumbnails, by item id, from the shared freedesktop cache (made there when missing).
///
/// - `/thumb/ID?px=N`: one PNG.
/// - `/thumbs?ids=ID,ID…&px=N`: the first screenful in one response, a line per picture
///   (`record`), cached ones at once, the others as they are made. On a slow machine a browser spends more on each request
///   (a connection, a socket slot of six) than gpick spends on a cached thumbnail.
extension PickerRoutes {
    /// At most this many ids in one batch (a first screenful is under 100).
    static let maxBatch = 200

    /// The cache size for a cell of `px` device pixels: the smallest that covers it.
    static func size(px: String?) -> ThumbnailCache.Size {
        let px = Int(px ?? "") ?? 256
        let sizes = ThumbnailCache.Size.allCases.sorted { $0.pixels < $1.pixels }
        return sizes.first(where: { $0.pixels >= px }) ?? sizes[sizes.count - 1]
    }

    func thumbnail(_ request: WebRequest, _ response: WebResponse) {
        let id = String(request.path.dropFirst("/thumb/".count))
        guard let item = picker.item(id: id) else { return response.text(.notFound, "no item \(id)\n") }
        switch png(item, size: Self.size(px: request.query["px"])) {
        case .success(let png):
            // Ids are stable while the picker runs: the browser may keep what it has.
            response.send(.ok, type: "image/png", body: png, headers: ["Cache-Control": "private, max-age=3600"])
        case .failure(let error):
            response.text(.notFound, error.message + "\n")
        }
    }

    func thumbnails(_ request: WebRequest, _ response: WebResponse) {
        let ids = (request.query["ids"] ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // Ids are letters and digits ("a12", "c3"): nothing else can break a record's line.
        guard !ids.isEmpty, ids.count <= Self.maxBatch,
              ids.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7a || (0x30...0x39).contains($0) } }) else {
            return response.text(.badRequest, "ids: 1 to \(Self.maxBatch) item ids, comma-separated\n")
        }
        let size = Self.size(px: request.query["px"])
        guard response.startStream(type: "application/octet-stream", headers: ["Cache-Control": "no-store"]) else { return }
        // Cached ones first, read here on the connection's thread; the others are made together.
        var missing: [(id: String, item: PickerItem)] = []
        for id in ids {
            guard let item = picker.item(id: id) else {
                guard response.write(Self.record(id, .failure(GpickError(.usage, "no item \(id)")))) else { return }
                continue
            }
            if let png = cached(item, size: size) {
                guard response.write(Self.record(id, .success(png))) else { return }
            } else {
                missing.append((id, item))
            }
        }
        guard !missing.isEmpty else { return }
        let done = Monitor<[(String, Result<[UInt8], GpickError>)]>([])
        let cache = picker.configuration.thumbnails, toMake = missing
        let making = Task {
            await withTaskGroup(of: Void.self) { group in
                for (id, item) in toMake {
                    group.addTask {
                        guard !Task.isCancelled else { return }
                        let result: Result<[UInt8], GpickError>
                        do throws(GpickError) {
                            result = .success(try await cache.thumbnailPNG(for: item.path, mimeType: item.mimeType, size: size))
                        } catch {
                            result = .failure(error)
                        }
                        done.withLock { $0.append((id, result)) }
                    }
                }
            }
        }
        var written = 0
        while written < missing.count {
            let arrived = done.wait(until: { !$0.isEmpty }, deadline: .now + .milliseconds(500)) { s in defer { s = [] }; return s }
            written += arrived.count
            // A page that left, or a picker that ended, stops the thumbnails not yet started.
            let sent = arrived.isEmpty ? !response.clientHungUp : response.write(arrived.flatMap { Self.record($0.0, $0.1) })
            guard sent, !response.serverClosed else { return making.cancel() }
        }
    }

    /// `item`'s thumbnail, from the cache or made now (blocking: a connection's thread).
    private func png(_ item: PickerItem, size: ThumbnailCache.Size) -> Result<[UInt8], GpickError> {
        if let png = cached(item, size: size) { return .success(png) }
        let cache = picker.configuration.thumbnails
        return OffPool.awaiting { () async throws(GpickError) -> [UInt8] in
            try await cache.thumbnailPNG(for: item.path, mimeType: item.mimeType, size: size)
        }
    }

    private func cached(_ item: PickerItem, size: ThumbnailCache.Size) -> [UInt8]? {
        picker.configuration.thumbnails.existingPNG(for: item.path, size: size)
    }

    /// One line: `ID ok BASE64` (the PNG, for a data: URL: the page makes no Blob per picture,
    /// a round trip to the browser's process each) or `ID error REASON`.
    static func record(_ id: String, _ result: Result<[UInt8], GpickError>) -> [[UInt8]] {
        let line = switch result {
        case .success(let png): "\(id) ok \(Data(png).base64EncodedString())\n"
        case .failure(let error): "\(id) error \(error.message.replacingOccurrences(of: "\n", with: " "))\n"
        }
        return [Array(line.utf8)]
    }
}
