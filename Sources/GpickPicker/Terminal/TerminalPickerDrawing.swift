import GpickTerminal
import GpickBase
import GpickKit

/// One frame of the terminal picker: the title row, the cells in view, overlays and the key
/// help, composed on a canvas and written as a diff against what is on screen. Pictures are
/// half blocks in the canvas, or kitty or sixel images drawn over cells the canvas leaves alone.
struct TerminalPickerDrawing {
    /// What drawing keeps from frame to frame (in the view's state).
    struct Memory {
        var shown: TerminalCanvas?
        /// Pictures on screen by kitty or sixel, by cell origin: which picture, which version.
        var pictures: [Int: Mark] = [:]
        /// Kitty image ids, and which have their data at the terminal.
        var imageIDs: [String: UInt32] = [:]
        var transmitted: Set<UInt32> = []
        var nextImageID: UInt32 = 1
        /// Cells in view still waiting for their picture, and cells drawn, in the last frame.
        var pending = 0
        var cellsDrawn = 0
        /// Draw everything again (a resize; the screen was cleared).
        mutating func forget() {
            shown = nil
            pictures = [:]
            transmitted = []
        }
    }

    struct Mark: Equatable {
        var image: UInt32
        var version: Int
    }

    let view: TerminalPickerView
    let cells: [TerminalPickerView.Cell]
    let camera: Picker.CameraStatus
    let problems: [String]
    /// Why there is no camera cell, in the title row.
    let notice: String?

    static let cameraImage: UInt32 = 0xFFFF_0000

    init(view: TerminalPickerView, cells: [TerminalPickerView.Cell], camera: Picker.CameraStatus, problems: [String], notice: String? = nil) {
        self.view = view
        self.cells = cells
        self.camera = camera
        self.problems = problems
        self.notice = notice
    }

    /// A cell's picture box (the camera's frames, the thumbnails) for a layout: the image area in
    /// half-block pixels, or in the terminal's pixels for kitty and sixel.
    static func pictureBox(_ l: TerminalGridLayout, graphics: TerminalGraphics, cellPixels: PixelBox) -> PixelBox {
        switch graphics {
        case .blocks: return PixelBox(width: l.imageColumns, height: l.imageRows * 2)
        case .kitty: return PixelBox(width: l.imageColumns * cellPixels.width, height: l.imageRows * cellPixels.height)
        // Sixel draws bands of 6 pixels: a box of whole bands never spills into the label row.
        case .sixel: return PixelBox(width: l.imageColumns * cellPixels.width, height: l.imageRows * cellPixels.height / 6 * 6)
        }
    }

