@testable import GpickPicker
import GpickTerminal
import Testing

/// The terminal picker's pure parts: grid geometry, key decoding, and the canvas diff.
@Suite struct TerminalPickerPartsTests {
    @Test func verticalGridMovesByLaneAndLineAndScrollsToTheCursor() {
        // 100×30: 4 cells of 25 columns a row; square pictures of 24 columns are 12 rows + label.
        let l = TerminalGridLayout(columns: 100, rows: 30, perRow: 4, horizontal: false, count: 10)
        #expect(l.cellWidth == 25 && l.cellHeight == 13 && l.imageRows == 12 && l.visibleLines == 2)
        #expect(l.moved(0, .left) == 0 && l.moved(0, .right) == 1 && l.moved(3, .right) == 3, "no wrapping across lines")
        #expect(l.moved(1, .down) == 5 && l.moved(5, .up) == 1)
        #expect(l.moved(7, .down) == 9, "the last line is short: down lands on its last item")
        #expect(l.moved(9, .down) == 9 && l.moved(0, .end) == 9 && l.moved(9, .home) == 0)
        #expect(l.scrolled(0, toShow: 9) == 1 && l.scrolled(1, toShow: 0) == 0 && l.scrolled(0, toShow: 5) == 0)
        #expect(l.visible(firstLine: 1) == 4..<10)
        #expect(l.origin(of: 5, firstLine: 1)! == (row: 2, column: 26))
        #expect(l.origin(of: 1, firstLine: 1) == nil, "scrolled out of view")
    }

    @Test func horizontalStripFillsColumnsAndScrollsSideways() {
        let l = TerminalGridLayout(columns: 120, rows: 26, perRow: 2, horizontal: true, count: 9)
        // 24 grid rows: 2 cells of 12 rows (11 of picture); pictures 22 columns + gap.
        #expect(l.cellHeight == 12 && l.cellWidth == 23 && l.visibleLines == 5)
        #expect(l.moved(0, .down) == 1 && l.moved(1, .down) == 1 && l.moved(0, .right) == 2 && l.moved(3, .left) == 1)
        #expect(l.origin(of: 3, firstLine: 0)! == (row: 14, column: 24))
        #expect(l.scrolled(0, toShow: 8) == 0 && l.scrolled(0, toShow: 8) + l.visibleLines > l.place(8).line)
    }

    @Test func tinyTerminalsStillHoldOneCell() {
        let l = TerminalGridLayout(columns: 10, rows: 4, perRow: 50, horizontal: false, count: 3)
        #expect(l.visibleLines >= 1 && l.cellWidth >= 3 && l.imageRows >= 1)
        #expect(TerminalGridLayout(columns: 80, rows: 24, perRow: 4, horizontal: false, count: 0).moved(0, .down) == 0)
    }

    @Test func keysFromBytes() {
        var d = TerminalKeyDecoder()
        func feed(_ s: String) -> [TerminalKey] { Array(s.utf8).flatMap { d.feed($0) } }
        #expect(feed("\u{1B}[A\u{1B}[B\u{1B}OC\u{1B}[D") == [.up, .down, .right, .left])
        #expect(feed("\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[4~") == [.pageUp, .pageDown, .home, .end])
        #expect(feed("\r \u{7F}jé") == [.enter, .space, .character("\u{7F}"), .character("j"), .character("é")])
        // A lone Escape is only known once nothing followed it.
        #expect(feed("\u{1B}") == [] && d.pendingEscape)
        #expect(d.flush() == [.escape] && !d.pendingEscape)
        #expect(feed("\u{1B}\u{1B}") == [.escape] && d.flush() == [.escape])
        // The wait for what follows an Escape sees whether anything came since: an arrow whose
        // "[A" was read late is still an arrow.
        _ = feed("\u{1B}")
        let armed = d.fed
        #expect(feed("[A") == [.up] && d.fed == armed + 2 && !d.pendingEscape)
        // A terminal's late answer is swallowed, never read as Escape and letters.
        #expect(feed("\u{1B}_Gi=31;OK\u{1B}\\q") == [.character("q")])
        #expect(feed("\u{1B}[?62;4c") == [])
    }

    @Test func canvasDiffRedrawsOnlyWhatChanged() {
        var shown: TerminalCanvas?
        var a = TerminalCanvas(columns: 10, rows: 3)
        a.write("hello\u{1B}[2J", row: 1, column: 1, width: 10)
        let first = String(decoding: a.update(&shown), as: UTF8.self)
        #expect(first.hasPrefix("\u{1B}[0m\u{1B}[2J") && first.contains("hello") && first.ranges(of: "\u{1B}[2J").count == 1)
        #expect(shown?[1, 6].text == " ", "control characters become spaces")
        var b = a
        b.write("j", row: 1, column: 1, width: 1)
        let second = String(decoding: b.update(&shown), as: UTF8.self)
        #expect(second == "\u{1B}[1;1H\u{1B}[0mj\u{1B}[0m", "\(second.debugDescription)")
        #expect(b.update(&shown).isEmpty)
        // Pixels a few levels apart are noise, not a change; drift that adds up redraws.
        var c = b
        c[2, 2] = .pixels(top: 0x808080, bottom: 0x808080)
        _ = c.update(&shown)
        c[2, 2] = .pixels(top: 0x848484, bottom: 0x808080)
        #expect(c.update(&shown).isEmpty)
        c[2, 2] = .pixels(top: 0x8A8A8A, bottom: 0x808080)
        #expect(!c.update(&shown).isEmpty)
        var long = TerminalCanvas(columns: 6, rows: 1)
        long.write("abcdefgh", row: 1, column: 1, width: 6)
        #expect(long.glyphs.map { String($0.text) }.joined() == "abcde…")
    }
}
