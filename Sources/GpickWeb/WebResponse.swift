import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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

/// The answer to one request, written straight to its socket: one `send`, or a stream
/// (`startStream`, then `write` until it returns false).
///
/// Every response says `Connection: close`, `X-Content-Type-Options: nosniff` and
/// `Referrer-Policy: no-referrer` (the token is in the page's URL), and is not cached unless the
/// handler says otherwise.
public struct WebResponse: Sendable {
    let fd: Int32
    let core: WebServer.Core
    /// HEAD: headers only.
    let headOnly: Bool
    /// The Set-Cookie line handing the URL's token over (first request of a page).
    let cookie: String?

    /// Longest a response or one stream part may take to leave.
    static let sendDeadline = Duration.seconds(5)

    public func send(_ status: WebStatus, type: String, body: [UInt8], headers: [String: String] = [:]) {
        _ = Self.sendAll(fd, headOnly ? [head(status, type: type, length: body.count, headers)]
                                      : [head(status, type: type, length: body.count, headers), body])
    }

    public func text(_ status: WebStatus, _ text: String, headers: [String: String] = [:]) {
        send(status, type: "text/plain; charset=utf-8", body: Array(text.utf8), headers: headers)
    }

    public func json(_ status: WebStatus = .ok, _ body: [UInt8]) {
        send(status, type: "application/json", body: body)
    }

    /// `value` as JSON (see `WebJSON`).
    public func json(_ status: WebStatus = .ok, encoding value: some Encodable) {
        json(status, WebJSON.bytes(value))
    }

    /// 405 with the methods the path takes.
    public func methodNotAllowed(allow: String) {
        text(.methodNotAllowed, "only \(allow)\n", headers: ["Allow": allow])
    }

    /// Whether `request` reads (GET or HEAD); if not, answers 405 and returns false.
    public func allowsRead(_ request: WebRequest) -> Bool {
        if request.method == "GET" || request.method == "HEAD" { return true }
        methodNotAllowed(allow: "GET, HEAD")
        return false
    }

    /// Whether `request` is a POST; if not, answers 405 and returns false.
    public func allowsPost(_ request: WebRequest) -> Bool {
        if request.method == "POST" { return true }
        methodNotAllowed(allow: "POST")
        return false
    }

    /// Sends the head of an open-ended response (no Content-Length); false if the client is gone.
    /// A HEAD request gets the head and nothing more (then this returns false).
    public func startStream(type: String, headers: [String: String] = [:]) -> Bool {
        let ok = Self.sendAll(fd, [head(.ok, type: type, length: nil, headers)])
        return ok && !headOnly
    }

    /// Writes the next part of a stream; false once the client is gone or too slow to matter.
    public func write(_ pieces: [[UInt8]]) -> Bool { Self.sendAll(fd, pieces) }

    /// True once the client has closed or reset (a zero-byte peek is EOF).
    public var clientHungUp: Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    public var serverClosed: Bool { core.isClosed }

    private func head(_ status: WebStatus, type: String, length: Int?, _ headers: [String: String]) -> [UInt8] {
        var text = "HTTP/1.1 \(status.code) \(status.reason)\r\nContent-Type: \(type)\r\n"
        if let length { text += "Content-Length: \(length)\r\n" }
        if headers["Cache-Control"] == nil { text += "Cache-Control: no-store\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
        if let cookie { text += cookie }
        text += "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// Sends all pieces within `sendDeadline`, or reports failure (peer gone, or too slow to
    /// matter). MSG_MORE holds back a partial packet until the last piece; MSG_NOSIGNAL turns
    /// SIGPIPE into an EPIPE return.
    static func sendAll(_ fd: Int32, _ pieces: [[UInt8]]) -> Bool {
        let deadline = ContinuousClock.now + sendDeadline
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
}
