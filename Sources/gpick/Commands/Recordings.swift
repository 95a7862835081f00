import GpickCLI
import ArgumentParser
import FoundationEssentials
import GpickBase
import GpickKit

/// The parts of split recordings, from the parts.json `record --split` keeps beside them.
struct Recordings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recordings",
        abstract: "Find a moment in a split recording's parts (from the parts.json beside them).",
        discussion: """
        `record --split` lists each part in parts.json in its folder: its file, the wall-clock time of its \
        first frame, its length, frames and size. `at` names the part that holds a moment and how far into \
        it the moment is (seconds, for a player's start option: mpv --start, ffplay -ss); `list` prints them all.
        """,
        subcommands: [At.self, List.self])

    struct At: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "at",
            abstract: "Print the part holding a moment and the offset into it: PATH<TAB>SECONDS.")
        @Argument(help: "The moment: 14:05 or 14:05:30 (the last such time, today or yesterday), 2026-11-29 14:05, or ISO 8601 with a zone.")
        var moment: String
        @Argument(help: "The recording's folder, where its parts and parts.json are.")
        var folder: String = "."
        @OptionGroup var out: OutputOptions

        func run() async throws {
            let events = Events(json: out.json, command: "recordings at")
            try await reporting(events) {
                guard let when = MomentText.parse(moment) else {
                    throw ValidationError("\(moment) is not a moment (e.g. 14:05, 14:05:30, 2026-11-29 14:05, 2026-11-29T13:05:00Z)")
                }
                let parts = try await Recordings.parts(in: folder)
                guard let found = PartIndex.part(at: when, in: parts) else {
                    throw GpickError(.input, "nothing was recorded at \(MomentText.local(when)) in \(folder): its parts cover \(Recordings.spans(parts))")
                }
                let path = folder == "." ? found.part.file : "\(folder)/\(found.part.file)"
                let frame = found.part.duration > 0 ? Int(found.offset * Double(found.part.frames) / found.part.duration) : 0
                if out.json {
                    events.emit("found", ["path": path, "offset": found.offset, "frame": frame, "start": iso(found.part.start),
                                          "duration": found.part.duration, "frames": found.part.frames, "bytes": Int(found.part.bytes)])
                } else {
                    print("\(path)\t\(cFormat("%.3f", found.offset))")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Print each part: its start (local time), length, frames, size and file.")
        @Argument(help: "The recording's folder, where its parts and parts.json are.")
        var folder: String = "."
        @OptionGroup var out: OutputOptions

        func run() async throws {
            let events = Events(json: out.json, command: "recordings list")
            try await reporting(events) {
                let parts = try await Recordings.parts(in: folder)
                for p in parts {
                    if out.json {
                        events.emit("part", ["file": p.file, "start": iso(p.start), "duration": p.duration,
                                             "frames": p.frames, "bytes": Int(p.bytes)])
                    } else {
                        print("\(MomentText.local(p.start))  \(cFormat("%8.2f s", p.duration))  \(cFormat("%7d", p.frames)) frames  "
                              + "\(formatBytes(p.bytes))  \(p.file)")
                    }
                }
                events.finished(["parts": parts.count])
            }
        }
    }

    /// The folder's index, read off the pool; a folder without one is an error in the user's terms.
    static func parts(in folder: String) async throws(GpickError) -> [RecordedPart] {
        let parts = try await OffPool.run { () throws(GpickError) in try PartIndex.load(folder: folder) }
        guard !parts.isEmpty else {
            throw GpickError(.input, "\(folder) has no \(PartIndex.fileName) with parts in it: `gpick record --split` writes one beside its parts")
        }
        return parts
    }

    /// What the parts cover, as runs of parts that follow one another (within a second).
    static func spans(_ parts: [RecordedPart]) -> String {
        var runs: [(Date, Date)] = []
        for p in parts {
            if let last = runs.last, p.start.timeIntervalSince(last.1) <= 1 { runs[runs.count - 1].1 = max(last.1, p.end) } else { runs.append((p.start, p.end)) }
        }
        let shown = runs.suffix(3).map { "\(MomentText.local($0.0))–\(MomentText.local($0.1))" }
        return (runs.count > 3 ? "… " : "") + shown.joined(separator: ", ")
    }
}

private func iso(_ date: Date) -> String { RecordedPart.timeText(date) }
