import GpickTerminal
import GpickBase
import GpickImages
import GpickKit

/// Thumbnails for the terminal grid: taken from the shared thumbnail cache (made there when
/// missing), decoded to RGB at the cell's pixel size, and kept in a cache bounded in bytes.
/// Loads run two at a time off the cooperative pool; the newest asks go first, so the rows in
/// view win over rows scrolled past.
final class TerminalThumbnails: Sendable {
    struct Picture: Sendable {
        var rgb: [UInt8]
        var width: Int
        var height: Int
        /// The box it was scaled into: a resize asks again.
        var box: PixelBox
    }

    private struct State {
        var pictures: [String: Picture] = [:]
        var failed: [String: String] = [:]
        /// Ids in use order, oldest first.
        var order: [String] = []
        var bytes = 0
        var waiting: [(PickerItem, PixelBox)] = []
        var loading: Set<String> = []
        var running = 0
        var closed = false
    }

    private let state = Locked(State())
    private let cache: ThumbnailCache
    private let maxBytes: Int
    private let onLoaded: @Sendable () -> Void
    static let concurrency = 2

    init(cache: ThumbnailCache, maxBytes: Int = 32 << 20, onLoaded: @escaping @Sendable () -> Void) {
        self.cache = cache
        self.maxBytes = maxBytes
        self.onLoaded = onLoaded
    }

    /// The picture when it is ready at this box; otherwise nil, and it is on its way.
    func picture(for item: PickerItem, box: PixelBox) -> Picture? {
        let start = state.withLock { s -> Bool in
            if let p = s.pictures[item.id], p.box == box {
                if let i = s.order.firstIndex(of: item.id) { s.order.remove(at: i) }
                s.order.append(item.id)
                return false
            }
            guard !s.closed, s.failed[item.id] == nil, !s.loading.contains(item.id) else { return false }
            s.loading.insert(item.id)
            s.waiting.append((item, box))
            return s.running < Self.concurrency
        }
        if start { startNext() }
        return state.withLock { s in s.pictures[item.id].flatMap { $0.box == box ? $0 : nil } }
    }

    /// Why an item has no picture (its thumbnail could not be made).
    func failure(for id: String) -> String? { state.withLock { $0.failed[id] } }

    /// Forgets what is waiting (the user scrolled on): only what is asked again loads.
    func dropWaiting() {
        state.withLock { s in
            for (item, _) in s.waiting { s.loading.remove(item.id) }
            s.waiting.removeAll()
        }
    }

    func close() { state.withLock { $0.closed = true; $0.waiting.removeAll() } }

    private func startNext() {
        let next = state.withLock { s -> (PickerItem, PixelBox)? in
            guard !s.closed, s.running < Self.concurrency, let job = s.waiting.popLast() else { return nil }
            s.running += 1
            return job
        }
        guard let (item, box) = next else { return }
        let cache = self.cache
        Task {
            let result: Result<Picture, GpickError>
            do throws(GpickError) {
                let size: ThumbnailCache.Size = max(box.width, box.height) <= 128 ? .normal : max(box.width, box.height) <= 256 ? .large : .xLarge
                let png = try await cache.thumbnail(for: item.path, mimeType: item.mimeType, size: size)
                let picture = try await OffPool.run { () throws(GpickError) -> Picture in
                    let scaled = try StillImage.thumbnail(path: png, box: ImageBox(width: box.width, height: box.height, mode: .fit))
                    let rgb = try scaled.packedRGB(on: [24, 24, 24])
                    return Picture(rgb: rgb.bytes, width: rgb.width, height: rgb.height, box: box)
                }
                result = .success(picture)
            } catch {
                result = .failure(error)
            }
            self.finished(item.id, result)
        }
    }

    private func finished(_ id: String, _ result: Result<Picture, GpickError>) {
        state.withLock { s in
            s.running -= 1
            s.loading.remove(id)
            switch result {
            case .success(let p):
                if let old = s.pictures[id] { s.bytes -= old.rgb.count }
                s.pictures[id] = p
                s.bytes += p.rgb.count
                if let i = s.order.firstIndex(of: id) { s.order.remove(at: i) }
                s.order.append(id)
                while s.bytes > maxBytes, s.order.count > 1 {
                    let oldest = s.order.removeFirst()
                    if let gone = s.pictures.removeValue(forKey: oldest) { s.bytes -= gone.rgb.count }
                }
            case .failure(let e):
                s.failed[id] = e.message
            }
        }
        onLoaded()
        startNext()
    }
}
