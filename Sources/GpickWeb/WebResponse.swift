import NIOCore
import NIOHTTP1

/// An HTTP status gpick's server answers with.
public struct WebStatus: Sendable, Equatable {
    public let code: Int
    public let reason: String
    public init(_ code: Int, _ reason: String) { self.code = code; self.reason = reason }

    public static let ok = WebStatus(200, "OK")
    public static let noContent = WebStatus(204, "No Content")
    public static let badRequest = WebStatus(400, "Bad Request")
    public static let forbidden = WebStatus(403, "Forbidden")
    public static let notFound = WebStatus(404, "Not Found")
    public static let methodNotAllowed = WebStatus(405, "Method Not Allowed")
    public static let conflict = WebStatus(409, "Conflict")
    public static let lengthRequired = WebStatus(411, "Length Required")
    public static let payloadTooLarge = WebStatus(413, "Payload Too Large")
    public static let headerTooLarge = WebStatus(431, "Request Header Fields Too Large")
    public static let internalError = WebStatus(500, "Internal Server Error")
    public static let serviceUnavailable = WebStatus(503, "Service Unavailable")
}

/// The answer to one request: one `send`, or a stream (`startStream`, then `write` until it
/// returns false). It is written from the handler's own thread, which waits for each part to leave.
///
/// Every response says `Connection: close`, `X-Content-Type-Options: nosniff` and
/// `Referrer-Policy: no-referrer` (the token is in the page's URL), and is not cached unless the
/// handler says otherwise.
public struct WebResponse: Sendable {
    let connection: WebConnection
    let core: WebServer.Core
    /// HEAD: headers only.
    let headOnly: Bool
    /// The Set-Cookie value handing the URL's token over (first request of a page).
    let cookie: String?

    /// Longest a response or one stream part may take to leave.
    static let sendDeadline = Duration.seconds(5)

    @available(*, noasync)
    public func send(_ status: WebStatus, type: String, body: [UInt8], headers: [String: String] = [:]) {
        _ = connection.write(parts(status, type: type, body: body, headers), deadline: Self.sendDeadline)
    }

    private func parts(_ status: WebStatus, type: String, body: [UInt8], _ headers: [String: String]) -> [HTTPServerResponsePart] {
        let head = Self.head(status, type: type, length: body.count, headers, cookie: cookie)
        return headOnly || body.isEmpty ? [.head(head), .end(nil)] : [.head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil)]
    }

    @available(*, noasync)
    public func text(_ status: WebStatus, _ text: String, headers: [String: String] = [:]) {
        send(status, type: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }

    @available(*, noasync)
    public func json(_ status: WebStatus = .ok, _ body: [UInt8]) {
        send(status, type: "application/json", body: body)
    }

    /// `value` as JSON (see `WebJSON`).
    @available(*, noasync)
    public func json(_ status: WebStatus = .ok, encoding value: some Encodable) {
        json(status, WebJSON.bytes(value))
    }

    /// 405 with the methods the path takes.
    @available(*, noasync)
    public func methodNotAllowed(allow: String) {
        text(.methodNotAllowed, "only \(allow)\n", headers: ["Allow": allow])
    }

    /// Whether `request` reads (GET or HEAD); if not, answers 405 and returns false.
    @available(*, noasync)
    public func allowsRead(_ request: WebRequest) -> Bool {
        if request.method == "GET" || request.method == "HEAD" { return true }
        methodNotAllowed(allow: "GET, HEAD")
        return false
    }

    /// Whether `request` is a POST; if not, answers 405 and returns false.
    @available(*, noasync)
    public func allowsPost(_ request: WebRequest) -> Bool {
        if request.method == "POST" { return true }
        methodNotAllowed(allow: "POST")
        return false
    }

    /// Sends the head of an open-ended response (no Content-Length: it ends when the connection
    /// closes); false if the client is gone. A HEAD request gets the head and nothing more (then
    /// this returns false).
    @available(*, noasync)
    public func startStream(type: String, headers: [String: String] = [:]) -> Bool {
        let ok = connection.write([.head(Self.head(.ok, type: type, length: nil, headers, cookie: cookie))], deadline: Self.sendDeadline)
        return ok && !headOnly
    }

    /// Writes the next part of a stream; false once the client is gone or too slow to matter.
    @available(*, noasync)
    public func write(_ pieces: [[UInt8]]) -> Bool {
        connection.write([.body(.byteBuffer(Self.buffer(pieces)))], deadline: Self.sendDeadline)
    }

    private static func buffer(_ pieces: [[UInt8]]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(pieces.reduce(0) { $0 + $1.count })
        for piece in pieces { buffer.writeBytes(piece) }
        return buffer
    }

    // The same for a task handler (`WebServer.mount(_:task:)`): each write is awaited, no thread
    // is parked.

    public func send(_ status: WebStatus, type: String, body: [UInt8], headers: [String: String] = [:]) async {
        _ = await connection.write(parts(status, type: type, body: body, headers), deadline: Self.sendDeadline)
    }

    public func text(_ status: WebStatus, _ text: String, headers: [String: String] = [:]) async {
        await send(status, type: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }

    public func startStream(type: String, headers: [String: String] = [:]) async -> Bool {
        let ok = await connection.write([.head(Self.head(.ok, type: type, length: nil, headers, cookie: cookie))], deadline: Self.sendDeadline)
        return ok && !headOnly
    }

    public func allowsRead(_ request: WebRequest) async -> Bool {
        if request.method == "GET" || request.method == "HEAD" { return true }
        await text(.methodNotAllowed, "only GET, HEAD\n", headers: ["Allow": "GET, HEAD"])
        return false
    }

    public func write(_ pieces: [[UInt8]]) async -> Bool {
        await connection.write([.body(.byteBuffer(Self.buffer(pieces)))], deadline: Self.sendDeadline)
    }

    /// True once the client has closed its side or reset the connection.
    public var clientHungUp: Bool { connection.hungUp }

    /// Runs `body` once, when the client hangs up (at once if it has), while the handler may be
    /// waiting for something else: a stream learns its page has gone without writing to it.
    public func whenClientHangsUp(_ body: @escaping @Sendable () -> Void) { connection.whenHungUp(body) }

    public var serverClosed: Bool { core.isClosed }

    static func head(_ status: WebStatus, type: String, length: Int?, _ headers: [String: String], cookie: String?) -> HTTPResponseHead {
        var fields = HTTPHeaders()
        fields.add(name: "Content-Type", value: type)
        if let length { fields.add(name: "Content-Length", value: String(length)) }
        if headers["Cache-Control"] == nil { fields.add(name: "Cache-Control", value: "no-store") }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.add(name: name, value: value) }
        fields.add(name: "X-Content-Type-Options", value: "nosniff")
        fields.add(name: "Referrer-Policy", value: "no-referrer")
        if let cookie { fields.add(name: "Set-Cookie", value: cookie) }
        fields.add(name: "Connection", value: "close")
        return HTTPResponseHead(version: .http1_1, status: .custom(code: UInt(status.code), reasonPhrase: status.reason), headers: fields)
    }
}
