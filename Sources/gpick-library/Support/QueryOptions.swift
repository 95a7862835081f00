import ArgumentParser
import Foundation
import GpickLibrary

/// Which assets: what `library list` and `library sheet` both take, parsed and checked the same.
struct QueryOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Only assets whose path inside the library (folders and file name) contains QUERY, ignoring case.",
                                 valueName: "QUERY"))
    var text: String?

    @Option(name: .long, help: "Only photo, video, live, burst, panorama or screenshot assets.")
    var kind: AssetQuery.Kind?

    @Option(name: .long, help: ArgumentHelp("Only assets added since DATE: YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] (local time), or an age such as 3d, 12h, 2w.", valueName: "DATE"))
    var since: String?

    @Option(name: .long, help: "At most N assets (default 1000, as a photo picker fetches).")
    var limit = 1000

    func validate() throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more, not \(limit)") }
        if let since, SinceDate.parse(since, now: Date()) == nil {
            throw ValidationError("--since: cannot read \"\(since)\" as a date (YYYY-MM-DD, YYYY-MM-DDTHH:MM, or an age such as 3d)")
        }
    }

    func query(roots: MediaRoots, includeUnreadable: Bool = false) -> AssetQuery {
        AssetQuery(kind: kind, since: since.flatMap { SinceDate.parse($0, now: Date()) }, limit: limit,
                   includeUnreadable: includeUnreadable, roots: roots, pathContains: text.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The filters given, as typed ("\"beach\" --kind video"), for a message that nothing matched.
    var described: String {
        var parts: [String] = []
        if let text, !text.isEmpty { parts.append("\"\(text)\"") }
        if let kind { parts.append("--kind \(kind.rawValue)") }
        if let since { parts.append("--since \(since)") }
        if limit == 0 { parts.append("--limit 0") }
        return parts.joined(separator: " ")
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
