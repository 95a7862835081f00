import CVips
import FoundationEssentials
import GpickBase
import GpickLibrary

/// A contact sheet of library assets: square cells in rows, each holding an asset's picture fit
/// and centred on a neutral grey, with a badge for what a still does not show (LIVE, a video's
/// length, a burst's count, PANO) in a dark translucent pill on the cell's lower left corner.
///
/// Pictures come through the freedesktop cache at the smallest size that holds a cell, so a
/// sheet fills the cache a file manager uses and reuses what is there. Memory: each cell is
/// rendered to its own cell-sized memory as it is made (no full-resolution decode outlives its
/// cell), so the sheet holds about its own pixels, 3 bytes each, until it is encoded.
public struct ContactSheet: Sendable {
    public static let columnRange = 1...64
    public static let cellRange = 32...1024
    public static let gapRange = 0...256
    /// Pixels a sheet may have: its cells are in memory until it is encoded (200 MP: 600 MB).
    public static let maxPixels = 200_000_000

    public var columns: Int
    /// The side of a cell, in pixels.
    public var cell: Int
    /// Pixels between cells, and around them.
    public var gap: Int

    static let background = [48.0, 48.0, 48.0]
    static let placeholderGrey = [96.0, 96.0, 96.0]
    static let placeholderInk = [200.0, 200.0, 200.0]
    /// fonts-dejavu-core (the Makefile's packages) has ▶ and × in it; pango falls back to
    /// another family when it is missing.
    static let badgeFont = "DejaVu Sans Bold"
    /// How much of the picture under the pill still shows through it.
    static let pillOpacity = 0.6

    public init(columns: Int = 6, cell: Int = 256, gap: Int = 8) {
        self.columns = columns
        self.cell = cell
        self.gap = gap
    }

    /// Where the cells go: row by row, newest first as the listing is.
    public struct Layout: Sendable, Equatable {
        public let count: Int
        public let columns: Int
        public let rows: Int
        public let cell: Int
        public let gap: Int

        public var width: Int { columns * cell + (columns + 1) * gap }
        public var height: Int { rows * cell + (rows + 1) * gap }
        public var pixels: Int { width * height }

        /// The top left corner of cell `index`.
        public func origin(of index: Int) -> (x: Int, y: Int) {
            (gap + index % columns * (cell + gap), gap + index / columns * (cell + gap))
        }
    }

    /// The layout for `count` assets: no more columns than assets, so a short sheet has no
    /// empty column.
    public func layout(count: Int) -> Layout {
        let across = max(1, min(columns, count))
        return Layout(count: count, columns: across, rows: max(1, (count + across - 1) / across), cell: cell, gap: gap)
    }

    /// Refuses a sheet too large to hold in memory or to write as `format` (WebP stops at 16383
    /// pixels a side, JPEG at 65500), before anything is decoded.
    public static func check(_ layout: Layout, format: ThumbnailFormat) throws(GpickError) {
        let size = "\(layout.width)×\(layout.height)"
        let side = max(layout.width, layout.height)
        switch format {
        case .webp where side > 16383:
            throw GpickError(.usage, "a \(size) sheet is too large for WebP, whose images are at most 16383 pixels a side")
        case .jpeg where side > 65500:
            throw GpickError(.usage, "a \(size) sheet is too large for JPEG, whose images are at most 65500 pixels a side")
        default: break
        }
        guard layout.pixels <= maxPixels else {
            throw GpickError(.usage, "a \(size) sheet would be \(layout.pixels / 1_000_000) MP, more than the \(maxPixels / 1_000_000) MP gpick draws at once")
        }
    }

    /// The freedesktop size a cell's picture is taken at: the smallest that fills the cell.
    public var cacheSize: ThumbnailCache.Size {
        ThumbnailCache.Size.allCases.first { $0.pixels >= cell } ?? .xxLarge
    }

