import GpickBase

/// The CLI's side of a failure: its exit code and its one line, with the remedy in flags.
extension GpickError.Kind {
    /// sysexits.h's codes, and 130 for an interruption as shells report SIGINT.
    package var exitCode: Int32 {
        switch self {
        case .usage: 64
        case .input, .pipeline: 65
        case .device, .plugin, .network: 69
        case .output: 73
        case .runtime: 70
        case .interrupted: 130
        }
    }
}

extension GpickError {
    package var exitCode: Int32 { kind.exitCode }

    /// The message and, in parentheses, what to do in this CLI's terms.
    package var line: String {
        guard let remedy else { return message }
        let advice: String
        switch remedy {
        case .giveFrontCamera: advice = "give one with --front"
        case .allowNetwork: advice = "pass --allow-network to allow it"
        case .bindOrAllowPaths(let binding): advice = "bind \(binding) to an output-path parameter, or pass --allow-paths"
        case .giveParameter(let name): advice = "give it with --set \(name)=PATH"
        case .choosePort(let privileged): advice = privileged ? "choose one above 1023 with --port" : "choose another with --port"
        case .force: advice = "use --force to replace it"
        case .chooseFormat: advice = "or choose one with --format"
        case .choosePreviewSink:
            advice = "choose --sink http (a page on 127.0.0.1), --sink terminal (run in a terminal) or --sink window (needs DISPLAY)"
        case .checkPlugins: advice = "run `gpick doctor` to see which package provides it"
        case .rebuildIndex: advice = "`gpick library scan --rebuild` builds it anew and keeps the damaged file aside"
        case .useTestSource: advice = "--source test gives the test pattern"
        case .useWebPicker: advice = "use --ui web"
        case .scanLibrary: advice = "`gpick library scan` makes one"
        }
        return "\(message) (\(advice))"
    }
}
