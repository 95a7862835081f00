import Foundation
import GpickBase

/// The editor's one page and its two assets, served by gpick (no framework, no network fetch).
enum AvatarEditorPage {
    static let script = PackageResources.avatar_js
    static let style = PackageResources.avatar_css

    /// The page, with what avatar.js starts from: the model (its image by id), the images it
    /// may name, and what the editor offers.
    static func html(editor: AvatarEditor, token: String) -> [UInt8] {
        let c = editor.configuration
        var model: [String: JSONValue] = [:]
        if case .object(let start)? = try? JSONDecoder().decode(JSONValue.self, from: Data(c.start.json())) { model = start }
        if let image = c.start.image { model["image"] = JSONValue(fields: ["id": "m0", "focus": [image.focus.x, image.focus.y]]) }
        let images = editor.state.withLock { s in s.images.map { ["id": $0.key, "label": $0.value.label] } }
        let settings: JSONFields = [
            "model": JSONValue.object(model), "images": images, "camera": c.takePhoto != nil, "cameraUnavailable": c.cameraUnavailable ?? "",
            "library": c.indexPath != nil,
            "previewSide": c.previewSide, "output": c.output.path, "palette": AvatarPalette.gradients.map { [$0.top.description, $0.bottom.description] },
        ]
        let json = JSONValue(fields: settings).line ?? "{}"
        // "</" inside the JSON would end the script element early.
        let safe = json.replacing("</", with: "<\\/")
        return Array("""
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <meta name="gpick-token" content="\(token)">
            <title>Profile image</title><link rel="stylesheet" href="/avatar.css"></head>
            <body>
            <header><h1>Profile image</h1><span id="status" role="status"></span>
            <button id="cancel" type="button">Cancel</button>
            <button id="close" type="button" title="Save and close" aria-label="Save and close">✕</button></header>
            <main>
            <section id="stage"><div id="drop" tabindex="0" aria-label="Preview: drop or paste an image here">
            <img id="preview" alt="Preview of the profile image" width="\(c.previewSide)" height="\(c.previewSide)"></div>
            <p class="hint">Drop or paste an image on the preview.</p></section>
            <section id="controls">
            <label>Text <input id="text" type="text" autocomplete="off"></label>
            <label>Show <select id="mode"><option value="auto">initials of a name</option><option value="initials">initials</option>
            <option value="literal">the text as typed</option></select></label>
            <div id="sources" role="group" aria-label="Background">
            <button id="color-button" class="source" type="button" aria-pressed="false">Color</button>
            <button id="camera" class="source" type="button">Camera</button>
            <button id="library" class="source" type="button">Library</button>
            <label class="source">File <input id="file" type="file" accept="image/*"></label></div>
            <fieldset id="colours"><legend>Colours</legend>
            <input id="color1" type="color" aria-label="Top colour"> <input id="color2" type="color" aria-label="Bottom colour">
            <label><input id="gradient" type="checkbox"> Gradient</label>
            <div id="recent" role="group" aria-label="Last colours"></div></fieldset>
            <fieldset id="focus" hidden><legend>Crop</legend>
            <label>Across <input id="focus-x" type="range" min="0" max="100"></label>
            <label>Down <input id="focus-y" type="range" min="0" max="100"></label></fieldset>
            <label>Shape <select id="shape"><option value="circle">circle</option><option value="round-rect">round rectangle</option>
            <option value="square">square</option></select></label>
            <label id="radius-label">Corner <input id="radius" type="range" min="0" max="50"></label>
            <label>Text colour <select id="text-color-mode"><option value="auto">automatic</option><option value="custom">custom</option></select>
            <input id="text-color" type="color" aria-label="Text colour"></label>
            <label>Size <input id="size" type="number" min="1" max="4096"></label>
            </section>
            <section id="library-grid" hidden aria-label="Library"></section>
            </main>
            <script id="config" type="application/json">\(safe)</script>
            <script src="/avatar.js"></script></body></html>

            """.utf8)
    }
}
