import Foundation
import GpickKit

/// The picker's one page and its two assets, served by gpick (no framework, no network fetch).
enum PickerPage {
    static let script = PackageResources.picker_js
    static let style = PackageResources.picker_css

    /// The page: its configuration as JSON (read by picker.js) and the token for its calls.
    static func html(configuration c: PickerConfiguration, layout: Picker.StageLayout, stage: Picker.Stage, items: [UInt8],
                     token: String) -> [UInt8] {
        let settings: [String: Any] = [
            "columns": c.layout.itemsPerRow, "scroll": c.layout.scroll.rawValue, "multi": c.allowsMultiple,
            "actions": layout.actions, "camera": layout.showsCamera, "cameraMode": c.capture.cameraMode.rawValue,
            "stage": stage.rawValue,
        ]
        let json = (try? JSONSerialization.data(withJSONObject: settings, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        // "</" inside the JSON would end the script element early.
        let safe = json.replacing("</", with: "<\\/")
        let title = HTMLText.escape(c.title)
        return Array("""
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <meta name="gpick-token" content="\(token)">
            <title>\(title)</title><link rel="stylesheet" href="/picker.css"></head>
            <body><header><h1>\(title)</h1><span id="status">Loading…</span>
            <button id="cancel" type="button">Cancel</button><button id="confirm" type="button" disabled>Choose</button></header>
            <div id="overlay" hidden></div>
            <main><div id="grid" role="grid"></div></main>
            <script id="config" type="application/json">\(safe)</script>
            <script id="items" type="application/json">\(String(decoding: items, as: UTF8.self).replacing("</", with: "<\\/"))</script>
            <script src="/picker.js"></script></body></html>

            """.utf8)
    }
}
