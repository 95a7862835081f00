import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickLibrary

/// Which library: the roots (user-dirs' Pictures and Videos unless told) and the index file.
struct LibraryOptions: ParsableArguments {
    @Option(name: .customLong("library"), help: ArgumentHelp(
        "A folder of the library (repeatable). Default: $GPICK_LIBRARY (colon-separated), else the Pictures and Videos folders of ~/.config/user-dirs.dirs.",
        valueName: "DIR"))
    var folders: [String] = []

    @Flag(name: .long, help: "Print one JSON object per event on stdout.")
    var json = false

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    var roots: MediaRoots { MediaRoots.resolve(explicit: folders, environment: environment) }

    var indexPath: String { LibraryPaths.indexPath(environment: environment) }

    func validate() throws {
        for f in folders where f.isEmpty { throw ValidationError("--library: the folder is empty") }
    }

    /// Opens the index off the cooperative pool (SQLite may wait on another process's lock).
    func openIndex() async throws(GpickError) -> LibraryIndex {
        let path = indexPath
        return try await OffPool.run { () throws(GpickError) in try LibraryIndex.open(path: path) }
    }
}
