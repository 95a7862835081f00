
/// A user-facing failure: one line that names what is wrong, and the exit code for it.
public struct GpickError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        case usage, input, device, output, plugin, pipeline, runtime, interrupted
    }
    public var kind: Kind
    /// One line in the user's terms.
    public var message: String
    /// What GStreamer said, with its debug text: shown with `--verbose`, never in the line.
    public var detail: String?

    public init(_ kind: Kind, _ message: String, detail: String? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    public var description: String { message }

    public var exitCode: Int32 {
        switch kind {
        case .usage: 64
        case .input, .pipeline: 65
        case .device: 69
        case .plugin: 69
        case .output: 73
        case .runtime: 70
        case .interrupted: 130
        }
    }
}
