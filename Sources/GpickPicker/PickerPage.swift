import GpickWeb
import Foundation
import GpickImages
import GpickKit

/// The picker's one page and its two assets, served by gpick (no framework, no network fetch).
enum PickerPage {
    static let script = PackageResources.picker_js
    /// The grid's rows, the focus and the keys (loaded first: picker.js builds the grid at once).
    static let gridScript = PackageResources.picker_grid_js
    static let style = PackageResources.picker_css
    /// The appearance's custom properties (accent, spacing, insets), made from the configuration.
    static let appearancePath = "/appearance.css"
    /// The user's stylesheet: one fixed address for the one file the configuration names.
    static let userStylePath = "/user.css"

    /// Rows of thumbnails the page asks for in its first request (`firstThumbnails`).
    static let preloadedRows = 3
    /// The size the preload asks for: a 129–256 px cell, as 4 to 12 columns across a laptop's
    /// window give. The page uses the preload only if its cells are of that size.
    static let preloadedPixels = ThumbnailCache.Size.large.pixels
    /// The cache's sizes, smallest first: the page rounds a cell up to one of them, as
    /// `PickerRoutes.size(px:)` does, so that its first request is the preloaded one.
    static let thumbnailSizes = ThumbnailCache.Size.allCases.map(\.pixels).sorted()

    /// The first request for thumbnails, started by the page's head before its script runs: a
    /// vertical grid's first rows (the script asks for exactly this URL, see picker.js).
    static func firstThumbnails(_ c: PickerConfiguration, items: [PickerItem]) -> String? {
        guard c.layout.scroll == .vertical, !items.isEmpty else { return nil }
        let ids = items.prefix(c.layout.itemsPerRow * preloadedRows).map(\.id).joined(separator: ",")
        return "/thumbs?px=\(preloadedPixels)&ids=\(ids)"
    }

    /// Items the page comes with: its first screenful (picker.js builds at most 80 cells at
    /// once); it fetches the rest once their thumbnails are in. A thousand would make the page a
    /// few times larger and slower to write and read, for cells not yet shown.
    static let embeddedItems = 80

    /// The page for `items`: the listing, whose head it embeds.
    static func html(configuration c: PickerConfiguration, layout: Picker.StageLayout, stage: Picker.Stage,
                     items all: [PickerItem], token: String) -> [UInt8] {
        let items = Array(("[" + all.prefix(embeddedItems).map(\.cellJSON).joined(separator: ",") + "]").utf8)
        return html(configuration: c, layout: layout, stage: stage, items: items, total: all.count,
                    assets: all.count { $0.id.hasPrefix("a") }, preload: firstThumbnails(c, items: all), token: token)
    }

    /// The page: its configuration as JSON (read by picker.js), its first items and the token for its calls.
    private static func html(configuration c: PickerConfiguration, layout: Picker.StageLayout, stage: Picker.Stage, items: [UInt8],
                             total: Int, assets: Int, preload: String?, token: String) -> [UInt8] {
        let settings = PickerPageJSON.Settings(
            columns: c.layout.itemsPerRow, scroll: c.layout.scroll.rawValue, multi: c.allowsMultiple,
            actions: layout.actions, camera: layout.showsCamera, cameraMode: c.capture.cameraMode.rawValue,
            stage: stage.rawValue, preloadedRows: preloadedRows, thumbnailSizes: thumbnailSizes,
            // The camera cell is shaped as the session's frames (every output sees this size).
            cameraWidth: c.capture.session.format.width, cameraHeight: c.capture.session.format.height,
            total: total, assets: assets, preload: preload)
        let json = String(decoding: WebJSON.bytes(settings), as: UTF8.self)
        // "</" inside the JSON would end the script element early.
        let safe = json.replacing("</", with: "<\\/")
        let title = HTMLText.escape(c.title)
        // No attribute: picker.css follows prefers-color-scheme.
        let theme = c.appearance.theme == .auto ? "" : " data-theme=\"\(c.appearance.theme.rawValue)\""
        // The user's stylesheet comes last, so that its rules win over gpick's at equal specificity.
        let user = c.appearance.stylesheet == nil ? "" : "<link rel=\"stylesheet\" href=\"\(userStylePath)\">"
        return Array("""
            <!doctype html>
            <html lang="en"\(theme)><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <meta name="gpick-token" content="\(token)">
            <title>\(title)</title>\(preload.map { "<link rel=\"preload\" href=\"\($0)\" as=\"fetch\" crossorigin>" } ?? "")
            <link rel="stylesheet" href="/picker.css"><link rel="stylesheet" href="\(appearancePath)">\(user)</head>
            <body><header><h1>\(title)</h1><span id="status" role="status">Loading…</span><span id="notice" hidden></span>
            <button id="cancel" type="button">Cancel</button><button id="confirm" type="button" disabled>Choose</button></header>
            <main><div id="overlay" hidden></div><div id="grid"></div></main>
            <script id="config" type="application/json">\(safe)</script>
            <script id="items" type="application/json">\(String(decoding: items, as: UTF8.self).replacing("</", with: "<\\/"))</script>
            <script src="/picker-grid.js"></script><script src="/picker.js"></script></body></html>

            """.utf8)
    }
}
