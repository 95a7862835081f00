import GpickTerminal
import GpickWeb
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where a preview shows the camera.
public enum PreviewSink: String, Sendable, CaseIterable {
    /// A real window (the platform's video sink).
    case window
    /// Truecolor half blocks in this terminal (works over SSH).
    case terminal
    /// An MJPEG stream and a page on 127.0.0.1.
    case http

    /// The default: a window when a display is available, the terminal when stdout is one,
    /// otherwise an error that lists the choices.
    public static func automatic(environment: [String: String] = ProcessInfo.processInfo.environment,
                                 stdoutIsTerminal: Bool = isatty(1) == 1) throws(GpickError) -> PreviewSink {
        if !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty { return .window }
        if stdoutIsTerminal { return .terminal }
        throw GpickError(.usage, "no display and no terminal to preview in", remedy: .choosePreviewSink)
    }
}

/// A key pressed in a preview (window or terminal).
public enum PreviewKey: String, Sendable {
    case flip, snap, quit

    /// Window keys arrive as navigation key names ("f", "q", "Escape"); terminal keys as bytes.
    public init?(name: String) {
        switch name.lowercased() {
        case "f": self = .flip
        case "s", "space": self = .snap
        case "q", "escape": self = .quit
        default: return nil
        }
    }

    public init?(byte: UInt8) {
        switch byte {
        case 0x03, 0x1b: self = .quit  // Ctrl-C arrives as a byte in raw mode; a lone Escape quits too
        default: self.init(name: String(UnicodeScalar(byte)))
        }
    }
}

/// How a preview looks and where it listens.
public struct PreviewOptions: Sendable {
    /// HTTP port on 127.0.0.1 (0 = any free port).
    public var port = 8080
    /// Longest side of HTTP preview frames (frames are never scaled up).
    public var maxHTTPWidth = 1280
    /// Title of the window and the HTTP page.
    public var title = "gpick"
    /// Mount the HTTP preview's stream on this server (the picker's page shows it) instead of
    /// starting a server and page of its own; `port` is then unused.
    public var server: WebServer?
    public var streamPath = "/stream.mjpg"
    public var snapshotPath = "/snapshot.jpg"
    /// A terminal preview hands its packed RGB frames, fitted into `frameBox`, to this handler
    /// instead of drawing them on a screen of its own: the terminal picker draws its camera cell.
    public var frameHandler: (@Sendable (RGBFrame) -> Void)?
    public var frameBox = PixelBox(width: 160, height: 90)
    public init() {}
}

/// A box in pixels (a terminal cell is two pixels stacked in half blocks).
public struct PixelBox: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A preview frame as packed 8-bit RGB rows, copied out of the pipeline.
public struct RGBFrame: Sendable {
    public var width: Int
    public var height: Int
    public var stride: Int
    public var bytes: [UInt8]
    public init(width: Int, height: Int, stride: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.stride = stride
        self.bytes = bytes
    }
}
