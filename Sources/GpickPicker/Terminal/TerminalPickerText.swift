import GpickTerminal
import GpickBase
import GpickKit

/// The text of the terminal picker: title row, cell labels, the camera cell's state, overlays
/// (why the library or the camera is missing, and how to fix it) and the key help.
extension TerminalPickerDrawing {
    func header(_ canvas: inout TerminalCanvas, _ s: TerminalPickerView.ViewState) {
        let c = view.picker.configuration
        let palette = view.palette
        let bar = Glyph(fg: palette.barText, bg: palette.bar)
        canvas.fill(row: 1, column: 1, width: canvas.columns, height: 1, with: bar)
        let title = " " + c.title + " "
        canvas.write(title, row: 1, column: 1, width: canvas.columns, style: Glyph(fg: palette.onAccent, bg: palette.accent, bold: true))
        let items = cells.filter { if case .item = $0 { true } else { false } }.count
        var info: String
        switch view.picker.stage {
        case .choose: info = " Take a photo, or choose one from the library"
        case .take: info = " Enter takes the photo"
        case .grid, .library: info = " \(items) item\(items == 1 ? "" : "s") · \(s.selected.count) selected"
        }
        if view.picker.currentLayout.showsCamera {
            info += " · camera \(camera.state == .live ? camera.position.rawValue : camera.state.rawValue)"
            if camera.live { info += " · LIVE" }
            if camera.recording { info += " · ● REC" }
        }
        if let message = s.message { info += " · " + message }
        if let notice { info += " · " + notice }
        canvas.write(info, row: 1, column: title.count + 1, width: canvas.columns - title.count, style: bar)
    }

    func label(_ canvas: inout TerminalCanvas, index: Int, origin: (row: Int, column: Int), l: TerminalGridLayout,
               s: TerminalPickerView.ViewState) {
        let isCursor = index == s.cursor
        var selected = false
        var text: String
        switch cells[index] {
        case .action(let name): text = view.picker.stage == .choose ? name : "action: " + name
        case .camera: text = "camera · Enter snaps"
        case .item(let item):
            let order = s.selected.firstIndex(of: item.id)
            selected = order != nil
            let name = item.path.split(separator: "/").last.map(String.init) ?? item.path
            let mark = order.map { view.picker.configuration.allowsMultiple ? "✓\($0 + 1) " : "✓ " } ?? ""
            text = mark + (item.badges + [name]).joined(separator: " ")
        }
        // The cursor is a marker and reverse video, so it shows without colour too.
        let palette = view.palette
        let style = isCursor ? Glyph(fg: palette.onAccent, bg: palette.accent, bold: true)
            : selected ? Glyph(fg: palette.selected, bg: Glyph.none, bold: true) : Glyph(fg: palette.label)
        canvas.fill(row: origin.row + l.imageRows, column: origin.column, width: l.imageColumns, height: 1, with: style)
        canvas.write((isCursor ? "›" : " ") + text, row: origin.row + l.imageRows, column: origin.column,
                     width: l.imageColumns, style: style)
        if selected {
            // A selected picture gets a frame line on its left edge as well.
            for r in origin.row..<(origin.row + l.imageRows) {
                var g = canvas[r, origin.column]
                if g.image == 0 { g.text = "▌"; g.fg = palette.selected; canvas[r, origin.column] = g }
            }
        }
    }

    /// The camera cell when it shows no live picture: its last frame (dimmed), if it had one,
    /// under why (starting, waking, suspended, failed).
    func cameraText(_ canvas: inout TerminalCanvas, origin: (row: Int, column: Int), l: TerminalGridLayout, frame: RGBFrame?) {
        if let frame {
            // Half blocks whatever the protocol: the text goes over it.
            let dim = frame.bytes.map { UInt8(Int($0) * 2 / 5) }
            let w = min(frame.width, l.imageColumns), h = min(frame.height, l.imageRows * 2)
            canvas.pixels(dim, width: w, height: h, stride: frame.stride, row: origin.row, column: origin.column)
        }
        let lines: [String]
        switch camera.state {
        case .starting: lines = ["camera starting…"]
        case .suspended: lines = ["camera suspended", camera.reason ?? ""]
        default: lines = ["camera " + camera.state.rawValue + ":", camera.reason ?? ""]
        }
        let wrapped = lines.flatMap { Self.wrap($0, width: max(1, l.imageColumns - 2)) }.prefix(max(1, l.imageRows))
        let top = origin.row + max(0, (l.imageRows - wrapped.count) / 2)
        for (i, line) in wrapped.enumerated() {
            canvas.write(line, row: top + i, column: origin.column + 1, width: l.imageColumns - 2,
                         style: Glyph(fg: view.palette.noteText, bg: view.palette.note))
        }
    }

    func overlays(_ canvas: inout TerminalCanvas, l: TerminalGridLayout, s: TerminalPickerView.ViewState, empty: Bool) {
        let c = view.picker.configuration
        // The keys that end the picker first: a narrow terminal cuts the end of the line.
        var help = "Enter confirm · space select · Esc/q cancel · ←↓↑→/hjkl move"
        if view.picker.currentLayout.showsCamera {
            help += " · s snap · f flip"
            if c.capture.cameraMode == .photoAndLive { help += " · l live" }
            help += " · r record"
        }
        let footer = Glyph(fg: view.palette.footerText, bg: view.palette.footer)
        canvas.fill(row: canvas.rows, column: 1, width: canvas.columns, height: 1, with: footer)
        canvas.write(" " + help, row: canvas.rows, column: 1, width: canvas.columns, style: footer)
        // Overlays sit over the bottom of the grid, newest last, each line whole.
        let lines = problems.flatMap { Self.wrap("! " + $0, width: max(1, canvas.columns - 2)) }.suffix(max(0, canvas.rows - 3))
        let first = canvas.rows - lines.count
        for (i, line) in lines.enumerated() {
            let style = Glyph(fg: view.palette.problemText, bg: view.palette.problem, bold: true)
            canvas.fill(row: first + i, column: 1, width: canvas.columns, height: 1, with: style)
            canvas.write(" " + line, row: first + i, column: 1, width: canvas.columns, style: style)
        }
        if empty {
            canvas.write("Nothing to pick: the library shows no photos or videos here.", row: TerminalGridLayout.gridTop + 1,
                         column: 3, width: canvas.columns - 4)
        }
    }

    /// Words onto lines of at most `width` (a longer word is cut by the canvas).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
