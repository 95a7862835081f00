import ArgumentParser
import Dispatch
import Foundation
import GpickCLI
import GpickBase
import GpickLibrary
import GpickPickCLI
import Glibc

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Keep the index live: scan once, then index every change under the library folders as it happens.",
        discussion: """
            Prints a line per change (indexed, moved, removed), or a JSON event with --json, until interrupted \
            (Ctrl-C or SIGTERM, exit 0). A file being written is indexed once it is closed. When the system's \
            queue of file events overflows, the folders are scanned anew. Files are only read, never changed.
            """
    )

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let events = Events(json: library.json, command: "library watch")
        try await reporting(events) {
            let index = try await library.openIndex()
            let roots = library.roots
            let watcher = try LibraryWatcher(index: index, roots: roots)
            // Before the first scan, so that Ctrl-C during it ends the watch cleanly too.
            let stopper = WatchSignals { _ in watcher.stop() }
            events.started(["roots": roots.paths, "index": index.path])
            try await OffPool.run { () throws(GpickError) in
                try watcher.run { Self.show($0, events) }
            }
            Console.endProgress()
            let signal = stopper.received
            events.finished(signal == 0 ? [:] : ["signal": signal == SIGINT ? "SIGINT" : "SIGTERM"])
        }
    }

    static func show(_ e: WatchEvent, _ events: Events) {
        if case .scanning(let done, let total) = e {
            events.emit("progress", ["done": done, "total": total])
            if !events.json { Console.progress("reading \(done)/\(total) files") }
            return
        }
        Console.endProgress()
        switch e {
        case .scanning: break
        case .ready(let summary, let folders):
            if events.json {
                events.emit("ready", ScanCommand.fields(summary).merging(["folders": folders]) { a, _ in a })
            } else {
                Console.notice("\(ScanCommand.line(summary))")
                Console.notice("watching \(folders) \(folders == 1 ? "folder" : "folders") for changes (Ctrl-C to stop)")
            }
        case .indexed(let path, let id):
            if events.json { events.emit("indexed", ["path": path, "id": id]) } else { print("indexed\t\(path)") }
        case .removed(let path):
            if events.json { events.emit("removed", ["path": path]) } else { print("removed\t\(path)") }
        case .moved(let from, let to, let id):
            if events.json { events.emit("moved", ["from": from, "path": to, "id": id]) } else { print("moved\t\(from)\t\(to)") }
        case .unreadable(let path, let reason):
            if events.json {
                events.emit("file-unreadable", ["path": path, "reason": reason])
            } else {
                print("unreadable\t\(path)")
                Console.notice("unreadable: \(path): \(reason)")
            }
        case .folderUnreadable(let path, let reason):
            if events.json {
                events.emit("folder-unreadable", ["path": path, "reason": reason])
            } else {
                Console.notice("cannot read \(path): \(reason) (its files stay in the index as they were)")
            }
        case .rescanned(let summary, let reason):
            if events.json {
                events.emit("rescanned", ScanCommand.fields(summary).merging(["reason": reason]) { a, _ in a })
            } else {
                Console.notice("\(reason): scanned anew; \(ScanCommand.line(summary))")
            }
        case .notice(let message):
            events.notice(message)
        }
    }
}
