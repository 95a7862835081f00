import FoundationEssentials
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP preview behind `gpick preview --sink http`: a page, a `multipart/x-mixed-replace`
/// MJPEG stream and a snapshot, served on 127.0.0.1 only.
///
/// Plain POSIX sockets and threads (one accept thread, one thread per client, at most
/// `maxClients`): every socket call blocks, so none of it may run on the cooperative pool.
/// `publish` only swaps the newest frame in under a lock; each client thread sends whatever is
/// newest when it is ready again, so a slow viewer skips frames instead of stalling anyone.
public final class MJPEGServer: Sendable {
    /// Connections served at once (page, snapshot and stream alike); more are answered 503.
    public static let maxClients = 32

    private let core: Core
    /// The bound port (the real one when 0 was asked for).
    public let port: Int
    public var url: String { "http://127.0.0.1:\(port)/" }
    /// Clients currently receiving the stream.
    public var viewerCount: Int { core.viewerCount }

    public init(port: Int = 8080, title: String = "gpick preview") throws(GpickError) {
        let (fd, bound) = try Self.listen(port: port)
        self.port = bound
        core = Core(listenFD: fd, page: Self.page(title: title, port: bound))
        core.spawn(name: "gpick-http-accept") { [core] in core.acceptLoop() }
    }

    deinit { core.close() }

    /// Called with the new count whenever a stream viewer arrives or leaves, on a server thread,
    /// in order. It must not call `close()` (close waits for the very thread running it).
    public func setOnViewer(_ handler: (@Sendable (Int) -> Void)?) { core.setOnViewer(handler) }

    /// Makes `jpeg` the newest frame. Never blocks on sockets: safe on a streaming thread.
    public func publish(_ jpeg: [UInt8]) { core.publish(jpeg) }

    /// Stops accepting, disconnects every client and waits for the server's threads to end.
    /// Idempotent.
    public func close() { core.close() }

    // MARK: Setup

