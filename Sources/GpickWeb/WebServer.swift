import GpickBase
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// What answers one request, on the connection's own thread (it may block: it is never the
/// cooperative pool). It must answer through `response` before returning.
public typealias WebHandler = @Sendable (WebRequest, WebResponse) -> Void

/// What answers one request as a task on the cooperative pool: it must not block, and writes
/// with `await`. A client that hangs up cancels it.
public typealias WebTaskHandler = @Sendable (WebRequest, WebResponse) async -> Void

/// gpick's one local web server: the HTTP preview, the picker and the avatar editor all mount
/// their pages on it.
///
/// - Listens on 127.0.0.1 only, and answers only requests with the right Host header and token
///   (`WebAccess`); everything else gets 403 before any handler runs.
/// - Handlers are found by exact path, or by the longest mounted prefix; assets are addressed by
///   id in the path, never by a file path the client gives.
/// - swift-nio's event loop reads requests with its HTTP/1 codec, within bounds, and applies the
///   access rules; each admitted request is answered on a thread of its own (at most
///   `maxClients` at once, more are answered 503), so a handler may block. Every response closes
///   its connection.
/// - A client that hangs up is heard at once (`WebResponse.whenClientHangsUp`), not at the next
///   write.
public final class WebServer: Sendable {
    /// Requests being answered at once.
    public static let maxClients = 32
    /// Open connections, most of them still sending their request; past this a new one is closed
    /// at once. Idle and slow clients cost no thread, and are dropped after 5 s.
    public static let maxConnections = 512

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

    /// Listens on 127.0.0.1 with a new random token.
    /// - Parameters:
    ///   - port: the port to listen on (0: any free port).
    ///   - maxBody: largest request body accepted (413 above).
    public init(port: Int = 0, maxBody: Int = 1 << 20) throws(GpickError) {
        let (fd, bound) = try Listener.open(port: port)
        self.port = bound
        token = WebAccess.newToken()
        let core = Core(access: WebAccess(token: token, port: bound), maxBody: maxBody)
        self.core = core
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)   // a stream part's end is what browsers wait for
            .childChannelOption(.allowRemoteHalfClosure, value: true)    // a client done sending may still read its answer
            .childChannelInitializer { channel in core.adopt(channel) }
        do {
            core.listening(try bootstrap.withBoundSocket(fd).wait())
            // NIO listens again as it adopts the socket, with its fixed 128. A second listen on a
            // listening socket only changes the length of its queue.
            Glibc.listen(fd, Listener.backlog)
        } catch {
            // Not closed here: the channel NIO made owns the descriptor from withBoundSocket on,
            // and closes it when its setup fails. A second close would close whatever the number
            // was given to meanwhile, on another thread.
            throw GpickError(.runtime, "cannot serve on 127.0.0.1:\(bound): \(error)")
        }
    }

    deinit { core.close() }

    /// Answers `path` (exactly) with `handler`; `prefix: true` answers every path under it.
    /// A later mount of the same path replaces the earlier one.
    public func mount(_ path: String, prefix: Bool = false, _ handler: @escaping WebHandler) {
        core.routes.withLock { $0[Route(path: path, prefix: prefix)] = .thread(handler) }
    }

    /// Answers `path` with `handler`, as a task rather than on a thread: for answers that wait on
    /// other tasks (thumbnails being made), where a thread would only sit parked.
    public func mount(_ path: String, prefix: Bool = false, task handler: @escaping WebTaskHandler) {
        core.routes.withLock { $0[Route(path: path, prefix: prefix)] = .task(handler) }
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

    /// Stops accepting, disconnects every client and waits for the requests being answered to end.
    /// With `grace`, connections still being answered get that long to finish first (a call
    /// that ended the page's session still sends its answer). Idempotent. A handler must not
    /// call it (it would wait for its own thread).
    public func close(grace: Duration = .zero) { core.close(grace: grace) }

    public var isClosed: Bool { core.isClosed }

    struct Route: Hashable {
        var path: String
        var prefix: Bool
    }

    enum Answer {
        case thread(WebHandler)
        case task(WebTaskHandler)
    }
}

extension WebServer {
    /// The shared state, owned by the event loop's handlers and the handler threads as well as the
    /// public object (so the public object can still be released, and its deinit close everything).
    final class Core: Sendable {
        let state = Monitor(State())
        let routes = Locked([Route: Answer]())
        let access: WebAccess
        let maxBody: Int

