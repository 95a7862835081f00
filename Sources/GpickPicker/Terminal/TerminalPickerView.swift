import GpickTerminal
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import GpickBase
import GpickImages
import GpickKit
import GpickLibrary

/// The picker drawn in a terminal: the grid, the cursor and the selection, keys, and a render
/// thread that draws whenever something changed (a key, a thumbnail, a camera frame, the
/// picker's state), at most 30 times a second. Drawing is in TerminalPickerDrawing.swift.
final class TerminalPickerView: Sendable {
    let picker: Picker
    let screen: TerminalScreen
    let graphics: TerminalGraphics
    let cellPixels: PixelBox
    let palette: TerminalPalette
    let thumbnails: TerminalThumbnails
    let view: Monitor<ViewState>
    /// Set when the render thread has ended (stop waits for it).
    let renderEnded = Signal()

    /// One item of the grid, in order: actions, the camera, then captures and assets.
    enum Cell: Sendable {
        case action(String)
        case camera
        case item(PickerItem)
    }

    struct ViewState {
        var columns: Int
        var rows: Int
        var cursor = 0
        var firstLine = 0
        /// Chosen item ids, in the order chosen.
        var selected: [String] = []
        var keys = TerminalKeyDecoder()
        var cameraFrame: RGBFrame?
        var cameraFrameNumber = 0
        /// A line about the last thing done ("took pick-0001.jpg", or what failed).
        var message: String?
        var busy = false
        var dirty = true
        var stopped = false
        /// Captures already selected when they arrived (each new one is selected once).
        var capturesSeen = 0
        var shownEmitted = false
        var stage = Picker.Stage.grid
        var drawing = TerminalPickerDrawing.Memory()
        /// Why the camera should rest: the terminal lost the focus; the cell is scrolled off the grid.
        var unfocused = false
        var cameraOffGrid = false
        /// Whether the last frame drawn had the camera cell (`auto` may find a camera only later).
        var cameraInGrid: Bool?
        /// What the picker was last told.
        var restingSent = false
    }

    init(picker: Picker, screen: TerminalScreen, graphics: TerminalGraphics, cellPixels: PixelBox, background: UInt32?) {
        self.picker = picker
        self.screen = screen
        self.graphics = graphics
        self.cellPixels = cellPixels
        palette = TerminalPalette.resolve(picker.configuration.appearance, background: background)
        let size = TerminalScreen.size(fd: screen.fd) ?? (80, 24)
        let view = Monitor(ViewState(columns: size.columns, rows: size.rows))
        self.view = view
        thumbnails = TerminalThumbnails(cache: picker.configuration.thumbnails) {
            view.withLock { $0.dirty = true }
        }
    }

    func start(typedAhead: [UInt8]) {
        let box = view.withLock { s in TerminalPickerDrawing.pictureBox(layout(s), graphics: graphics, cellPixels: cellPixels) }
        picker.terminalFrames.withLock { frames in
            frames = PickerFrames(box: box) { [weak self] frame in
                self?.view.withLock { s in
                    s.cameraFrame = frame
                    s.cameraFrameNumber += 1
                    s.dirty = true
                }
            }
        }
        screen.onResize { [weak self] columns, rows in self?.resized(columns, rows) }
        screen.onKey { [weak self] byte in self?.typed(byte) }
        // Focus in and out are reported as keys (CSI I, CSI O): the camera rests while the
        // terminal is behind another window. Turned off again when the screen is given back.
        screen.write(Array("\u{1B}[?1004h".utf8))
        for byte in typedAhead { typed(byte) }
        detachThread(named: "gpick-pick-draw") { [self] in renderLoop() }
        detachThread(named: "gpick-pick-watch") { [self] in watchPicker() }
    }

    /// Stops drawing, then gives the terminal back (before the result is printed).
    func stop() async {
        view.withLock { $0.stopped = true }
        thumbnails.close()
        await renderEnded.wait(timeout: 2)
        screen.restore()
    }

    // MARK: What is in the grid

    func cells() -> [Cell] {
        let layout = picker.currentLayout
        var cells = layout.actions.map(Cell.action)
        if layout.showsCamera { cells.append(.camera) }
        return cells + picker.allItems.map(Cell.item)
    }

    func layout(_ s: ViewState, count: Int? = nil) -> TerminalGridLayout {
        let c = picker.configuration.layout
        return TerminalGridLayout(columns: s.columns, rows: s.rows, perRow: c.itemsPerRow, horizontal: c.scroll == .horizontal,
                                  count: count ?? cells().count)
    }

    // MARK: Threads

    private func renderLoop() {
        defer { renderEnded.fire() }
        var last = ContinuousClock.now - .seconds(1)
        while true {
            let go = view.wait(until: { $0.dirty || $0.stopped }) { s -> Bool in
                s.dirty = false
                return !s.stopped
            }
            guard go else { return }
            // At most ~30 frames a second: the camera alone would otherwise draw as fast as it comes.
            let since = ContinuousClock.now - last
            if since < .milliseconds(33) { usleep(UInt32((Duration.milliseconds(33) - since).components.attoseconds / 1_000_000_000_000)) }
            last = .now
            draw()
        }
    }

