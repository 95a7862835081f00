import GpickWeb
import Foundation
import GpickImages
import GpickKit
import GpickLibrary

/// The picker's one page, served by gpick (no framework, no network fetch). Its script and
/// stylesheet come inside it, each allowed by its SHA-256 in the page's Content-Security-Policy
/// (as CSP Level 2 provides): fetched, they held the script up by 30-70 ms of requests on a
/// loaded laptop, ahead of the first thumbnails.
enum PickerPage {
    static let script = PackageResources.picker_js
    /// The grid's rows, the focus and the keys (first: picker.js builds the grid at once).
    static let gridScript = PackageResources.picker_grid_js
    static let style = PackageResources.picker_css
    /// The user's stylesheet: one fixed address for the one file the configuration names.
    static let userStylePath = "/user.css"

    /// The page's one script: picker-grid.js, then picker.js.
    static let inlineScript = String(decoding: gridScript + Array("\n".utf8) + script, as: UTF8.self)
    static let scriptHash = cspHash(inlineScript)

    /// The page's stylesheet: gpick's, then the appearance's custom properties (accent,
    /// spacing, insets) made from the configuration. The user's own comes after, fetched.
    static func inlineStyle(_ appearance: PickerConfiguration.Appearance) -> String {
        String(decoding: style, as: UTF8.self) + "\n" + appearance.css
    }

    /// The policy that lets only this page's own script and stylesheet run, and nothing but
    /// gpick's server be asked for anything.
    static func contentSecurityPolicy(_ appearance: PickerConfiguration.Appearance) -> String {
        "default-src 'self'; img-src 'self' data:; style-src 'self' '\(cspHash(inlineStyle(appearance)))'; "
            + "script-src '\(scriptHash)'; connect-src 'self'"
    }

    /// "sha256-BASE64" of the text's UTF-8, as a CSP source names an inline element.
    static func cspHash(_ text: String) -> String {
        "sha256-" + Data(ContentHash.sha256Digest(bytes: Array(text.utf8))).base64EncodedString()
    }

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
            actions: layout.actions, camera: layout.showsCamera,
            cameraMayAppear: stage == .grid && c.layout.showsCamera, cameraMode: c.capture.cameraMode.rawValue,
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
            <style>\(inlineStyle(c.appearance))</style>\(user)</head>
            <body><header><h1>\(title)</h1><span id="status" role="status">Loading…</span><span id="notice" hidden></span>
            <button id="cancel" type="button">Cancel</button><button id="confirm" type="button" disabled>Choose</button></header>
            <main><div id="overlay" hidden></div><div id="grid"></div></main>
            <script id="config" type="application/json">\(safe)</script>
            <script id="items" type="application/json">\(String(decoding: items, as: UTF8.self).replacing("</", with: "<\\/"))</script>
            <script>\(inlineScript)</script></body></html>

            """.utf8)
    }
}
