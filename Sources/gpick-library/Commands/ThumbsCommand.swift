import ArgumentParser
import Foundation
import GpickCLI
import GpickBase
import GpickImages

/// `gpick library thumbs FILE…`: the shared (freedesktop.org) thumbnails of many files in one
/// process, a core's worth of decodes at a time: what a picker or a file manager looks up later.
/// One process for a folder, not one per file, which would start libvips and GStreamer each time.
struct ThumbsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbs",
        abstract: "Make the shared thumbnails of many photos and videos at once.",
        discussion: """
            Each FILE gets its thumbnail in the freedesktop.org cache ($XDG_CACHE_HOME/thumbnails/SIZE/, else \
            ~/.cache/thumbnails/SIZE/), where file managers find it too; an up-to-date one already there is kept. \
            Decodes run a core's worth at a time. A file that cannot be thumbnailed is one line (and is not tried \
            again until it changes); the others go on, and the exit status says that some failed. Prints the path \
            of each thumbnail.
            """
    )

    @Argument(help: ArgumentHelp("The photos and videos.", valueName: "FILE"))
    var files: [String]

    @Option(name: .long, help: "normal (128 px), large (256), x-large (512) or xx-large (1024).")
    var size: ThumbnailCache.Size = .large

    @Flag(name: .long, help: "Print one JSON object per event on stdout.")
    var json = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one FILE to thumbnail") }
        for f in files where f.isEmpty { throw ValidationError("FILE: a file name is empty") }
    }

    func run() async throws {
        let events = Events(json: json, command: "library thumbs")
        var failedKind: GpickError.Kind?
        try await reporting(events) {
            let cache = ThumbnailCache(version: GpickVersion.current)
            let size = self.size
            events.started(["files": files.count, "size": size.rawValue, "cache": cache.base])
            var made = 0, failed = 0
            // Every file is asked for at once; the cache's gate lets a core's worth decode, first
            // come first served, and the rest wait without holding a thread. Answers in FILE order.
            let jobs = files.map { file in
                Task { () -> Result<String, GpickError> in
                    do throws(GpickError) {
                        return .success(try await cache.thumbnail(for: file, mimeType: nil, size: size))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for (file, job) in zip(files, jobs) {
                switch await job.value {
                case .success(let path):
                    made += 1
                    if json { events.emit("thumbnail", ["source": file, "path": path]) } else { print(path) }
                case .failure(let error):
                    failed += 1
                    failedKind = failedKind ?? error.kind
                    if json { events.emit("error", ["message": error.line, "kind": error.kind.rawValue, "path": file]) }
                    Console.error(error)
                }
            }
            events.finished(["thumbnails": made, "failed": failed])
        }
        // Each failure had its line; the status says that some did.
        if let kind = failedKind { throw ExitCode(GpickError(kind, "").exitCode) }
    }
}

extension ThumbnailCache.Size: ExpressibleByArgument {}
