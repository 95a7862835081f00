import ArgumentParser
import GpickBase
import GpickKit

/// What a command that keeps writing files (a loop recording's parts, motion clips) keeps of
/// them: `--keep`, `--keep-size`, `--keep-free`, oldest deleted first.
package struct RetentionOptions: ParsableArguments {
    @Option(name: .long, help: "Delete parts or clips that ended longer ago than this (e.g. 24h, 90m, 600s).")
    package var keep: String?

    @Option(name: .customLong("keep-size"), help: "Delete the oldest parts or clips while the others hold more than this (e.g. 20G, 500M).")
    package var keepSize: String?

    @Option(name: .customLong("keep-free"), help: "Delete the oldest parts or clips while less than this share of the disk is free (e.g. 5%).")
    package var keepFree: String?

    package init() {}

    /// The options, read.
    package func retention() throws -> PartRetention {
        var r = PartRetention()
        if let keep {
            guard let v = DurationText.parse(keep), v > 0 else { throw ValidationError("--keep \(keep) must be a duration (e.g. 24h, 90m, 600s)") }
            r.maxAge = v
        }
        if let keepSize {
            guard let v = ByteSize.parse(keepSize), v > 0 else { throw ValidationError("--keep-size \(keepSize) must be a size (e.g. 20G, 500M, 800K)") }
            r.maxBytes = v
        }
        if let keepFree {
            let digits = keepFree.hasSuffix("%") ? String(keepFree.dropLast()) : keepFree
            guard let v = Double(digits), v > 0, v < 100 else { throw ValidationError("--keep-free \(keepFree) must be a share of the disk below 100 % (e.g. 5%)") }
            r.minFree = v / 100
        }
        return r
    }
}
