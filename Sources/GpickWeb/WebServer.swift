import FoundationEssentials
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// What answers one request, on the connection's own thread (it may block: it is never the
/// cooperative pool). It must answer through `response` before returning.
public typealias WebHandler = @Sendable (WebRequest, WebResponse) -> Void

/// gpick's one local web server: the HTTP preview, the picker and the avatar editor all mount
/// their pages on it.
///
/// - Listens on 127.0.0.1 only, and answers only requests with the right Host header and token
///   (`WebAccess`); everything else gets 403 before any handler runs.
/// - Handlers are found by exact path, or by the longest mounted prefix; assets are addressed by
///   id in the path, never by a file path the client gives.
/// - Plain POSIX sockets and threads: one accept thread, one thread per connection (at most
///   `maxClients`, more are answered 503); every response closes its connection.
public final class WebServer: Sendable {
    public static let maxClients = 32

    let core: Core
    /// The bound port (the real one when 0 was asked for).
    public let port: Int
    /// The secret a client must present (see `url`).
    public let token: String
    public var origin: String { "http://127.0.0.1:\(port)" }

    /// `path` on this server with the token: the URL to print and open.
    public func url(_ path: String = "/") -> String {
        origin + path + (path.contains("?") ? "&" : "?") + "token=" + token
    }

    /// - Parameter maxBody: largest request body accepted (413 above).
    public init(port: Int = 0, maxBody: Int = 1 << 20) throws(GpickError) {
        let (fd, bound) = try Listener.open(port: port)
        self.port = bound
        token = WebAccess.newToken()
        core = Core(listenFD: fd, access: WebAccess(token: token, port: bound), maxBody: maxBody)
        core.spawn(name: "gpick-http-accept") { [core] in core.acceptLoop() }
    }

    deinit { core.close() }

    /// Answers `path` (exactly) with `handler`; `prefix: true` answers every path under it.
    /// A later mount of the same path replaces the earlier one.
    public func mount(_ path: String, prefix: Bool = false, _ handler: @escaping WebHandler) {
        core.routes.withLock { $0[Route(path: path, prefix: prefix)] = handler }
    }

    /// Answers GET and HEAD of `path` with fixed bytes (a page's script or style sheet).
    public func mountAsset(_ path: String, type: String, _ body: [UInt8]) {
        mount(path) { request, response in
            guard response.allowsRead(request) else { return }
            response.send(.ok, type: type, body: body)
        }
    }

    /// Removes what `mount` added for `path`.
    public func unmount(_ path: String, prefix: Bool = false) {
        core.routes.withLock { _ = $0.removeValue(forKey: Route(path: path, prefix: prefix)) }
    }

    /// Runs `handler` once when the server closes (at once if it has): streams waiting for their
    /// next frame end then, rather than at their next timeout.
    public func onClose(_ handler: @escaping @Sendable () -> Void) { core.onClose(handler) }

    /// Stops accepting, disconnects every client and waits for the server's threads to end.
    /// With `grace`, connections still being answered get that long to finish first (a call
    /// that ended the page's session still sends its answer). Idempotent. A handler must not
    /// call it (it would wait for its own thread).
    public func close(grace: Duration = .zero) { core.close(grace: grace) }

    public var isClosed: Bool { core.isClosed }

    struct Route: Hashable {
        var path: String
        var prefix: Bool
    }
}

extension WebServer {
    /// The shared state, owned by the server's threads as well as the public object (so the
    /// public object can still be released, and its deinit close everything).
    ///
    /// A client fd is closed only inside `state`'s lock and after leaving `clients`, so `close()`
    /// never shuts down a reused descriptor.
    final class Core: Sendable {
        /// How long a client may take to send its request, or to take one response or part.
        static let ioTimeout = timeval(tv_sec: 5, tv_usec: 0)
        /// Per send() call; sendAll checks a deadline between calls, since a send that keeps
        /// making a little progress never times out on its own.
        static let sendTimeout = timeval(tv_sec: 1, tv_usec: 0)

        let state = Monitor(State())
        let routes = Locked([Route: WebHandler]())
        let access: WebAccess
        let maxBody: Int
        private let listenFD: Int32

        struct State {
            var listenOpen = true
            /// False once closing has begun: the listening socket is shut.
            var accepting = true
            var closed = false
            var clients: Set<Int32> = []
            /// Threads started by `spawn` and not yet ended.
            var threads = 0
            var closeHandlers: [@Sendable () -> Void] = []
        }

