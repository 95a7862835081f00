import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

/// `--set NAME=VALUE` for pipeline-file parameters, checked against the file's typed parameters.
struct SetOptions: ParsableArguments {
    @Option(name: .customLong("set"), parsing: .singleValue, help: "Set a pipeline-file parameter: NAME=VALUE (repeatable).")
    var settings: [String] = []

    func validate() throws {
        for s in settings where !s.contains("=") { throw ValidationError("--set \(s) must be NAME=VALUE") }
    }

    /// The settings as given, NAME → VALUE (checked against a file later, by whoever loads it).
    var values: [String: String] {
        var out: [String: String] = [:]
        for s in settings {
            let kv = s.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            out[kv[0]] = kv.count > 1 ? kv[1] : ""
        }
        return out
    }

    /// Typed values, and the path parameters (output-path, input-path) as given.
    func resolve(for file: PipelineFile) throws(GpickError) -> (values: [String: Parameter.Value], paths: [String: String]) {
        var values: [String: Parameter.Value] = [:], paths: [String: String] = [:]
        for s in settings {
            let kv = s.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let p = file.parameter(kv[0]) else {
                let hint = Suggest.closest(to: kv[0], in: file.parameters.map(\.name)).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw GpickError(.usage, "\(file.name) has no parameter \"\(kv[0])\"\(hint)")
            }
            if p.type == .outputPath || p.type == .inputPath { paths[p.name] = kv[1] } else { values[p.name] = try p.parse(kv[1]) }
        }
        return (values, paths)
    }
}
