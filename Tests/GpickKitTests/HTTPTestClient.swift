import GpickWeb
import Foundation
import GpickBase
import GpickKit
import GpickTestSupport
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Helpers

/// A stand-in JPEG: SOI, `size - 4` bytes derived from `n`, EOI.
func fakeJPEG(_ n: Int, size: Int) -> [UInt8] {
    [0xFF, 0xD8] + (0..<(size - 4)).map { UInt8(truncatingIfNeeded: $0 &+ n &* 31) | 1 } + [0xFF, 0xD9]
}

/// Polls `condition` every 5 ms for up to `timeout`.
func waitUntil(_ timeout: Swift.Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Runs blocking socket work on a thread of its own, not on the cooperative pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { cont in
        let run: @Sendable () -> Void = { cont.resume(with: Result { try body() }) }
        // Named, so a failure's thread list tells test clients from the cooperative pool.
        if !detachThread(named: "test-http-client", run) { Thread { run() }.start() }
    }
}

/// `@unchecked Sendable` invariant: `values` is only touched under `lock`.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ v: Int) { lock.withLock { list.append(v) } }
    var values: [Int] { lock.withLock { list } }
}

/// Publishes `make(i)` every `every` seconds on a thread of its own until stopped.
/// `@unchecked Sendable` invariant: `running` is only touched under `lock`.
final class Publisher: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(_ server: MJPEGServer, every: Double, make: @escaping @Sendable (Int) -> [UInt8]) {
        Thread { [self] in
            var i = 0
            while lock.withLock({ running }) {
                server.publish(make(i))
                i += 1
                usleep(UInt32(every * 1_000_000))
            }
            done.signal()
        }.start()
    }

    func stop() {
        lock.withLock { running = false }
        done.wait()
    }
}

struct ClientError: Error, CustomStringConvertible {
    var description: String
}

struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]   // names lowercased
    var body: [UInt8]
}

/// A blocking HTTP/1.1 client on a raw socket (URLSession needs FoundationNetworking). Reads time
/// out after the suite's hang bound (15 s) so a broken server fails the test instead of hanging
/// it. Not 3 s, as it was: a loaded CI machine once kept a working server's answer back longer.
final class HTTPClient: @unchecked Sendable {   // used by one thread at a time
    let fd: Int32
    var buffer: [UInt8] = []

    let port: Int
    /// Sent as X-Gpick-Token on every request made with `get` (nil: none).
    let token: String?

    init(port: Int, token: String? = nil, receiveBuffer: Int32? = nil) throws {
        self.port = port
        self.token = token
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            isOpen = false
            throw ClientError(description: "socket: \(errno)")
        }
        // A hang bound: the in-process server answers from the cooperative pool, which this
        // test process shares with every suite. A CI run once had both pool threads busy with
        // other suites' work for over 15 s, and a working server's answer came late.
        var tv = timeval(tv_sec: Int(HangBound.seconds(60)), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else {
            let e = errno
            // Closed here, once: deinit runs for a class whose init throws after every property
            // is set, and a second close would close whatever the number was given to meanwhile
            // (another test's pipe to its child, which then died of SIGPIPE).
            close()
            throw ClientError(description: "connect: \(String(cString: strerror(e)))")
        }
    }

    deinit { close() }

    private var isOpen = true
    func close() {
        if isOpen { Glibc.close(fd) }
        isOpen = false
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n == bytes.count else { throw ClientError(description: "short send") }
    }

