import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON object per event on stdout.")
    var json = false

    @Flag(name: .long, help: "Also print GStreamer's warnings, and its debug text after an error's line.")
    var verbose = false

    func validate() throws {
        if verbose { Console.beVerbose() }
    }
}

/// What a pipeline file may do beyond gpick's own outputs (`run`, `pipelines check`).
struct PolicyOptions: ParsableArguments {
    @Flag(name: .customLong("allow-network"), help: "Allow elements that send data off the machine.")
    var allowNetwork = false

    @Flag(name: .customLong("allow-paths"), help: "Allow file-writing elements whose location is not a parameter.")
    var allowPaths = false

    var policy: PipelinePolicy { PipelinePolicy(allowNetwork: allowNetwork, allowPaths: allowPaths) }
}