    /// Wakes the render thread whenever the picker's state changes (a capture, the camera, an overlay).
    private func watchPicker() {
        var seen = -1
        while !view.withLock({ $0.stopped }) {
            let version = picker.state.wait(until: { $0.version != seen || $0.ended }, deadline: .now + .milliseconds(500)) { $0.version }
            if version != seen {
                seen = version
                view.withLock { $0.dirty = true }
            }
            if picker.state.withLock({ $0.ended }) { return }
        }
    }

    private func draw() {
        let cells = cells()
        let pickerState = picker.state.withLock { s in
            (s.camera, s.problems, s.captures.map(\.id), s.libraryLoaded, s.stage, s.notice, s.captures.first)
        }
        let (bytes, selection) = view.withLock { s -> ([UInt8], [String]?) in
            if s.stage != pickerState.4 {
                // Take-or-pick moved on: a new grid, from its first cell.
                s.stage = pickerState.4
                s.cursor = 0
                s.firstLine = 0
            }
            let grew = selectNewCaptures(pickerState.2, &s)
            if grew, !s.busy, let newest = pickerState.6, newest.kind == .video {
                // A video that stopped by itself at its longest length: no key asked, so say so here.
                s.message = "recorded \(lastComponent(newest.path))"
            }
            // The camera cell came (a camera plugged in) or went (`auto` found none): the cursor
            // stays on the cell it was on.
            let camera = cells.firstIndex { if case .camera = $0 { true } else { false } }
            if let was = s.cameraInGrid, was != (camera != nil) {
                let at = camera ?? picker.currentLayout.actions.count
                if s.cursor > at || (s.cursor == at && camera != nil && cells.count > 1) {
                    s.cursor = max(0, s.cursor + (camera != nil ? 1 : -1))
                }
            }
            s.cameraInGrid = camera != nil
            var d = TerminalPickerDrawing(view: self, cells: cells, camera: pickerState.0, problems: pickerState.1, notice: pickerState.5)
            return (d.frame(&s), grew ? s.selected : nil)
        }
        // A capture came in selected: the picker hears of it outside the view's lock.
        if let selection { picker.selectionChanged(to: selection) }
        screen.write(bytes)
        updateRest()
        let shown = view.withLock { s -> Int? in
            guard !s.shownEmitted, pickerState.3, s.drawing.pending == 0 else { return nil }
            s.shownEmitted = true
            return s.drawing.cellsDrawn
        }
        if let shown { picker.emit(.shown(cells: shown)) }
    }

    /// A capture made in the cell arrives selected (the newest replaces the choice in a
    /// single-choice picker).
    /// Returns whether the selection changed.
    private func selectNewCaptures(_ captures: [String], _ s: inout ViewState) -> Bool {
        guard captures.count > s.capturesSeen else { return false }
        let fresh = captures.prefix(captures.count - s.capturesSeen)
        s.capturesSeen = captures.count
        if picker.configuration.allowsMultiple {
            s.selected += fresh.reversed().filter { !s.selected.contains($0) }
        } else if let newest = fresh.first {
            s.selected = [newest]
        }
        // The grid grew at its head: the cursor stays on the item it was on.
        let cameraIndex = cellIndexOfCamera
        if let cameraIndex, s.cursor > cameraIndex { s.cursor += fresh.count }
        return true
    }

    /// Tells the picker whether the camera should rest: the terminal unfocused, or the camera cell
    /// scrolled off the grid. Only changes are told.
    func updateRest(focus: Bool? = nil) {
        // Queued under the view's lock: keys and drawing may both call this, and the picker must
        // hear the changes in the order they were decided (picker.rest only takes its own lock).
        view.withLock { s in
            if let focus { s.unfocused = !focus }
            if let camera = cellIndexOfCamera {
                let l = layout(s)
                let line = l.place(camera).line
                s.cameraOffGrid = line < s.firstLine || line >= s.firstLine + l.visibleLines
            } else {
                s.cameraOffGrid = false
            }
            let rest = s.unfocused || s.cameraOffGrid
            guard rest != s.restingSent else { return }
            s.restingSent = rest
            picker.rest(rest)
        }
    }

    var cellIndexOfCamera: Int? {
        let layout = picker.currentLayout
        return layout.showsCamera ? layout.actions.count : nil
    }

    private func resized(_ columns: Int, _ rows: Int) {
        let box = view.withLock { s -> PixelBox in
            s.columns = columns
            s.rows = rows
            s.drawing.forget()
            s.dirty = true
            return TerminalPickerDrawing.pictureBox(layout(s), graphics: graphics, cellPixels: cellPixels)
        }
        thumbnails.dropWaiting()
        Task {
            try? await picker.cameraBox.withLock({ $0 })?.setFrameBox(box)
        }
    }
}
