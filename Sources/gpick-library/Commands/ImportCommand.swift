import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickLibrary

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Copy photos and videos into the library, in ROOT/YYYY/MM/ by the date they were taken.",
        discussion: """
            A file whose content is already in the library is not copied again ("already in the library: PATH"). \
            Files are written atomically and never over an existing file (a clash gets a name such as "NAME (1).jpg"); \
            the source is only read, unless --move removes it once its copy is safely written. \
            Videos go to the Videos folder when the library is the user's Pictures and Videos; \
            the movie of an Apple live photo goes beside its photo. Each file is indexed at once.
            """
    )

    @OptionGroup var library: LibraryOptions

    @Flag(name: .long, help: "Move the files: rename them on the same file system, else copy and remove each source once its copy is written.")
    var move = false

    @Argument(help: ArgumentHelp("The photos and videos to import.", valueName: "FILE"))
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one FILE to import") }
    }

    func run() async throws {
        let events = Events(json: library.json, command: "library import")
        var failedKind: GpickError.Kind?
        try await reporting(events) {
            let index = try await library.openIndex()
            let roots = library.roots
            events.started(["roots": roots.paths, "index": index.path, "files": files.count, "move": move])
            let importer = Importer(index: index, roots: roots, move: move)
            let files = files
            let summary = try await OffPool.run { () throws(GpickError) in
                try importer.run(files) { Self.show($0, events) }
            }
            Console.endProgress()
            events.finished(["imported": summary.imported, "duplicates": summary.duplicates, "failed": summary.failed,
                             "bytes": summary.bytes])
            if !library.json && (summary.duplicates > 0 || summary.failed > 0) && Console.stderrIsTTY {
                Console.notice("\(summary.imported) imported, \(summary.duplicates) already in the library, \(summary.failed) failed")
            }
            failedKind = summary.firstFailure
        }
        // Each failure had its line; the status says that some did.
        if let kind = failedKind { throw ExitCode(GpickError(kind, "").exitCode) }
    }

    static func show(_ e: ImportEvent, _ events: Events) {
        switch e {
        case .imported(let source, let path, let bytes, let moved, let asset):
            Console.endProgress()
            if events.json {
                // The id `library list` gives it, so that a script can follow an import with it.
                events.emit("imported", ["source": source, "path": path, "bytes": bytes, "moved": moved, "id": asset?.id])
            } else {
                print(path)
            }
        case .duplicate(let source, let existing):
            Console.endProgress()
            if events.json {
                events.emit("duplicate", ["source": source, "path": existing, "message": "already in the library: \(existing)"])
            } else {
                Console.notice("already in the library: \(existing)")
            }
        case .failed(let source, let error):
            Console.endProgress()
            if events.json {
                events.emit("error", ["message": error.line, "kind": error.kind.rawValue, "path": source])
            }
            Console.error(error)
        case .progress(let done, let total, let bytes, let totalBytes):
            events.emit("progress", ["done": done, "total": total, "bytes": bytes, "total-bytes": totalBytes])
            if !events.json {
                Console.progress("importing \(done)/\(total) files, \(formatBytes(bytes)) of \(formatBytes(totalBytes))")
            }
        }
    }
}