    /// What an asset's badge says; nil when it needs none (a plain photo).
    public static func badge(for item: ListedAsset) -> String? {
        let a = item.asset
        var parts: [String] = []
        if a.kind == .video { parts.append(a.duration.map { "▶ " + clockText(seconds: $0) } ?? "▶") }
        if a.live { parts.append("LIVE") }
        if a.burst { parts.append("burst ×\(item.burstCount)") }
        if a.panorama { parts.append("PANO") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// m:ss, h:mm:ss from an hour on (as `library list` shows it).
    /// One cell of a sheet as it is drawn: its place, and why it is a placeholder when it is one.
    public struct Cell: Sendable {
        public let index: Int
        public let item: ListedAsset
        public let badge: String?
        /// Why the asset could not be drawn (its cell is a grey "?" then).
        public let failure: GpickError?
    }

    /// A drawn sheet, still to be encoded.
    public struct Sheet: Sendable {
        public let picture: VipsPicture
        public let layout: Layout
        /// How many cells show their asset's picture (the others are placeholders).
        public let drawn: Int
    }

    /// Draws `items`. Each cell is reported to `onCell` as it is done (in no particular order);
    /// a cell that cannot be drawn becomes a grey "?" and is reported with the reason. Throws
    /// only when the sheet itself cannot be made, or when the task is cancelled.
    public func draw(_ items: [ListedAsset], thumbnails: ThumbnailCache,
                     onCell: (Cell) -> Void) async throws(GpickError) -> Sheet {
        let layout = layout(count: items.count)
        let sheet = self
        // A few more requests than decoders, so one always waits at the gate: not a thousand tasks.
        let window = max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
        var cells = [VipsPicture?](repeating: nil, count: items.count)
        var interrupted: GpickError? = nil
        await withTaskGroup(of: (Int, Result<VipsPicture, GpickError>).self) { group in
            var next = 0
            func start(_ group: inout TaskGroup<(Int, Result<VipsPicture, GpickError>)>) {
                guard next < items.count else { return }
                let i = next, item = items[i]
                next += 1
                group.addTask { (i, await sheet.picture(of: item, thumbnails: thumbnails)) }
            }
            for _ in 0..<window { start(&group) }
            while let (i, result) = await group.next() {
                switch result {
                case .success(let picture):
                    cells[i] = picture
                    onCell(Cell(index: i, item: items[i], badge: Self.badge(for: items[i]), failure: nil))
                case .failure(let error) where error.kind == .interrupted:
                    interrupted = error
                case .failure(let error):
                    onCell(Cell(index: i, item: items[i], badge: Self.badge(for: items[i]), failure: error))
                }
                start(&group)
            }
        }
        if let interrupted { throw interrupted }
        let made = cells
        let drawn = made.count(where: { $0 != nil })
        let picture = try await OffPool.run { () throws(GpickError) -> VipsPicture in
            let placeholder = drawn < made.count ? try sheet.placeholder() : nil
            let pictures = made.compactMap { $0 ?? placeholder }
            let grid = try VipsPicture.grid(pictures, across: layout.columns, gap: layout.gap, background: Self.background)
            return try grid.centred(width: layout.width, height: layout.height, background: Self.background)
        }
        return Sheet(picture: picture, layout: layout, drawn: drawn)
    }

    /// One asset's cell, or why there is none.
    func picture(of item: ListedAsset, thumbnails: ThumbnailCache) async -> Result<VipsPicture, GpickError> {
        let asset = item.asset
        if let reason = asset.unreadable { return .failure(GpickError(.input, "cannot read \(asset.path): \(reason)")) }
        let sheet = self, badge = Self.badge(for: item)
        do {
            let path = try await thumbnails.thumbnail(for: asset.path, mimeType: asset.mimeType, size: cacheSize)
            return .success(try await DecodeGate.shared.run { () async throws(GpickError) in
                try await OffPool.run { () throws(GpickError) in try sheet.cell(thumbnail: path, badge: badge) }
            })
        } catch {
            return .failure(error)
        }
    }

    /// A cell from a cached thumbnail: fit, centred, badged, rendered to memory. Blocking.
    @available(*, noasync, message: "it decodes: run it off the cooperative pool")
    func cell(thumbnail path: String, badge: String?) throws(GpickError) -> VipsPicture {
        let picture = try StillImage.thumbnail(path: path, box: .square(cell)).opaque(on: Self.background)
        var image = try picture.centred(width: cell, height: cell, background: Self.background)
        if let badge { image = try badged(image, badge) }
        return try image.inMemory()
    }

    /// `image` (a whole cell) with `text` in a pill on its lower left corner; unchanged when the
    /// cell is too small to hold the pill.
    func badged(_ image: VipsPicture, _ text: String) throws(GpickError) -> VipsPicture {
        guard let badge = try badge(text) else { return image }
        let f = badge.frame
        let pill = try VipsPicture.pillMask(width: f.width, height: f.height).masked(opacity: Self.pillOpacity)
        return try image.blending([0, 0, 0], through: pill, x: f.x, y: f.y)
            .blending([255, 255, 255], through: badge.ink, x: f.x + badge.pad, y: f.y + (f.height - badge.ink.height) / 2)
    }

    /// The text of a badge as a mask, and where its pill goes in a cell (text `pad` from the
    /// pill's left end); nil when the cell is too small for it (no badge rather than a clipped one).
    func badge(_ text: String) throws(GpickError) -> (ink: VipsPicture, frame: (x: Int, y: Int, width: Int, height: Int), pad: Int)? {
        let em = max(9, cell / 16)
        let ink = try VipsPicture.textMask(text, font: Self.badgeFont, pixels: em)
        let height = max(ink.height, em) + 2 * max(2, em / 4)
        let pad = max(3, height * 2 / 5)
        let width = ink.width + 2 * pad
        let inset = max(2, cell / 32)
        guard width + 2 * inset <= cell, height + 2 * inset <= cell else { return nil }
        return (ink, (inset, cell - inset - height, width, height), pad)
    }

    /// The cell of an asset that could not be drawn: grey, with a "?" in the middle. Blocking.
    @available(*, noasync, message: "it draws: run it off the cooperative pool")
    func placeholder() throws(GpickError) -> VipsPicture {
        let grey = try VipsPicture.blank(width: cell, height: cell, bands: 3).filled(with: Self.placeholderGrey)
        let mark = try VipsPicture.textMask("?", font: Self.badgeFont, pixels: max(9, cell / 3))
        return try grey.blending(Self.placeholderInk, through: mark, x: (cell - mark.width) / 2, y: (cell - mark.height) / 2)
            .inMemory()
    }
}