        struct State {
            var listener: (any Channel)?
            var closed = false
            /// Requests being answered (on their threads or as tasks).
            var answering = 0
            var connections: [ObjectIdentifier: any Channel] = [:]
            var closeHandlers: [@Sendable () -> Void] = []
        }

        init(access: WebAccess, maxBody: Int) {
            self.access = access
            self.maxBody = maxBody
        }

        var isClosed: Bool { state.withLock { $0.closed } }

        func listening(_ channel: any Channel) { state.withLock { $0.listener = channel } }

        /// A new connection: its pipeline, or closed at once when the server is closed or full.
        func adopt(_ channel: any Channel) -> EventLoopFuture<Void> {
            let id = ObjectIdentifier(channel)
            let taken = state.withLock { s -> Bool in
                guard !s.closed, s.connections.count < WebServer.maxConnections else { return false }
                s.connections[id] = channel
                return true
            }
            guard taken else { return channel.close() }
            channel.closeFuture.whenComplete { [self] _ in state.withLock { _ = $0.connections.removeValue(forKey: id) } }
            do {
                try channel.pipeline.syncOperations.addHandlers(WebPipeline.handlers(core: self, connection: WebConnection(channel)))
                return channel.eventLoop.makeSucceededVoidFuture()
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }

        func onClose(_ handler: @escaping @Sendable () -> Void) {
            let now = state.withLock { s -> Bool in
                if !s.closed { s.closeHandlers.append(handler) }
                return s.closed
            }
            if now { handler() }
        }

        func close(grace: Duration = .zero) {
            if grace > .zero {
                // Take no new connection, and give the requests being answered their grace.
                let listener = state.withLock { $0.closed ? nil : $0.listener }
                if let listener { try? listener.close().wait() }
                state.wait(until: { $0.answering == 0 || $0.closed }, deadline: .now + grace) { _ in }
            }
            let (handlers, channels) = state.withLock { s -> ([@Sendable () -> Void], [any Channel]) in
                guard !s.closed else { return ([], []) }
                s.closed = true
                defer { s.closeHandlers = [] }
                return (s.closeHandlers, (s.listener.map { [$0] } ?? []) + Array(s.connections.values))
            }
            // Closing a connection fails its pending writes and wakes the handler waiting on them.
            for channel in channels { channel.close(promise: nil) }
            for handler in handlers { handler() }
            if let listener = channels.first, !listener.eventLoop.inEventLoop { try? listener.closeFuture.wait() }
            state.wait(until: { $0.answering == 0 }) { _ in }
        }

        /// Answers `request` on a thread of its own, or as a task; false when the server is
        /// closed or already answering `maxClients` requests.
        func answer(_ request: WebRequest, cookie: String?, on connection: WebConnection) -> Bool {
            let admitted = state.withLock { s -> Bool in
                guard !s.closed, s.answering < WebServer.maxClients else { return false }
                s.answering += 1
                return true
            }
            guard admitted else { return false }
            let response = WebResponse(connection: connection, core: self, headOnly: request.method == "HEAD", cookie: cookie)
            let ended: @Sendable () -> Void = { [self] in
                connection.close()
                state.withLock { $0.answering -= 1 }
            }
            // Paths are routes and ids, never file paths: dot segments, empty segments and
            // escapes name nothing here.
            let answer = Self.plain(request.path) ? handler(for: request.path) : nil
            switch answer {
            case .task(let handler)?:
                let task = Task {
                    await handler(request, response)
                    ended()
                }
                connection.whenHungUp { task.cancel() }
            case .thread(let handler)?:
                let started = detachThread(named: "gpick-http-client") {
                    handler(request, response)
                    ended()
                }
                if !started { state.withLock { $0.answering -= 1 } }
                return started
            case nil:
                Task {
                    await response.text(.notFound, "not found\n")
                    ended()
                }
            }
            return true
        }

        static func plain(_ path: String) -> Bool {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            return !path.contains("%") && !path.contains("\\")
                && !segments.dropLast().contains { $0.isEmpty } && !segments.contains { $0 == "." || $0 == ".." }
        }

        func handler(for path: String) -> Answer? {
            routes.withLock { table in
                if let exact = table[Route(path: path, prefix: false)] { return exact }
                return table.filter { $0.key.prefix && path.hasPrefix($0.key.path) }
                    .max { $0.key.path.count < $1.key.path.count }?.value
            }
        }
    }
}
