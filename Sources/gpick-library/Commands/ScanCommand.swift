import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickLibrary
import Synchronization

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Bring the index up to date: new and changed files are read, deleted ones leave it.",
        discussion: "Incremental: a file whose inode, size and mtime are unchanged is not read again. Files are only read, never changed."
    )

    @OptionGroup var library: LibraryOptions

    @Flag(name: .long, help: "Build the index anew; a damaged one is kept aside as library.sqlite.damaged.")
    var rebuild = false

    func run() async throws {
        let events = Events(json: library.json, command: "library scan")
        try await reporting(events) {
            if rebuild, let aside = try LibraryIndex.setAside(path: library.indexPath) {
                events.notice("the old index was moved to \(aside)")
            }
            let roots = library.roots, path = library.indexPath
            let summary = try await OffPool.run { () throws(GpickError) in
                try LibraryScanner.scan(indexAt: path, roots: roots, opened: { index in
                    events.started(["roots": roots.paths, "index": index.path])
                }) { Self.show($0, events) }
            }
            Console.endProgress()
            events.finished(Self.fields(summary))
            if !library.json { print(Self.line(summary)) }
        }
    }

    static func show(_ e: ScanEvent, _ events: Events) {
        switch e {
        case .folderUnreadable(let path, let reason):
            Console.endProgress()
            if events.json {
                events.emit("folder-unreadable", ["path": path, "reason": reason])
            } else {
                Console.notice("cannot read \(path): \(reason) (its files stay in the index as they were)")
            }
        case .walked(let found, let toRead):
            events.emit("walked", ["found": found, "to-read": toRead])
        case .progress(let done, let total):
            events.emit("progress", ["done": done, "total": total])
            if !events.json { Console.progress("reading \(done)/\(total) files") }
        case .fileUnreadable(let path, let reason):
            if events.json {
                events.emit("file-unreadable", ["path": path, "reason": reason])
            } else {
                Console.endProgress()
                Console.notice("unreadable: \(path): \(reason)")
            }
        }
    }

    static func fields(_ s: ScanSummary) -> JSONFields {
        ["found": s.found, "added": s.added, "updated": s.updated, "moved": s.moved, "removed": s.removed,
         "unchanged": s.unchanged, "unreadable": s.unreadable, "live-pairs": s.livePairs,
         "motion-photos": s.motionPhotos, "bursts": s.bursts, "unreadable-folders": s.unreadableFolders,
         "links-leaving-roots": s.linksLeavingRoots]
    }

    static func line(_ s: ScanSummary) -> String {
        var parts = ["\(s.found) files: \(s.added) added, \(s.updated) updated, \(s.removed) removed"]
        if s.moved > 0 { parts.append("\(s.moved) moved") }
        parts.append("\(s.unreadable) unreadable")
        var line = parts.joined(separator: ", ")
        line += "; \(s.livePairs) live pairs, \(s.motionPhotos) Motion Photos, \(s.bursts) bursts"
        if s.linksLeavingRoots > 0 { line += "; \(s.linksLeavingRoots) links leading out of the library not followed" }
        return line
    }
}
