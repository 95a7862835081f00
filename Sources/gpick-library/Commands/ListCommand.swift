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

    @Option(name: .long, help: "Only photo, video, live, burst, panorama or screenshot assets.")
    var kind: AssetQuery.Kind?

    @Option(name: .long, help: ArgumentHelp("Only assets added since DATE: YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] (local time), or an age such as 3d, 12h, 2w.", valueName: "DATE"))
    var since: String?

    @Option(name: .long, help: "At most N assets (default 1000, as the seed's picker fetches).")
    var limit = 1000

    @Flag(name: .long, help: "Also list files that could not be read, with the reason.")
    var unreadable = false

    func validate() throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more, not \(limit)") }
        if let since, SinceDate.parse(since, now: Date()) == nil {
            throw ValidationError("--since: cannot read \"\(since)\" as a date (YYYY-MM-DD, YYYY-MM-DDTHH:MM, or an age such as 3d)")
        }
    }

    func run() async throws {
        let events = Events(json: library.json, command: "library list")
        try await reporting(events) {
            let index = try await library.openIndex()
            let query = AssetQuery(kind: kind, since: since.flatMap { SinceDate.parse($0, now: Date()) }, limit: limit,
                                   includeUnreadable: unreadable, roots: library.roots)
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

extension AssetQuery.Kind: ExpressibleByArgument {}

/// `--since`: a local date or date-time, or an age counted back from now.
enum SinceDate {
    static func parse(_ text: String, now: Date) -> Int64? {
        let units: [Character: Double] = ["m": 60, "h": 3600, "d": 86400, "w": 7 * 86400]
        if let unit = text.last.flatMap({ units[$0] }), let n = Double(text.dropLast()), n >= 0 {
            return Int64(now.timeIntervalSince1970 - n * unit)
        }
        let formats = ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        for f in formats {
            formatter.dateFormat = f
            if let d = formatter.date(from: text) { return Int64(d.timeIntervalSince1970) }
        }
        return nil
    }
}
