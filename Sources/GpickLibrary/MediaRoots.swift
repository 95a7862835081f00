import Foundation
import GRDB
import GpickBase

/// Where the user's media is, and where the index lives. The roots are the Pictures and Videos
/// folders of `user-dirs.dirs(5)`, unless the caller names its own (`--library`, `$GPICK_LIBRARY`).
public struct MediaRoots: Sendable, Equatable {
    /// Absolute, with symlinks resolved when the folder exists, in the order given, without repeats.
    public var paths: [String]
    /// The user's Videos folder, when the roots are user-dirs' Pictures and Videos (canonical):
    /// import puts videos there. Nil when the caller named the roots (import then uses the first).
    public var videosFolder: String?

    public init(paths: [String]) {
        var seen = Set<String>()
        self.paths = paths.map(Self.canonical).filter { seen.insert($0).inserted }
    }

    /// Explicit folders win; then `$GPICK_LIBRARY` (colon-separated, as PATH); then user-dirs.
    public static func resolve(explicit: [String], environment: [String: String]) -> MediaRoots {
        if !explicit.isEmpty { return MediaRoots(paths: explicit) }
        if let list = environment["GPICK_LIBRARY"], !list.isEmpty {
            return MediaRoots(paths: list.split(separator: ":").map(String.init))
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let dirs = (try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8)).map { UserDirs.parse($0, home: home) } ?? [:]
        let videos = dirs["VIDEOS"] ?? home + "/Videos"
        // A folder user-dirs names is the user's word, and is said when it is missing; the
        // defaults are a guess (a new account has ~/Pictures and no ~/Videos): a missing one is
        // left out without a word, unless none is there at all.
        let named = [dirs["PICTURES"].map { ($0, true) } ?? (home + "/Pictures", false), dirs["VIDEOS"].map { ($0, true) } ?? (videos, false)]
        let present = named.filter { $0.1 || access($0.0, F_OK) == 0 }
        var roots = MediaRoots(paths: (present.isEmpty ? named : present).map(\.0))
        roots.videosFolder = canonical(videos)
        return roots
    }

    /// The root that holds `path` (already canonical), if any.
    public func root(of path: String) -> String? {
        paths.first { path == $0 || path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
    }

    /// Rows whose path lies under one of the roots (a range on the unique path index: every
    /// path under `/r/` sorts between `/r/` and `/r0`, '0' being the byte after '/').
    public var contains: SQLExpression {
        paths.map { r -> SQLExpression in
            let base = r.hasSuffix("/") ? String(r.dropLast()) : r
            return Column("path") >= base + "/" && Column("path") < base + "0"
        }.joined(operator: .or)
    }

    /// The same test kept off the path index (`+path`), for a listing: newest first, SQLite then
    /// walks the addedAt index and stops at the limit, instead of reading every path in the roots
    /// and sorting them all (345 ms against 11 ms for the newest 1000 of 100,000). A scan reading
    /// every row under the roots uses it too: the table in order, not a seek per index entry.
    public var containsScanningByDate: SQLExpression {
        paths.map { r -> SQLExpression in
            let base = r.hasSuffix("/") ? String(r.dropLast()) : r
            return SQL("(+path >= \(base + "/") AND +path < \(base + "0"))").sqlExpression
        }.joined(operator: .or)
    }

    /// Makes a path absolute and resolves symlinks in it, as far as it exists.
    public static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        guard let resolved = realpath(absolute, nil) else { return URL(fileURLWithPath: absolute).standardizedFileURL.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// `~/.config/user-dirs.dirs`: lines `XDG_NAME_DIR="$HOME/Folder"` or an absolute path; `#` comments.
public enum UserDirs {
    public static func parse(_ text: String, home: String) -> [String: String] {
        var out: [String: String] = [:]
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "="),
                  line.hasPrefix("XDG_"), line[..<eq].hasSuffix("_DIR") else { continue }
            let name = String(line[line.index(line.startIndex, offsetBy: 4)..<line.index(eq, offsetBy: -4)])
            var value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { continue }
            value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            if value.hasPrefix("$HOME") {
                value = home + value.dropFirst(5)
            } else if !value.hasPrefix("/") {
                continue  // the format allows only $HOME-relative or absolute paths
            }
            // "$HOME/" alone means the folder is disabled: the home itself is not a media root.
            if value == home || value == home + "/" { continue }
            out[name] = value
        }
        return out
    }
}

/// Where gpick keeps the index: `$XDG_DATA_HOME/gpick/library.sqlite`.
public enum LibraryPaths {
    public static func indexPath(environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        return data + "/gpick/library.sqlite"
    }
}
