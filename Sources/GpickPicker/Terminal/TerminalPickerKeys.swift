import GpickTerminal
import Dispatch
import GpickBase
import GpickKit
import GpickLibrary

/// The terminal picker's keys: arrows or hjkl move, space selects, Enter confirms (on the camera
/// cell it takes a photo, on an action it chooses it), f flips, s snaps, l toggles live,
/// r records, Esc or q cancels. Keys arrive on the screen's own queue, never the pool.
extension TerminalPickerView {
    func typed(_ byte: UInt8) {
        let (keys, waits, fed) = view.withLock { s -> ([TerminalKey], Bool, Int) in
            let keys = s.keys.feed(byte)
            return (keys, s.keys.pendingEscape, s.keys.fed)
        }
        for key in keys { handle(key) }
        if waits {
            // A lone Escape is the Escape key only if nothing follows within 50 ms. The wait runs
            // on the keys' own queue, after the rest of the read that brought the Escape: on a
            // busy machine, a timer elsewhere once fired between an arrow's ESC and its "[A",
            // and the arrow cancelled the picker.
            screen.afterKeys(.milliseconds(50)) { [weak self] in
                guard let self else { return }
                let keys = self.view.withLock { s in s.keys.fed == fed ? s.keys.flush() : [] }
                for key in keys { self.handle(key) }
            }
        }
    }

    func handle(_ key: TerminalKey) {
        switch key {
        case .focusIn: updateRest(focus: true)
        case .focusOut: updateRest(focus: false)
        case .up, .character("k"): move(.up)
        case .down, .character("j"): move(.down)
        case .left, .character("h"): move(.left)
        case .character("l") where liveOnOffer: cameraAction("live photos…") { () async throws(GpickError) -> String in try await self.toggleLive() }
        case .right, .character("l"): move(.right)
        case .pageUp: move(.pageUp)
        case .pageDown: move(.pageDown)
        case .home, .character("g"): move(.home)
        case .end, .character("G"): move(.end)
        case .space: toggleSelection()
        case .enter: enter()
        case .escape, .character("q"): picker.finish(.cancelled)
        case .character("s"): cameraAction("taking a photo…") { () async throws(GpickError) -> String in try await self.snap() }
        case .character("f"): cameraAction("flipping…") { () async throws(GpickError) -> String in try await self.flip() }
        case .character("r"): cameraAction(nil) { () async throws(GpickError) -> String in try await self.toggleRecording() }
        default: break
        }
    }

    private var hasCamera: Bool { picker.currentLayout.showsCamera }
    /// `l` toggles live photos when they are on offer; otherwise it is hjkl's right, as on the page.
    private var liveOnOffer: Bool { hasCamera && picker.configuration.capture.cameraMode == .photoAndLive }

    private func move(_ move: TerminalGridLayout.Move) {
        let count = cells().count
        view.withLock { s in
            let l = layout(s, count: count)
            s.cursor = l.moved(min(s.cursor, max(0, count - 1)), move)
            s.firstLine = l.scrolled(s.firstLine, toShow: s.cursor)
            s.dirty = true
        }
    }

    private func cursorCell() -> TerminalPickerView.Cell? {
        let cells = cells()
        let i = view.withLock { $0.cursor }
        return i < cells.count ? cells[i] : nil
    }

    private func toggleSelection() {
        switch cursorCell() {
        case .item(let item):
            let now = view.withLock { s -> [String] in
                if let i = s.selected.firstIndex(of: item.id) {
                    s.selected.remove(at: i)
                } else if picker.configuration.allowsMultiple {
                    s.selected.append(item.id)
                } else {
                    s.selected = [item.id]
                }
                s.dirty = true
                return s.selected
            }
            picker.selectionChanged(to: now)
        case .camera: cameraAction("taking a photo…") { () async throws(GpickError) -> String in try await self.snap() }
        default: break
        }
    }

    /// Enter: an action ends the picker with it; the camera cell takes a photo; on an asset it
    /// confirms the selection, or the item under the cursor when nothing is selected (as the page).
    private func enter() {
        switch cursorCell() {
        case .action(let name):
            do throws(GpickError) { try picker.choose(action: name) } catch { note(error.message) }
        case .camera: cameraAction("taking a photo…") { () async throws(GpickError) -> String in try await self.snap() }
        case .item(let item):
            let ids = view.withLock { s in s.selected.isEmpty ? [item.id] : s.selected }
            let items = ids.compactMap(picker.item(id:))
            if !items.isEmpty { picker.finish(.picked(items)) }
        case nil: break
        }
    }

    // MARK: The camera

    /// Runs a camera action in the background; its result or failure becomes the message line.
    private func cameraAction(_ doing: String?, _ work: @escaping @Sendable () async throws(GpickError) -> String) {
        guard hasCamera else { return note(picker.configuration.words(.noCameraCell)) }
        let start = view.withLock { s -> Bool in
            guard !s.busy else { return false }
            s.busy = doing != nil
            if let doing { s.message = doing }
            s.dirty = true
            return true
        }
        guard start else { return }
        Task {
            let message: String
            do throws(GpickError) { message = try await work() } catch { message = error.message }
            view.withLock { s in
                s.busy = false
                s.message = message
                s.dirty = true
            }
        }
    }

    private func note(_ text: String) {
        view.withLock { s in
            s.message = text
            s.dirty = true
        }
    }

    private func snap() async throws(GpickError) -> String {
        let camera = try picker.requireCamera()
        let files = try await camera.snap()
        let item = try await picker.captured(files, kind: .photo)
        return "took \(lastComponent(item.path))"
    }

    private func flip() async throws(GpickError) -> String {
        let camera = try picker.requireCamera()
        let position = try await camera.flip()
        picker.setCamera { $0.position = position }
        return "camera: \(position.rawValue)"
    }

    private func toggleLive() async throws(GpickError) -> String {
        let camera = try picker.requireCamera()
        let on = !(await camera.liveOn)
        try await camera.setLive(on)
        picker.setCamera { $0.live = on }
        return on ? "live photos on" : "live photos off"
    }

    private func toggleRecording() async throws(GpickError) -> String {
        // The key says what the screen shows: r on a recording cell stops it, never starts one.
        let recording = picker.state.withLock { $0.camera.recording }
        guard let item = try await picker.video(!recording) else { return recording ? "the video had ended at its longest" : "recording… (r stops)" }
        return "recorded \(lastComponent(item.path))"
    }

    /// The file's name, as the status line shows a capture.
    func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