    mutating func frame(_ s: inout TerminalPickerView.ViewState) -> [UInt8] {
        let l = view.layout(s, count: cells.count)
        s.cursor = min(max(0, s.cursor), max(0, cells.count - 1))
        s.firstLine = l.scrolled(s.firstLine, toShow: s.cursor)
        var canvas = TerminalCanvas(columns: l.columns, rows: l.rows)
        header(&canvas, s)
        var pictures: [(origin: (row: Int, column: Int), mark: Mark, rgb: () -> [UInt8])] = []
        let box = Self.pictureBox(l, graphics: view.graphics, cellPixels: view.cellPixels)
        var pending = 0
        let range = l.visible(firstLine: s.firstLine)
        for index in range {
            guard let origin = l.origin(of: index, firstLine: s.firstLine) else { continue }
            canvas.fill(row: origin.row, column: origin.column, width: l.imageColumns, height: l.imageRows,
                        with: Glyph(text: " ", bg: view.palette.cell))
            var picture: (rgb: [UInt8], width: Int, height: Int, mark: Mark)?
            switch cells[index] {
            case .action(let name):
                let middle = origin.row + l.imageRows / 2
                canvas.write(name, row: middle, column: origin.column + 1, width: l.imageColumns - 2,
                             style: Glyph(fg: view.palette.cellText, bg: view.palette.cell, bold: true))
            case .camera:
                if let frame = s.cameraFrame, camera.state == .live {
                    picture = (frame.bytes, frame.width, frame.height, Mark(image: Self.cameraImage, version: s.cameraFrameNumber))
                } else {
                    cameraText(&canvas, origin: origin, l: l, frame: s.cameraFrame)
                }
            case .item(let item):
                if let p = view.thumbnails.picture(for: item, box: box) {
                    picture = (p.rgb, p.width, p.height, Mark(image: imageID(item.id, &s.drawing), version: 0))
                } else if let why = view.thumbnails.failure(for: item.id) {
                    // What it is and why it cannot be shown, as the page says it; still choosable.
                    let name = item.path.split(separator: "/").last.map(String.init) ?? item.path
                    let lines = [(name, view.palette.cellText, true), ("\(item.kind.rawValue), no preview", view.palette.dimText, false),
                                 (PickerItem.shortReason(why), view.palette.dimText, false)]
                    let top = origin.row + max(0, (l.imageRows - lines.count) / 2)
                    for (i, line) in lines.enumerated() where i < l.imageRows {
                        canvas.write(line.0, row: top + i, column: origin.column + 1, width: l.imageColumns - 2,
                                     style: Glyph(fg: line.1, bg: view.palette.cell, bold: line.2))
                    }
                } else {
                    pending += 1
                }
            }
            if let picture {
                if view.graphics == .blocks {
                    let top = origin.row + max(0, (l.imageRows * 2 - picture.height) / 4)
                    let left = origin.column + max(0, (l.imageColumns - picture.width) / 2)
                    canvas.pixels(picture.rgb, width: picture.width, height: picture.height, stride: picture.width * 3, row: top, column: left)
                } else {
                    canvas.fill(row: origin.row, column: origin.column, width: l.imageColumns, height: l.imageRows,
                                with: Glyph(image: picture.mark.image))
                    let p = picture
                    pictures.append((origin, p.mark, { Self.padded(p.rgb, width: p.width, height: p.height, into: box) }))
                }
            }
            label(&canvas, index: index, origin: origin, l: l, s: s)
        }
        overlays(&canvas, l: l, s: s, empty: cells.isEmpty)
        s.drawing.pending = pending
        s.drawing.cellsDrawn = range.count - pending

        var out = Array("\u{1B}[?2026h".utf8)
        let full = s.drawing.shown == nil || s.drawing.shown!.columns != canvas.columns || s.drawing.shown!.rows != canvas.rows
        if full {
            s.drawing.pictures = [:]
            if view.graphics == .kitty { out += KittyGraphics.deleteAll(); s.drawing.transmitted = [] }
        }
        out += canvas.update(&s.drawing.shown)
        out += emit(pictures, box: box, l: l, &s.drawing)
        out += Array("\u{1B}[?2026l".utf8)
        return out
    }

    /// Kitty or sixel pictures that are new or changed where they are; kitty placements of
    /// pictures no longer in view are taken down.
    private func emit(_ pictures: [(origin: (row: Int, column: Int), mark: Mark, rgb: () -> [UInt8])], box: PixelBox,
                      l: TerminalGridLayout, _ m: inout Memory) -> [UInt8] {
        var out: [UInt8] = []
        var now: [Int: Mark] = [:]
        for p in pictures {
            let key = p.origin.row << 16 | p.origin.column
            now[key] = p.mark
            guard m.pictures[key] != p.mark else { continue }
            out += Array("\u{1B}[\(p.origin.row);\(p.origin.column)H".utf8)
            let rgb = p.rgb()
            if view.graphics == .sixel {
                out += rgb.withUnsafeBytes { SixelEncoder.encode(rgb: $0, width: box.width, height: box.height, stride: box.width * 3) }
            } else {
                if p.mark.image == Self.cameraImage || !m.transmitted.contains(p.mark.image) {
                    out += rgb.withUnsafeBytes { KittyGraphics.transmit(id: p.mark.image, rgb: $0, width: box.width, height: box.height, stride: box.width * 3) }
                    m.transmitted.insert(p.mark.image)
                }
                out += KittyGraphics.place(id: p.mark.image, placement: 1, columns: l.imageColumns, rows: l.imageRows)
            }
        }
        if view.graphics == .kitty {
            let shownImages = Set(now.values.map(\.image))
            for old in Set(m.pictures.values.map(\.image)) where !shownImages.contains(old) {
                out += KittyGraphics.deletePlacements(id: old)
            }
        }
        m.pictures = now
        return out
    }

    private func imageID(_ id: String, _ m: inout Memory) -> UInt32 {
        if let known = m.imageIDs[id] { return known }
        let new = m.nextImageID
        m.nextImageID += 1
        m.imageIDs[id] = new
        return new
    }

    /// A picture centred in its box on the cell background: kitty and sixel draw whole boxes.
    static func padded(_ rgb: [UInt8], width: Int, height: Int, into box: PixelBox) -> [UInt8] {
        var out = [UInt8](repeating: 0x18, count: box.width * box.height * 3)
        let w = min(width, box.width), h = min(height, box.height)
        let left = (box.width - w) / 2, top = (box.height - h) / 2
        for y in 0..<h {
            let from = y * width * 3, to = ((top + y) * box.width + left) * 3
            out.replaceSubrange(to..<(to + w * 3), with: rgb[from..<(from + w * 3)])
        }
        return out
    }
}