        init(listenFD: Int32, access: WebAccess, maxBody: Int) {
            self.listenFD = listenFD
            self.access = access
            self.maxBody = maxBody
        }

        var isClosed: Bool { state.withLock { $0.closed } }

        func onClose(_ handler: @escaping @Sendable () -> Void) {
            let now = state.withLock { s -> Bool in
                if !s.closed { s.closeHandlers.append(handler) }
                return s.closed
            }
            if now { handler() }
        }

        func close(grace: Duration = .zero) {
            if grace > .zero {
                state.withLock { s in
                    if !s.closed { shutdown(listenFD, Int32(SHUT_RDWR)) }
                    s.accepting = false
                }
                state.wait(until: { $0.clients.isEmpty || $0.closed }, deadline: .now + grace) { _ in }
            }
            let handlers = state.withLock { s -> [@Sendable () -> Void] in
                guard !s.closed else { return [] }
                s.closed = true
                // shutdown (not close) wakes threads blocked in accept/recv/send on these fds.
                shutdown(listenFD, Int32(SHUT_RDWR))
                for fd in s.clients { shutdown(fd, Int32(SHUT_RDWR)) }
                defer { s.closeHandlers = [] }
                return s.closeHandlers
            }
            for handler in handlers { handler() }
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
            let started = detachThread(named: name) {
                body()
                self.state.withLock { $0.threads -= 1 }
            }
            if !started { state.withLock { $0.threads -= 1 } }
        }

        func acceptLoop() {
            while true {
                // (accept4 is not imported without _GNU_SOURCE; FD_CLOEXEC right after, as OutputPath does.)
                let fd = accept(listenFD, nil, nil)
                if fd < 0 {
                    let e = errno
                    if state.withLock({ $0.closed || !$0.accepting }) { return }
                    // Out of fds or memory: back off instead of spinning on the pending connection.
                    if e != EINTR && e != ECONNABORTED { usleep(50_000) }
                    continue
                }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                var tv = Self.sendTimeout
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                tv = Self.ioTimeout
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                var one: Int32 = 1   // a stream part's trailer is what browsers wait for: no Nagle delay
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let admitted = state.withLock { s -> Bool in
                    guard !s.closed, s.clients.count < WebServer.maxClients else { return false }
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
            let body = "too many connections\n"
            let head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Retry-After: 5\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n\(body)"
            _ = Array(head.utf8).withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            Glibc.close(fd)
        }

        private func serve(_ fd: Int32) {
            defer {
                state.withLock { s in
                    s.clients.remove(fd)
                    Glibc.close(fd)
                }
            }
            let bare = WebResponse(fd: fd, core: self, headOnly: false, cookie: nil)
            switch WebRequest.read(from: fd, maxBody: maxBody) {
            case .failure(.closed): return
            case .failure(.malformed): bare.text(.badRequest, "bad request\n")
            case .failure(.headTooLarge): bare.text(.headerTooLarge, "request head too large\n")
            case .failure(.bodyTooLarge): bare.text(.payloadTooLarge, "request body too large (at most \(maxBody) bytes)\n")
            case .failure(.lengthRequired): bare.text(.lengthRequired, "send a Content-Length, not a chunked body\n")
            case .success(let request): route(request, fd)
            }
        }

        private func route(_ request: WebRequest, _ fd: Int32) {
            let headOnly = request.method == "HEAD"
            switch access.check(request) {
            case .forbidden(let why):
                WebResponse(fd: fd, core: self, headOnly: headOnly, cookie: nil).text(.forbidden, why)
            case .allowed(let setCookie):
                let response = WebResponse(fd: fd, core: self, headOnly: headOnly, cookie: setCookie ? access.cookieHeader : nil)
                // Paths are routes and ids, never file paths: dot segments, empty segments and
                // escapes name nothing here.
                guard Self.plain(request.path) else { return response.text(.notFound, "not found\n") }
                guard let handler = handler(for: request.path) else { return response.text(.notFound, "not found\n") }
                handler(request, response)
            }
        }

        static func plain(_ path: String) -> Bool {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            return !path.contains("%") && !path.contains("\\")
                && !segments.dropLast().contains { $0.isEmpty } && !segments.contains { $0 == "." || $0 == ".." }
        }

        func handler(for path: String) -> WebHandler? {
            routes.withLock { table in
                if let exact = table[Route(path: path, prefix: false)] { return exact }
                return table.filter { $0.key.prefix && path.hasPrefix($0.key.path) }
                    .max { $0.key.path.count < $1.key.path.count }?.value
            }
        }
    }
}
