/// `gpick inspect PHOTO` runs in gpick-library, which has libvips (gpick reads movies with
/// GStreamer, and never loads libvips). gpick-library's `inspect` takes the same options as
/// gpick's: `--stamps`, `--json`, `--verbose` and `--pipelines DIR`. So a command line of those
/// and one file can be handed over as it is, before gpick parses it, and a photo's inspect costs
/// one executable's start instead of two (about 16 ms of 80 in a release build).
package enum InspectHandOver {
    /// The one file that `arguments` (the command first) inspects, if they are `inspect`, the
    /// options gpick-library takes too, and one file; nil for anything else (help, an unknown
    /// option, a second file), which gpick parses as usual.
    package static func file(_ arguments: [String]) -> String? {
        guard arguments.first == "inspect" else { return nil }
        var files: [String] = []
        var rest = arguments.dropFirst()
        while let word = rest.popFirst() {
            if word == "--" { files += rest; break }
            if word == "--pipelines" {
                guard rest.popFirst() != nil else { return nil }
                continue
            }
            if ["--stamps", "--json", "--verbose"].contains(word) || word.hasPrefix("--pipelines=") { continue }
            if word.hasPrefix("-") { return nil }
            files.append(word)
        }
        return files.count == 1 ? files[0] : nil
    }
}