    private static func listen(port: Int) throws(GpickError) -> (fd: Int32, port: Int) {
        guard (0...65535).contains(port) else { throw GpickError(.usage, "port \(port) is out of range (0-65535)") }
        let address = "127.0.0.1:\(port)"
        let fd = try sys("open a socket for", address, kind: .runtime) {
            socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do throws(GpickError) {
            // A restarted preview can take its port back at once instead of waiting out TIME_WAIT.
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, Int32(1), address)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            addr.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian   // loopback only: no LAN exposure
            let r = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if r != 0 {
                let e = errno
                switch e {
                case EADDRINUSE: throw GpickError(.usage, "port \(port) on 127.0.0.1 is in use", remedy: .choosePort(privileged: false))
                case EACCES: throw GpickError(.usage, "port \(port) on 127.0.0.1 needs privileges", remedy: .choosePort(privileged: true))
                default: throw SyscallError.error(errno: e, "bind", address, kind: .runtime)
                }
            }
            try sys("listen on", address, kind: .runtime) { Glibc.listen(fd, 16) }
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            try sys("read the address of", address, kind: .runtime) {
                withUnsafeMutablePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
                }
            }
            return (fd, Int(UInt16(bigEndian: addr.sin_port)))
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    private static func page(title: String, port: Int) -> [UInt8] {
        let t = title.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
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

private func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: some BitwiseCopyable, _ address: String) throws(GpickError) {
    var v = value
    try sys("set socket options on", address, kind: .runtime) {
        setsockopt(fd, level, name, &v, socklen_t(MemoryLayout.size(ofValue: v)))
    }
}

extension MJPEGServer {
    /// The shared state, owned by the server's threads as well as the public object (so the public
    /// object can still be released, and its deinit close everything).
    ///
    /// A client fd is closed only inside `state`'s lock and after leaving `clients`, so `close()`
    /// never shuts down a reused descriptor. `viewerCalls` serialises viewer callbacks (taken
    /// before `state`, never after).
    final class Core: Sendable {
        static let boundary = "gpickframe"
        /// How long a client may take to send its request, or to take one response or one part:
        /// ample for any live local viewer, short enough that a dead one frees its slot.
        static let ioTimeout = timeval(tv_sec: 5, tv_usec: 0)
        static let ioDeadline = Duration.seconds(5)
        /// Per send() call; sendAll checks `ioDeadline` between calls, since a send that keeps
        /// making a little progress never times out on its own.
        static let sendTimeout = timeval(tv_sec: 1, tv_usec: 0)

        private let state = Monitor(State())
        private let viewerCalls = Locked(())
        private let listenFD: Int32
        private let page: [UInt8]

        private struct State {
            var listenOpen = true
            var frame: [UInt8]?
            var sequence: UInt64 = 0
            var closed = false
            var clients: Set<Int32> = []
            /// Threads started by `spawn` and not yet ended.
            var threads = 0
            var viewers = 0
            var onViewer: (@Sendable (Int) -> Void)?
        }

        init(listenFD: Int32, page: [UInt8]) {
            self.listenFD = listenFD
            self.page = page
        }

        var viewerCount: Int { state.withLock { $0.viewers } }
        func setOnViewer(_ handler: (@Sendable (Int) -> Void)?) { state.withLock { $0.onViewer = handler } }

        func publish(_ jpeg: [UInt8]) {
            // The replaced frame is freed outside the lock.
            let replaced = state.withLock { s -> [UInt8]? in
                guard !s.closed else { return nil }
                defer { s.frame = jpeg; s.sequence &+= 1 }
                return s.frame
            }
            withExtendedLifetime(replaced) {}
        }

        func close() {
            state.withLock { s in
                guard !s.closed else { return }
                s.closed = true
                s.frame = nil
                // shutdown (not close) wakes threads blocked in accept/recv/send on these fds.
                shutdown(listenFD, Int32(SHUT_RDWR))
                for fd in s.clients { shutdown(fd, Int32(SHUT_RDWR)) }
            }
            state.wait(until: { $0.threads == 0 }) { s in
                if s.listenOpen {
                    Glibc.close(listenFD)
                    s.listenOpen = false
                }
            }
        }

        /// Starts a counted thread: `close()` returns only once every one has ended.
        func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
            state.withLock { $0.threads += 1 }
            detachThread(named: name) {
                body()
                self.state.withLock { $0.threads -= 1 }
            }
        }

        // MARK: Accepting

        func acceptLoop() {
            while true {
                // (accept4 is not imported without _GNU_SOURCE; FD_CLOEXEC right after, as OutputPath does.)
                let fd = accept(listenFD, nil, nil)
                if fd < 0 {
                    let e = errno
                    if state.withLock({ $0.closed }) { return }
                    // Out of fds or memory: back off instead of spinning on the pending connection.
                    if e != EINTR && e != ECONNABORTED { usleep(50_000) }
                    continue
                }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                var tv = Self.sendTimeout
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                tv = Self.ioTimeout
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                var one: Int32 = 1   // the part trailer carries the boundary browsers wait for: no Nagle delay
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let admitted = state.withLock { s -> Bool in
                    guard !s.closed, s.clients.count < MJPEGServer.maxClients else { return false }
                    s.clients.insert(fd)
                    return true
                }
                if admitted {
                    spawn(name: "gpick-http-client") { [self] in serve(fd) }
                } else {
                    refuse(fd)
                }
            }
        }

        /// Full (or closing): answer 503 without a thread and without blocking the accept loop.
        private func refuse(_ fd: Int32) {
            var sink = [UInt8](repeating: 0, count: 2048)
            _ = sink.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            let body = "too many viewers\n"
            let head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Retry-After: 5\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n\(body)"
            _ = Array(head.utf8).withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            Glibc.close(fd)
        }

        // MARK: Serving one client

        private func serve(_ fd: Int32) {
            defer {
                state.withLock { s in
                    s.clients.remove(fd)
                    Glibc.close(fd)
                }
            }
            switch HTTPRequest.read(from: fd) {
            case .failure(.closed): return
            case .failure(.malformed): reply(fd, "400 Bad Request", text: "bad request\n")
            case .failure(.tooLarge): reply(fd, "431 Request Header Fields Too Large", text: "request too large\n")
            case .success(let request): route(request, fd)
            }
        }

        private func route(_ request: HTTPRequest, _ fd: Int32) {
            let headOnly = request.method == "HEAD"
            guard request.method == "GET" || headOnly else {
                return reply(fd, "405 Method Not Allowed", text: "only GET and HEAD\n", extra: "Allow: GET, HEAD\r\n")
            }
            switch request.path {
            case "/", "/index.html":
                reply(fd, "200 OK", type: "text/html; charset=utf-8", body: page, headOnly: headOnly)
            case "/stream.mjpg":
                stream(fd, headOnly: headOnly)
            case "/snapshot.jpg":
                if let jpeg = state.withLock({ $0.frame }) {
                    reply(fd, "200 OK", type: "image/jpeg", body: jpeg, headOnly: headOnly)
                } else {
                    reply(fd, "503 Service Unavailable", text: "no frame yet\n", extra: "Retry-After: 1\r\n", headOnly: headOnly)
                }
            default:
                reply(fd, "404 Not Found", text: "not found\n", headOnly: headOnly)
            }
        }

        private func reply(_ fd: Int32, _ status: String, text: String, extra: String = "", headOnly: Bool = false) {
            reply(fd, status, type: "text/plain; charset=utf-8", body: Array(text.utf8), extra: extra, headOnly: headOnly)
        }

        private func reply(_ fd: Int32, _ status: String, type: String, body: [UInt8], extra: String = "", headOnly: Bool = false) {
            let head = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
                + "Cache-Control: no-cache\r\n\(extra)Connection: close\r\n\r\n"
            _ = Self.sendAll(fd, headOnly ? [Array(head.utf8)] : [Array(head.utf8), body])
        }

        private func stream(_ fd: Int32, headOnly: Bool) {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=\(Self.boundary)\r\n"
                + "Cache-Control: no-cache, no-store\r\nPragma: no-cache\r\nConnection: close\r\n\r\n"
            guard !headOnly else { return _ = Self.sendAll(fd, [Array(head.utf8)]) }
            // Each part ends with the next boundary, so a browser shows a frame as soon as it has it
            // rather than when the following frame starts.
            guard Self.sendAll(fd, [Array(head.utf8), Array("--\(Self.boundary)\r\n".utf8)]) else { return }
            viewerChanged(+1)
            defer { viewerChanged(-1) }
            let trailer = Array("\r\n--\(Self.boundary)\r\n".utf8)
            var seen: UInt64 = 0
            while let jpeg = nextFrame(after: &seen, fd) {
                let partHead = Array("Content-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8)
                guard Self.sendAll(fd, [partHead, jpeg, trailer]) else { return }
            }
        }

        /// Waits for a frame newer than `seen`; nil once closed or the viewer has hung up (checked
        /// each second, so a viewer leaving while capture is stalled still counts as gone).
        private func nextFrame(after seen: inout UInt64, _ fd: Int32) -> [UInt8]? {
            let last = seen
            while true {
                let deadline = ContinuousClock.now + .seconds(1)
                let next = state.wait(until: { s in s.closed || (s.sequence != last && s.frame != nil) },
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
                    if Self.hungUp(fd) { return nil }
                }
            }
        }

        private func viewerChanged(_ delta: Int) {
            viewerCalls.withLock { _ in
                let (count, handler) = state.withLock { s -> (Int, (@Sendable (Int) -> Void)?) in
                    s.viewers += delta
                    return (s.viewers, s.onViewer)
                }
                handler?(count)
            }
        }

        // MARK: Socket helpers

        /// Sends all pieces within `ioDeadline`, or reports failure (peer gone, or too slow to
        /// matter). MSG_MORE holds back a partial packet until the last piece; MSG_NOSIGNAL turns
        /// SIGPIPE into an EPIPE return.
        private static func sendAll(_ fd: Int32, _ pieces: [[UInt8]]) -> Bool {
            let deadline = ContinuousClock.now + ioDeadline
            for (i, piece) in pieces.enumerated() {
                let flags = Int32(MSG_NOSIGNAL | (i < pieces.count - 1 ? MSG_MORE : 0))
                let sent = piece.withUnsafeBytes { buf -> Bool in
                    var off = 0
                    while off < buf.count {
                        let n = Glibc.send(fd, buf.baseAddress! + off, buf.count - off, flags)
                        if n < 0 && errno != EINTR && errno != EAGAIN { return false }
                        if n > 0 { off += n }
                        if off < buf.count && ContinuousClock.now > deadline { return false }
                    }
                    return true
                }
                guard sent else { return false }
            }
            return true
        }

        /// True once the peer has closed or reset (a zero-byte peek is EOF).
        private static func hungUp(_ fd: Int32) -> Bool {
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        }
    }
}
