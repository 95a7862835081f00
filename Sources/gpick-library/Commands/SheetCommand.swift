import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickImages
import GpickLibrary

/// `gpick library sheet [QUERY] -o FILE`: the assets `library list` would list, drawn in a grid.
struct SheetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheet",
        abstract: "Draw a contact sheet of the library's assets: their thumbnails in a grid, with badges.",
        discussion: """
            QUERY and the options --kind, --since and --limit choose the assets as `gpick library list` does: \
            newest added first, a burst once (as its first photo). Each cell is the asset's thumbnail from the \
            freedesktop cache ($XDG_CACHE_HOME/thumbnails, made there when missing, so file managers reuse it), \
            fit and centred on grey: a live photo shows its still, a video a frame about a third in. \
            A badge on the cell's lower left says LIVE (Apple live pairs and Motion Photos), ▶ m:ss (a video's \
            length, h:mm:ss from an hour on), burst ×N or PANO.

            The sheet is COLUMNS cells wide (fewer when fewer assets match), with GAP pixels between and around \
            the cells: COLUMNS × CELL + (COLUMNS + 1) × GAP pixels wide. It is written atomically (a temp file \
            in the same folder, renamed); its format follows its extension: \(ThumbnailFormat.extensions).

            An asset that cannot be drawn gets a grey cell with a "?" and one warning line naming its file; the \
            sheet is still written, and the exit status is 0. When no asset matches, or none could be drawn, \
            nothing is written and the exit status is 65.
            """
    )

    @OptionGroup var library: LibraryOptions

    @OptionGroup var filter: QueryOptions

    @Option(name: .long, help: ArgumentHelp("Cells in a row, \(range(ContactSheet.columnRange)).", valueName: "COLUMNS"))
    var columns = 6

    @Option(name: .long, help: ArgumentHelp("The side of a cell in pixels, \(range(ContactSheet.cellRange)).", valueName: "CELL"))
    var cell = 256

    @Option(name: .long, help: ArgumentHelp("Pixels between the cells and around them, \(range(ContactSheet.gapRange)).", valueName: "GAP"))
    var gap = 8

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the sheet: a .png, .jpg, .jpeg or .webp file.", valueName: "FILE"))
    var output: String

    static func range(_ r: ClosedRange<Int>) -> String { "\(r.lowerBound) to \(r.upperBound)" }

    func validate() throws {
        for (flag, value, allowed) in [("--columns", columns, ContactSheet.columnRange), ("--cell", cell, ContactSheet.cellRange),
                                       ("--gap", gap, ContactSheet.gapRange)] where !allowed.contains(value) {
            throw ValidationError("\(flag) must be \(Self.range(allowed)), not \(value)")
        }
        guard !output.isEmpty else { throw ValidationError("-o: the file name is empty") }
        guard ThumbnailFormat(fileName: output) != nil else {
            throw ValidationError("cannot tell the format of \(output) from its name: end it in \(ThumbnailFormat.extensions)")
        }
    }

    func run() async throws {
        let events = Events(json: library.json, command: "library sheet")
        try await reporting(events) {
            // The output first: a missing or unwritable folder is said before anything is decoded.
            let target = try OutputPath(output)
            guard let format = ThumbnailFormat(fileName: target.name) else {
                throw GpickError(.usage, "cannot tell the format of \(output) from its name: end it in \(ThumbnailFormat.extensions)")
            }
            // Opening would make an empty index: a library never scanned is said as such.
            guard fileStatus(library.indexPath) != nil else {
                throw GpickError(.input, "the library has no index yet: nothing to draw (`gpick library scan` makes one)")
            }
            let index = try await library.openIndex()
            let query = filter.query(roots: library.roots)
            let items = try await OffPool.run { () throws(GpickError) in try index.list(query) }
            guard !items.isEmpty else {
                let given = filter.described
                throw GpickError(.input, "no asset of the library matches\(given.isEmpty ? "" : " " + given): nothing to draw (`gpick library list` shows what there is)")
            }
            let sheet = ContactSheet(columns: columns, cell: cell, gap: gap)
            let layout = sheet.layout(count: items.count)
            do throws(GpickError) {
                try ContactSheet.check(layout, format: format)
            } catch {
                throw GpickError(.usage, "\(error.message) (draw fewer assets with --limit or a query, smaller cells with --cell\(format == .png ? "" : ", or write a .png"))")
            }
            events.started(["assets": items.count, "columns": layout.columns, "rows": layout.rows,
                            "width": layout.width, "height": layout.height, "cache-size": sheet.cacheSize.rawValue])
            let thumbnails = ThumbnailCache(version: GpickVersion.current)
            var done = 0
            var failed: [ContactSheet.Cell] = []
            let drawn = try await sheet.draw(items, thumbnails: thumbnails) { cell in
                done += 1
                if cell.failure != nil { failed.append(cell) }
                Self.report(cell, layout: layout, done: done, events: events)
            }
            Console.endProgress()
            failed.sort { $0.index < $1.index }
            guard drawn.drawn > 0 else {
                let why = failed.first?.failure.map { ": \($0.message)" } ?? ""
                throw GpickError(.input, items.count == 1 ? "the one matching asset could not be drawn\(why)"
                                                          : "none of the \(items.count) matching assets could be drawn (the first\(why))")
            }
            // After the drawing, in the sheet's order; none when nothing was drawn (the error says why).
            if !library.json { for cell in failed { Self.warn(cell) } }
            let picture = drawn.picture
            let bytes = try await OffPool.run { () throws(GpickError) in try picture.encoded(as: format) }
            try await AtomicWrite.store(bytes, to: target)
            events.fileWritten(target.path, bytes: Int64(bytes.count), extra: [
                "width": picture.width, "height": picture.height, "format": format.rawValue,
                "assets": items.count, "drawn": drawn.drawn, "placeholders": items.count - drawn.drawn,
            ])
            events.finished(["files": 1, "assets": items.count, "drawn": drawn.drawn])
        }
    }

    /// One cell done: a `cell` event with its place, or progress on a TTY.
    static func report(_ cell: ContactSheet.Cell, layout: ContactSheet.Layout, done: Int, events: Events) {
        guard events.json else { return Console.progress("drawing \(done)/\(layout.count) cells") }
        let asset = cell.item.asset
        let origin = layout.origin(of: cell.index)
        var fields: JSONFields = ["index": cell.index, "id": asset.id ?? 0, "path": asset.path, "x": origin.x, "y": origin.y,
                                     "size": layout.cell, "drawn": cell.failure == nil]
        if let badge = cell.badge { fields["badge"] = badge }
        if let failure = cell.failure { fields["reason"] = failure.message }
        events.emit("cell", fields)
    }

    /// The one line about an asset drawn as a placeholder.
    static func warn(_ cell: ContactSheet.Cell) {
        guard let failure = cell.failure else { return }
        let path = cell.item.asset.path
        // The reason names the file already when it comes from a decoder; else it is added.
        let message = failure.message.contains(path) ? failure.message : "\(path): \(failure.message)"
        Console.notice("warning: \(message); its cell is a grey \"?\"")
    }
}
