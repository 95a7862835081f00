import CRTSPServer
import Glibc
import GpickBase
import GstCore

/// An RTSP server (gst-rtsp-server) on a thread of its own: each camera is a mount
/// (`rtsp://HOST:PORT/NAME`), and every viewer of a mount shares one media fed by that camera's
/// one encoder (`RTSPStream`). It listens on 127.0.0.1 unless told otherwise; anywhere else it
/// requires RTSP digest credentials.
public final class RTSPServer: @unchecked Sendable {
    // Invariant: `handle` is set at init and freed once, in `close` (under `closed`'s lock);
    // gst-rtsp-server's own calls are thread-safe. `mounts` keeps every mount ever made alive
    // until the server is freed: the C side calls them back while a media lives.
    private let handle: OpaquePointer
    private let closed = Locked(false)
    private let mounts = Locked<[EncodedFeeds]>([])
    private let viewers: ViewerEvents
    /// Viewers' RTSP connections as they open and close (the newest 256 kept for a reader that
    /// lags); the stream ends when the server closes.
    public let events: AsyncStream<ViewerEvent>
    /// The address listened on, as given.
    public let address: String
    public let port: Int
    public let credentials: RTSPCredentials?

    /// Listens on `address`:`port` (0: any free port). Off loopback, `credentials` are required:
    /// a camera on the network is not everyone's.
    public init(address: String = "127.0.0.1", port: Int = 8554, credentials: RTSPCredentials? = nil) throws(GpickError) {
        guard (0...65535).contains(port) else { throw GpickError(.usage, "RTSP port \(port) must be 0…65535") }
        if credentials == nil, !Self.isLoopback(address) {
            throw GpickError(.usage, "an RTSP server on \(address) needs credentials: only 127.0.0.1 and ::1 may go without")
        }
        do { try Gst.initialize() } catch { throw GpickError(.plugin, "GStreamer: \(error.message)") }
        var message = [CChar](repeating: 0, count: 256)
        var code: Int32 = 0
        guard let handle = gpick_rtsp_new(address, Int32(port), &message, message.count, &code) else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            switch code {
            case 1: throw GpickError(.usage, "RTSP port \(port) on \(address) is in use", remedy: .choosePort(privileged: false))
            case 2: throw GpickError(.usage, "RTSP port \(port) on \(address) needs privileges", remedy: .choosePort(privileged: true))
            case 3: throw GpickError(.plugin, "an RTSP server needs gst-rtsp-server, which is not installed (install \(Self.package))")
            default: throw GpickError(.usage, "cannot listen for RTSP on \(address):\(port): \(reason)")
            }
        }
        self.handle = handle
        self.address = address
        self.port = Int(gpick_rtsp_port(handle))
        self.credentials = credentials
        (events, viewers) = ViewerEvents.make()
        if let credentials { gpick_rtsp_require(handle, credentials.user, credentials.password) }
        // The shim holds its own reference to `viewers`, released once no client can call back
        // (a client's "closed" may come after the server is freed).
        gpick_rtsp_watch_clients(handle, { context, opened, id, address in
            guard let context, let address else { return }
            let viewers = Unmanaged<ViewerEvents>.fromOpaque(context).takeUnretainedValue()
            let ip = String(cString: address)
            viewers.yield(opened != 0 ? .connected(id: Int(id), address: ip) : .closed(id: Int(id), address: ip))
        }, Unmanaged.passRetained(viewers).toOpaque(), { context in
            if let context { Unmanaged<ViewerEvents>.fromOpaque(context).release() }
        })
    }

    deinit { closeBlocking() }

    /// The Debian package gst-rtsp-server comes in.
    public static let package = "libgstrtspserver-1.0-0"

    /// Whether gst-rtsp-server is installed (it is loaded when first used, not linked).
    public static var isAvailable: Bool { gpick_rtsp_available() != 0 }

    /// Whether `address` is reachable from this machine alone.
    public static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address == "localhost" || address.hasPrefix("127.")
    }

    /// The URL a viewer opens for mount `name`. On a wildcard address, this machine's name.
    public func url(_ name: String) -> String {
        var host = address
        if address == "0.0.0.0" || address == "::" {
            var buffer = [CChar](repeating: 0, count: 256)
            host = gethostname(&buffer, buffer.count) == 0
                ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "localhost"
        } else if address.contains(":") {
            host = "[\(address)]"
        }
        return "rtsp://\(host):\(port)/\(name)"
    }

    /// RTSP clients connected now (a viewer that has not set up a stream yet counts too).
    public var clientCount: Int {
        closed.withLock { $0 ? 0 : Int(gpick_rtsp_client_count(handle)) }
    }

    /// Serves `launch` at `/name`; `media` hears each media's appsrc come and go.
    func mount(_ name: String, launch: String, media: EncodedFeeds) {
        mounts.withLock { $0.append(media) }
        closed.withLock { isClosed in
            guard !isClosed else { return }
            gpick_rtsp_mount(handle, "/\(name)", launch, { context, appsrc, audio, event in
                guard let context, let appsrc else { return }
                let mount = Unmanaged<EncodedFeeds>.fromOpaque(context).takeUnretainedValue()
                switch event {
                case 1: mount.feedAdded(Element(borrowing: appsrc), audio: audio.map { Element(borrowing: $0) })
                case 2: mount.keyframeWanted()
                default: mount.feedRemoved(Element(borrowing: appsrc))
                }
            }, Unmanaged.passUnretained(media).toOpaque())
        }
    }

    /// New viewers of `/name` are refused; those watching keep their media until they leave.
    func unmount(_ name: String) {
        closed.withLock { isClosed in
            guard !isClosed else { return }
            gpick_rtsp_unmount(handle, "/\(name)")
        }
    }

    /// Disconnects every viewer and stops listening.
    public func close() async {
        await OffPool.run { self.closeBlocking() }
    }

    /// `close` on a thread that may block: it waits for the server's thread to end.
    @available(*, noasync, message: "it waits for the server's thread: await close()")
    public func closeBlocking() {
        let first = closed.withLock { c -> Bool in defer { c = true }; return !c }
        guard first else { return }
        gpick_rtsp_free(handle)
        mounts.withLock { $0.removeAll() }
        viewers.finish()
    }
}

/// A viewer's RTSP connection, numbered from 1 in the order they came.
public enum ViewerEvent: Sendable, Equatable {
    case connected(id: Int, address: String)
    case closed(id: Int, address: String)
}

/// The server's end of `RTSPServer.events`, called back by gst-rtsp-server's threads until the
/// server is freed (the server holds it until then).
final class ViewerEvents: Sendable {
    private let continuation: AsyncStream<ViewerEvent>.Continuation
    private init(_ c: AsyncStream<ViewerEvent>.Continuation) { continuation = c }

    static func make() -> (AsyncStream<ViewerEvent>, ViewerEvents) {
        let (stream, c) = AsyncStream<ViewerEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        return (stream, ViewerEvents(c))
    }

    func yield(_ e: ViewerEvent) { continuation.yield(e) }
    func finish() { continuation.finish() }
}

/// Who may watch: RTSP digest authentication with one user and password.
public struct RTSPCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// A user "gpick" with a random password of 16 letters and digits (about 95 bits).
    public static func random() -> RTSPCredentials {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        let password = String((0..<16).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        return RTSPCredentials(user: "gpick", password: password)
    }
}
