import FoundationEssentials
import GpickBase

/// A camera's frames as a `multipart/x-mixed-replace` MJPEG stream and a snapshot, mounted on
/// gpick's web server: the HTTP preview's page and the picker's camera cell show it.
///
/// `publish` only swaps the newest frame in under a lock; each viewer's thread sends whatever is
/// newest when it is ready again, so a slow viewer skips frames instead of stalling anyone.
public final class MJPEGStream: Sendable {
    static let boundary = "gpickframe"

    private let feed = Monitor(Feed())
    private let viewerCalls = Locked(())
    public let server: WebServer
    public let streamPath: String
    public let snapshotPath: String

    private struct Feed {
        var frame: [UInt8]?
        var sequence: UInt64 = 0
        var closed = false
        var viewers = 0
        var onViewer: (@Sendable (Int) -> Void)?
    }

    /// Mounts the stream at `streamPath` and the newest frame at `snapshotPath`.
    public init(on server: WebServer, streamPath: String = "/stream.mjpg", snapshotPath: String = "/snapshot.jpg") {
        self.server = server
        self.streamPath = streamPath
        self.snapshotPath = snapshotPath
        server.mount(streamPath) { [weak self] request, response in
            guard let self else { return response.text(.notFound, "the stream has ended\n") }
            guard request.method == "GET" || request.method == "HEAD" else { return response.methodNotAllowed(allow: "GET, HEAD") }
            self.stream(to: response)
        }
        server.mount(snapshotPath) { [weak self] request, response in
            guard request.method == "GET" || request.method == "HEAD" else { return response.methodNotAllowed(allow: "GET, HEAD") }
            guard let jpeg = self?.feed.withLock({ $0.frame }) else {
                return response.text(.serviceUnavailable, "no frame yet\n", headers: ["Retry-After": "1"])
            }
            response.send(.ok, type: "image/jpeg", body: jpeg)
        }
        server.onClose { [weak self] in self?.close() }
    }

    /// Clients currently receiving the stream.
    public var viewerCount: Int { feed.withLock { $0.viewers } }

    /// Called with the new count whenever a viewer arrives or leaves, on a server thread, in
    /// order. It must not close the server (close waits for the very thread running it).
    public func setOnViewer(_ handler: (@Sendable (Int) -> Void)?) { feed.withLock { $0.onViewer = handler } }

    /// Makes `jpeg` the newest frame. Never blocks on sockets: safe on a streaming thread.
    public func publish(_ jpeg: [UInt8]) {
        // The replaced frame is freed outside the lock.
        let replaced = feed.withLock { s -> [UInt8]? in
            guard !s.closed else { return nil }
            defer { s.frame = jpeg; s.sequence &+= 1 }
            return s.frame
        }
        withExtendedLifetime(replaced) {}
    }

    /// Ends every viewer's stream and takes the paths off the server. Idempotent.
    public func close() {
        feed.withLock { s in
            s.closed = true
            s.frame = nil
        }
        server.unmount(streamPath)
        server.unmount(snapshotPath)
    }

    private func stream(to response: WebResponse) {
        // Each part ends with the next boundary, so a browser shows a frame as soon as it has it
        // rather than when the following frame starts.
        guard response.startStream(type: "multipart/x-mixed-replace; boundary=\(Self.boundary)",
                                   headers: ["Cache-Control": "no-cache, no-store", "Pragma": "no-cache"]),
              response.write([Array("--\(Self.boundary)\r\n".utf8)]) else { return }
        viewerChanged(+1)
        defer { viewerChanged(-1) }
        let trailer = Array("\r\n--\(Self.boundary)\r\n".utf8)
        var seen: UInt64 = 0
        while let jpeg = nextFrame(after: &seen, response) {
            let partHead = Array("Content-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8)
            guard response.write([partHead, jpeg, trailer]) else { return }
        }
    }

    /// Waits for a frame newer than `seen`; nil once closed or the viewer has hung up (checked
    /// each second, so a viewer leaving while capture is stalled still counts as gone).
    private func nextFrame(after seen: inout UInt64, _ response: WebResponse) -> [UInt8]? {
        let last = seen
        while true {
            let deadline = ContinuousClock.now + .seconds(1)
            let next = feed.wait(until: { s in s.closed || (s.sequence != last && s.frame != nil) },
                                 deadline: deadline) { s -> (UInt64, [UInt8])?? in
                if s.closed { return .some(nil) }
                guard s.sequence != last, let frame = s.frame else { return nil }   // timed out
                return (s.sequence, frame)
            }
            switch next {
            case .some(.some(let (sequence, frame))):
                seen = sequence
                return frame
            case .some(.none):
                return nil   // closed
            case .none:
                if response.clientHungUp || response.serverClosed { return nil }
            }
        }
    }

    private func viewerChanged(_ delta: Int) {
        viewerCalls.withLock { _ in
            let (count, handler) = feed.withLock { s -> (Int, (@Sendable (Int) -> Void)?) in
                s.viewers += delta
                return (s.viewers, s.onViewer)
            }
            handler?(count)
        }
    }
}

/// The HTTP preview behind `gpick preview --sink http`: a web server of its own with a page, the
/// MJPEG stream and a snapshot. Open `url` (it carries the token).
public final class MJPEGServer: Sendable {
    public let server: WebServer
    public let stream: MJPEGStream
    public var port: Int { server.port }
    /// The page, with its token.
    public var url: String { server.url("/") }
    public var viewerCount: Int { stream.viewerCount }

    public init(port: Int = 8080, title: String = "gpick preview") throws(GpickError) {
        server = try WebServer(port: port)
        stream = MJPEGStream(on: server)
        let page = Self.page(title: title, port: server.port)
        let answer: WebHandler = { request, response in
            guard request.method == "GET" || request.method == "HEAD" else { return response.methodNotAllowed(allow: "GET, HEAD") }
            response.send(.ok, type: "text/html; charset=utf-8", body: page)
        }
        server.mount("/", answer)
        server.mount("/index.html", answer)
    }

    public func setOnViewer(_ handler: (@Sendable (Int) -> Void)?) { stream.setOnViewer(handler) }
    public func publish(_ jpeg: [UInt8]) { stream.publish(jpeg) }
    /// Disconnects every viewer and waits for the server's threads. Idempotent.
    public func close() { server.close() }

    private static func page(title: String, port: Int) -> [UInt8] {
        let t = HTMLText.escape(title)
        // The stream and snapshot go by the cookie the page's own request set.
        return Array("""
            <!doctype html>
            <html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(t)</title>
            <style>html,body{margin:0;background:#111;color:#999;font:13px system-ui,sans-serif}
            img{display:block;width:100%;height:auto}p{margin:6px 10px}a{color:#bbb}</style></head>
            <body><img src="/stream.mjpg" alt="live preview">
            <p>\(t) · live from 127.0.0.1:\(port) · <a href="/snapshot.jpg">snapshot</a></p></body></html>

            """.utf8)
    }
}

/// Text made safe for HTML: element content and quoted attribute values.
public enum HTMLText {
    public static func escape(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;").replacing("'", with: "&#39;")
    }
}
