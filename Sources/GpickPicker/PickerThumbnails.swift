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

    func thumbnail(_ request: WebRequest, _ response: WebResponse) async {
        let id = String(request.path.dropFirst("/thumb/".count))
        guard let item = picker.item(id: id) else { return await response.text(.notFound, "no item \(id)\n") }
        do throws(GpickError) {
            let png = try await picker.configuration.thumbnails.thumbnailPNG(for: item.path, mimeType: item.mimeType,
                                                                             size: Self.size(px: request.query["px"]))
            // Ids are stable while the picker runs: the browser may keep what it has.
            await response.send(.ok, type: "image/png", body: png, headers: ["Cache-Control": "private, max-age=3600"])
        } catch {
            // The reason as a cell shows it (the page puts it in the picture's place).
            await response.text(.notFound, PickerItem.shortReason(error.message) + "\n")
        }
    }

    /// Each id's record as soon as its thumbnail is there: cached ones come at once (a stat and a
    /// small read each), the others as they are made. A page that leaves cancels what is not made.
    func thumbnails(_ request: WebRequest, _ response: WebResponse) async {
        let ids = (request.query["ids"] ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // Ids are letters and digits ("a12", "c3"): nothing else can break a record's line.
        guard !ids.isEmpty, ids.count <= Self.maxBatch,
              ids.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7a || (0x30...0x39).contains($0) } }) else {
            return await response.text(.badRequest, "ids: 1 to \(Self.maxBatch) item ids, comma-separated\n")
        }
        let size = Self.size(px: request.query["px"])
        guard await response.startStream(type: "application/octet-stream", headers: ["Cache-Control": "no-store"]) else { return }
        let cache = picker.configuration.thumbnails
        let items = ids.map { ($0, picker.item(id: $0)) }
        await withTaskGroup(of: [[UInt8]].self) { group in
            for (id, item) in items {
                group.addTask {
                    guard let item else { return Self.record(id, .failure(GpickError(.usage, "no item \(id)"))) }
                    guard !Task.isCancelled else { return [] }
                    do throws(GpickError) {
                        return Self.record(id, .success(try await cache.thumbnailPNG(for: item.path, mimeType: item.mimeType, size: size)))
                    } catch {
                        return Self.record(id, .failure(error))
                    }
                }
            }
            for await record in group where !record.isEmpty {
                guard await response.write(record), !response.serverClosed else { return group.cancelAll() }
            }
        }
    }

    /// One line: `ID ok BASE64` (the PNG, for a data: URL: the page makes no Blob per picture,
    /// a round trip to the browser's process each) or `ID error REASON`, the reason as a cell
    /// shows it.
    static func record(_ id: String, _ result: Result<[UInt8], GpickError>) -> [[UInt8]] {
        let line = switch result {
        case .success(let png): "\(id) ok \(Data(png).base64EncodedString())\n"
        case .failure(let error): "\(id) error \(PickerItem.shortReason(error.message).replacingOccurrences(of: "\n", with: " "))\n"
        }
        return [Array(line.utf8)]
    }
}
