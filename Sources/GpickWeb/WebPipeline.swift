import GpickBase
import NIOCore
import NIOHTTP1

/// What each connection's channel holds, in order: swift-nio's HTTP/1 decoder and encoder, then
/// gpick's three steps. A request is read within bounds (`RequestReader`), let in or refused by
/// the token, Host and cookie rules (`AccessGate`), then answered on a thread of its own
/// (`Dispatcher`). Everything before the handler runs on the event loop and never blocks.
enum WebPipeline {
    /// Largest request head accepted (header names and values); a browser's GET is well under 2 KiB.
    static let maxHead = 8192
    /// How long a client may take to send its whole request.
    static let requestDeadline = TimeAmount.seconds(5)

    static func handlers(core: WebServer.Core, connection: WebConnection) -> [any ChannelHandler] {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = maxHead
        limits.maxHeaderFieldSize = maxHead
        var encoding = HTTPResponseEncoder.Configuration()
        // Framing is the response's own: a length, or a stream that ends with the connection.
        encoding.automaticallySetFramingHeaders = false
        return [
            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)),
            HTTPResponseEncoder(configuration: encoding),
            RequestReader(maxBody: core.maxBody),
            AccessGate(access: core.access),
            Dispatcher(core: core, connection: connection),
        ]
    }

    /// Answers from the event loop (a refusal, before any handler): the whole response, then close.
    static func answer(_ context: ChannelHandlerContext, _ status: WebStatus, _ text: String, headers: [String: String] = [:]) {
        let body = Array(text.utf8)
        let head = WebResponse.head(status, type: "text/plain; charset=utf-8", length: body.count, headers, cookie: nil)
        let channel = context.channel
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Reads one request, head and body, within bounds: 431 for a head over `WebPipeline.maxHead`,
/// 413 for a body over `maxBody`, 411 for a chunked body (gpick's pages never send one), 400 for
/// what is not HTTP/1. A client that has not sent its whole request within the deadline, or hangs
/// up first, is disconnected without an answer. Every response closes its connection, so one
/// request is all a connection carries: what follows it is ignored.
final class RequestReader: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = WebRequest
    typealias OutboundOut = HTTPServerResponsePart

    private let maxBody: Int
    private var request: WebRequest?
    private var finished = false
    private var deadline: Scheduled<Void>?

    init(maxBody: Int) { self.maxBody = maxBody }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadline?.cancel() }

    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil, !finished else { return }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: WebPipeline.requestDeadline) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard head.uri.hasPrefix("/") else { return refuse(context, .badRequest, "bad request\n") }
            if head.headers.contains(name: "transfer-encoding") {
                return refuse(context, .lengthRequired, "send a Content-Length, not a chunked body\n")
            }
            let declared = head.headers.first(name: "content-length")
            guard let length = declared == nil ? 0 : Int(declared!), length >= 0 else {
                return refuse(context, .badRequest, "bad request\n")
            }
            guard length <= maxBody else { return tooLarge(context) }
            request = WebRequest(head)
        case .body(var chunk):
            guard request != nil else { return }
            request!.body += chunk.readBytes(length: chunk.readableBytes) ?? []
            if request!.body.count > maxBody { tooLarge(context) }
        case .end:
            guard let request else { return }
            finished = true
            deadline?.cancel()
            context.fireChannelRead(wrapInboundOut(request))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !finished else { return context.close(promise: nil) }
        switch error as? HTTPParserError {
        case .headerOverflow?: refuse(context, .headerTooLarge, "request head too large\n")
        case .some: refuse(context, .badRequest, "bad request\n")
        case nil: finish(context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side before a whole request: nobody to answer.
        if event as? ChannelEvent == .inputClosed, !finished { finish(context) }
        context.fireUserInboundEventTriggered(event)
    }

    private func tooLarge(_ context: ChannelHandlerContext) {
        refuse(context, .payloadTooLarge, "request body too large (at most \(maxBody) bytes)\n")
    }

    private func refuse(_ context: ChannelHandlerContext, _ status: WebStatus, _ text: String) {
        finished = true
        deadline?.cancel()
        WebPipeline.answer(context, status, text)
    }

    private func finish(_ context: ChannelHandlerContext) {
        finished = true
        deadline?.cancel()
        context.close(promise: nil)
    }
}

/// The token, Host and cookie rules (`WebAccess`) as a step of the pipeline: a request that
/// breaks one gets 403 here, before any handler or thread.
final class AccessGate: ChannelInboundHandler {
    typealias InboundIn = WebRequest
    typealias InboundOut = Admitted
    typealias OutboundOut = HTTPServerResponsePart

    /// A request let in, and the cookie its response hands over (the token came in the URL).
    struct Admitted {
        var request: WebRequest
        var cookie: String?
    }

    private let access: WebAccess

    init(access: WebAccess) { self.access = access }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let request = unwrapInboundIn(data)
        switch access.check(request) {
        case .forbidden(let why):
            WebPipeline.answer(context, .forbidden, why)
        case .allowed(let setCookie):
            context.fireChannelRead(wrapInboundOut(Admitted(request: request, cookie: setCookie ? access.cookie : nil)))
        }
    }
}

/// Hands an admitted request to a thread of its own (handlers may block: they are never the
/// event loop nor the cooperative pool), and tells the connection when its client hangs up.
final class Dispatcher: ChannelInboundHandler {
    typealias InboundIn = AccessGate.Admitted
    typealias OutboundOut = HTTPServerResponsePart

    private let core: WebServer.Core
    private let connection: WebConnection

    init(core: WebServer.Core, connection: WebConnection) {
        self.core = core
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let admitted = unwrapInboundIn(data)
        guard core.answer(admitted.request, cookie: admitted.cookie, on: connection) else {
            return WebPipeline.answer(context, .serviceUnavailable, "too many connections\n", headers: ["Retry-After": "5"])
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.hangUp()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event as? ChannelEvent == .inputClosed { connection.hangUp() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a broken pipe: the client has gone.
        connection.hangUp()
        context.close(promise: nil)
    }
}
