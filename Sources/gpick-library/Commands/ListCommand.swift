import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickLibrary

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the library's assets, newest added first (what `library scan` indexed).",
        discussion: "A burst is listed once, as its first photo; the movie of an Apple live pair is part of its photo."
    )

    @OptionGroup var library: LibraryOptions

    @OptionGroup var filter: QueryOptions

    @Flag(name: .long, help: "Also list files that could not be read, with the reason.")
    var unreadable = false

    func run() async throws {
        let events = Events(json: library.json, command: "library list")
        try await reporting(events) {
            let index = try await library.openIndex()
            let query = filter.query(roots: library.roots, includeUnreadable: unreadable)
            let listed = try await OffPool.run { () throws(GpickError) in try index.list(query) }
            for item in listed {
                if library.json {
                    events.emit("asset", AssetRecord.fields(item))
                } else {
                    print(AssetRecord.line(item))
                }
            }
            events.finished(["count": listed.count])
        }
    }
}