    /// Reads more into `buffer`: false at EOF; throws on timeout or error.
    @discardableResult
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 {
            let e = errno
            // A server in this process that does not answer: what this process's threads were
            // doing (the server's async handlers run on the cooperative pool, beside the tests).
            let threads = e == EAGAIN ? "\nthis process's threads:\n" + Subprocess.kernelStates(of: getpid()) : ""
            throw ClientError(description: "recv: \(String(cString: strerror(e)))" + threads)
        }
        buffer += chunk[0..<n]
        return n > 0
    }

    func line() throws -> String {
        while true {
            if let i = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: buffer[..<i], as: UTF8.self)
                buffer.removeSubrange(...i)
                return text.hasSuffix("\r") ? String(text.dropLast()) : text
            }
            guard try fill() else { throw ClientError(description: "EOF inside a line") }
        }
    }

    func bytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw ClientError(description: "EOF inside a body") }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    /// Header lines up to the blank line, names lowercased.
    func headers() throws -> [String: String] {
        var fields: [String: String] = [:]
        while case let l = try line(), !l.isEmpty {
            let kv = l.split(separator: ":", maxSplits: 1)
            if kv.count == 2 { fields[kv[0].lowercased()] = kv[1].trimmingCharacters(in: .whitespaces) }
        }
        return fields
    }

    func response() throws -> HTTPResponse {
        let status = try line().split(separator: " ")
        guard status.count >= 2, let code = Int(status[1]) else { throw ClientError(description: "bad status line") }
        let fields = try headers()
        while try fill() {}   // Connection: close — the body ends at EOF
        return HTTPResponse(status: code, headers: fields, body: buffer)
    }

    /// Sends one request (Host: 127.0.0.1:PORT unless `headers` has a "Host", which may be ""
    /// for none) and reads the response.
    func get(_ path: String, method: String = "GET", headers: [String: String] = [:], body: [UInt8] = []) throws -> HTTPResponse {
        var fields = ["Host": "127.0.0.1:\(port)"]
        if let token { fields["X-Gpick-Token"] = token }
        for (k, v) in headers { fields[k] = v }
        if !body.isEmpty { fields["Content-Length"] = "\(body.count)" }
        var head = "\(method) \(path) HTTP/1.1\r\n"
        for (k, v) in fields.sorted(by: { $0.key < $1.key }) where !v.isEmpty { head += "\(k): \(v)\r\n" }
        try send(head + "\r\n" + String(decoding: body, as: UTF8.self))
        return try response()
    }

    /// True when the server ends the connection (EOF) within the read timeout.
    func readToEOF() throws -> Bool {
        while try fill() {}
        return true
    }
}

/// A `/stream.mjpg` viewer that parses multipart parts.
final class StreamClient: @unchecked Sendable {   // used by one thread at a time
    struct Part: Sendable {
        var type: String?
        var declaredLength: Int
        var body: [UInt8]
    }
    let http: HTTPClient
    let boundary: String

    init(port: Int, token: String, path: String = "/stream.mjpg") throws {
        http = try HTTPClient(port: port)
        try http.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Gpick-Token: \(token)\r\n\r\n")
        let status = try http.line()
        guard status.hasPrefix("HTTP/1.1 200") else { throw ClientError(description: "status: \(status)") }
        let type = try http.headers()["content-type"] ?? ""
        guard type.hasPrefix("multipart/x-mixed-replace;"), let b = type.components(separatedBy: "boundary=").last
        else { throw ClientError(description: "content-type: \(type)") }
        boundary = b
    }

    func close() { http.close() }
    func readToEOF() throws -> Bool { try http.readToEOF() }

    func part() throws -> Part {
        var l = try http.line()
        while l.isEmpty { l = try http.line() }   // the CRLF that ends the previous body
        guard l == "--\(boundary)" else { throw ClientError(description: "expected boundary, got \(l)") }
        let fields = try http.headers()
        guard let length = fields["content-length"].flatMap(Int.init) else { throw ClientError(description: "no Content-Length") }
        return Part(type: fields["content-type"], declaredLength: length, body: try http.bytes(length))
    }

    func parts(_ n: Int) throws -> [Part] { try (0..<n).map { _ in try part() } }

    /// Parts up to and including the first matching one.
    func parts(until match: (Part) -> Bool, limit: Int) throws -> [Part] {
        var all: [Part] = []
        repeat { all.append(try part()) } while !match(all.last!) && all.count < limit
        return all
    }
}
