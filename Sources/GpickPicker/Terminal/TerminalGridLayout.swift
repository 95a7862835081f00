/// Where the terminal picker's cells go: pure geometry over the screen's size, so it is tested
/// without a terminal. Row 1 is the title, the last row the key help; the grid is between.
///
/// Vertical scrolling: rows of `perRow` cells, scrolled by whole rows. Horizontal (a
/// keyboard-like strip): columns of `perRow` cells, filled top to bottom, scrolled sideways.
/// A cell is an image of `imageColumns` × `imageRows` terminal cells with a label row under it,
/// and one blank column to its right. Images are about square: a cell is two pixels stacked.
struct TerminalGridLayout: Equatable, Sendable {
    let columns: Int
    let rows: Int
    let perRow: Int
    let horizontal: Bool
    let count: Int
    /// Terminal columns and rows of one cell, gap and label included.
    let cellWidth: Int
    let cellHeight: Int
    /// Cells across the scroll direction (`perRow`) and lines of them that fit along it.
    let visibleLines: Int

    static let gridTop = 2
    var gridRows: Int { max(1, rows - 2) }
    var imageColumns: Int { max(1, cellWidth - 1) }
    var imageRows: Int { max(1, cellHeight - 1) }
    /// Lines of cells (rows when vertical, columns when horizontal).
    var lines: Int { count == 0 ? 0 : (count + perRow - 1) / perRow }

    init(columns: Int, rows: Int, perRow: Int, horizontal: Bool, count: Int) {
        self.columns = max(1, columns)
        self.rows = max(3, rows)
        self.perRow = max(1, perRow)
        self.horizontal = horizontal
        self.count = max(0, count)
        let gridRows = max(1, self.rows - 2)
        if horizontal {
            // perRow cells stacked in the grid's height; widths follow for square images.
            let height = max(2, gridRows / self.perRow)
            cellHeight = height
            cellWidth = min(self.columns, max(3, (height - 1) * 2 + 1))
            visibleLines = max(1, self.columns / cellWidth)
        } else {
            let width = max(3, self.columns / self.perRow)
            cellWidth = width
            // Square images (width columns ≈ width/2 rows), but at least one whole cell in view.
            cellHeight = min(gridRows, max(2, (width - 1) / 2 + 1))
            visibleLines = max(1, gridRows / cellHeight)
        }
    }

    /// Which line and lane (position across the line) an item is on.
    func place(_ index: Int) -> (line: Int, lane: Int) { (index / perRow, index % perRow) }

    /// The first line to show so that `index` is in view, moving `firstLine` as little as possible.
    func scrolled(_ firstLine: Int, toShow index: Int) -> Int {
        guard count > 0 else { return 0 }
        let line = place(min(max(0, index), count - 1)).line
        var first = firstLine
        if line < first { first = line }
        if line >= first + visibleLines { first = line - visibleLines + 1 }
        return max(0, min(first, max(0, lines - visibleLines)))
    }

    /// The top-left terminal cell (1-based row, column) of an item when it is in view.
    func origin(of index: Int, firstLine: Int) -> (row: Int, column: Int)? {
        guard index >= 0, index < count else { return nil }
        let (line, lane) = place(index)
        guard line >= firstLine, line < firstLine + visibleLines else { return nil }
        let shown = line - firstLine
        if horizontal {
            let row = Self.gridTop + lane * cellHeight
            guard row + cellHeight - 1 <= rows - 1 else { return nil }
            return (row, 1 + shown * cellWidth)
        }
        guard lane * cellWidth + cellWidth <= columns + 1 else { return nil }
        return (Self.gridTop + shown * cellHeight, 1 + lane * cellWidth)
    }

    /// Items in view, in order.
    func visible(firstLine: Int) -> Range<Int> {
        let start = min(count, firstLine * perRow)
        return start..<min(count, (firstLine + visibleLines) * perRow)
    }

    enum Move { case left, right, up, down, pageUp, pageDown, home, end }

    /// Where the cursor goes. Along the scroll direction it moves a line at a time; across it, a
    /// lane, never wrapping into the next line.
    func moved(_ index: Int, _ move: Move) -> Int {
        guard count > 0 else { return 0 }
        let (line, lane) = place(index)
        var target = index
        // "Across" is left/right when scrolling down, up/down when scrolling sideways.
        let acrossBack: Move = horizontal ? .up : .left, acrossOn: Move = horizontal ? .down : .right
        let alongBack: Move = horizontal ? .left : .up, alongOn: Move = horizontal ? .right : .down
        switch move {
        case acrossBack: if lane > 0 { target = index - 1 }
        case acrossOn: if lane < perRow - 1 { target = index + 1 }
        case alongBack: if line > 0 { target = index - perRow }
        case alongOn: target = line + 1 < lines ? min(count - 1, index + perRow) : index
        case .pageUp: target = max(lane, index - perRow * visibleLines)
        case .pageDown: target = min(count - 1, index + perRow * visibleLines)
        case .home: target = 0
        case .end: target = count - 1
        default: break
        }
        return min(max(0, target), count - 1)
    }
}
