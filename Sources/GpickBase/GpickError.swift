/// A failure in the user's terms: what kind of thing went wrong, one line naming it, and what
/// would fix it as a typed remedy. The library never names a command-line flag or an exit code:
/// the CLI maps kinds to exit codes and remedies to its own wording.
public struct GpickError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        case usage, input, device, output, plugin, pipeline, runtime, interrupted
        /// A server that is not there, refuses, or went away for good.
        case network
    }

    /// What the user can do about it, when there is one thing to say.
    public enum Remedy: Sendable, Equatable {
        /// Name the front camera.
        case giveFrontCamera
        /// Allow elements that send data off the machine.
        case allowNetwork
        /// Bind the element's path property to an output-path parameter, or allow literal paths.
        case bindOrAllowPaths(binding: String)
        /// Give this path parameter a value.
        case giveParameter(String)
        /// Choose another port (a privileged one is refused).
        case choosePort(privileged: Bool)
        /// Replace what is there.
        case force
        /// Say the format instead of the extension.
        case chooseFormat
        /// Choose where a preview goes.
        case choosePreviewSink
        /// Check which package provides the missing plugin.
        case checkPlugins
        /// Build the media library's index anew (the damaged one is kept aside).
        case rebuildIndex
        /// No camera is there: the test source gives frames all the same, when asked for.
        case useTestSource
        /// No terminal to draw on: the picker's page works in a browser.
        case useWebPicker
        /// The media library has never been indexed: index it.
        case scanLibrary
    }

    public var kind: Kind
    /// One line in the user's terms.
    public var message: String
    /// What GStreamer said, with its debug text: shown with `--verbose`, never in the line.
    public var detail: String?
    public var remedy: Remedy?

    public init(_ kind: Kind, _ message: String, detail: String? = nil, remedy: Remedy? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
        self.remedy = remedy
    }

    public var description: String { message }
}
