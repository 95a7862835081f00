import Foundation
import GpickKit
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct MJPEGServerTests {
    @Test func pageSnapshotAndHead() async throws {
        let server = try MJPEGServer(port: 0, title: "bench <cam>")
        defer { server.close() }
        #expect(server.port > 0)
        #expect(server.url == "http://127.0.0.1:\(server.port)/")
        let port = server.port

        let page = try await onThread { try HTTPClient(port: port).get("/") }
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.headers["cache-control"] == "no-cache")
        #expect(page.headers["connection"] == "close")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("<img src=\"/stream.mjpg\""))
        #expect(html.contains("<title>bench &lt;cam&gt;</title>"))

        #expect(try await onThread { try HTTPClient(port: port).get("/snapshot.jpg") }.status == 503)
        let frame = fakeJPEG(7, size: 5000)
        server.publish(frame)
        let snap = try await onThread { try HTTPClient(port: port).get("/snapshot.jpg?t=1") }
        #expect(snap.status == 200)
        #expect(snap.headers["content-type"] == "image/jpeg")
        #expect(snap.headers["content-length"] == "\(frame.count)")
        #expect(snap.body == frame)

        let head = try await onThread { try HTTPClient(port: port).get("/", method: "HEAD") }
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "\(page.body.count)")
        #expect(head.body.isEmpty)
    }

    @Test func twoViewersEachGetWholeFrames() async throws {
        let server = try MJPEGServer(port: 0)
        defer { server.close() }
        let events = Events()
        server.setOnViewer { events.append($0) }
        let publisher = Publisher(server, every: 0.01) { fakeJPEG($0, size: 20_000 + $0 % 7 * 1000) }
        defer { publisher.stop() }
        let port = server.port

        // Both connected before either reads, so the viewer count really reaches 2.
        let clientA = try await onThread { try StreamClient(port: port) }
        let clientB = try await onThread { try StreamClient(port: port) }
        #expect(await waitUntil { server.viewerCount == 2 })
        async let a = onThread { [clientA] in try clientA.parts(3) }
        async let b = onThread { [clientB] in try clientB.parts(3) }
        let (partsA, partsB) = try await (a, b)
        clientA.close()
        clientB.close()
        for part in partsA + partsB {
            #expect(part.type == "image/jpeg")
            #expect(part.declaredLength == part.body.count)
            #expect(part.body.starts(with: [0xFF, 0xD8]))
            #expect(Array(part.body.suffix(2)) == [0xFF, 0xD9])
        }
        #expect(partsA.count == 3 && partsB.count == 3)
        // Clients disconnected: both viewers leave, and each change was reported.
        #expect(await waitUntil { server.viewerCount == 0 && events.values.count == 4 })
        #expect(events.values.max() == 2 && events.values.last == 0)
    }

    @Test func stalledViewerDoesNotStallPublishOrOthers() async throws {
        let server = try MJPEGServer(port: 0)
        defer { server.close() }
        let port = server.port
        // Connects, asks for the stream, never reads (and offers a tiny receive window).
        let stalled = try HTTPClient(port: port, receiveBuffer: 4096)
        try stalled.send("GET /stream.mjpg HTTP/1.1\r\nHost: x\r\n\r\n")
        defer { stalled.close() }
        let live = try await onThread { try StreamClient(port: port) }
        #expect(await waitUntil { server.viewerCount == 2 })

        let frames = (0..<4).map { fakeJPEG($0, size: 200_000) }
        let start = ContinuousClock.now
        for i in 0..<300 { server.publish(frames[i % frames.count]) }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .milliseconds(500), "300 publishes took \(elapsed)")

        let fresh = fakeJPEG(0xBEEF, size: 1000)
        server.publish(fresh)
        let seen = try await onThread { [live] in try live.parts(until: { $0.body == fresh }, limit: 400) }
        #expect(seen.last?.body == fresh)
        #expect(server.viewerCount == 2)   // the stalled viewer is still connected, merely skipped
        live.close()
    }

    @Test func unknownPathsAndMethods() async throws {
        let server = try MJPEGServer(port: 0)
        defer { server.close() }
        let port = server.port
        let missing = try await onThread { try HTTPClient(port: port).get("/nope") }
        #expect(missing.status == 404)
        #expect(missing.headers["connection"] == "close")
        let post = try await onThread { try HTTPClient(port: port).get("/", method: "POST") }
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        let garbage = try await onThread { () throws -> Response in
            let c = try HTTPClient(port: port)
            try c.send("hello\r\n\r\n")
            return try c.response()
        }
        #expect(garbage.status == 400)
    }

    @Test func portInUseIsAUsageError() throws {
        let first = try MJPEGServer(port: 0)
        defer { first.close() }
        do {
            let second = try MJPEGServer(port: first.port)
            second.close()
            Issue.record("bound port \(first.port) twice")
        } catch {
            // The library says what and why; the flag to fix it is the CLI's wording (PreviewTests).
            #expect(error.kind == .usage)
            #expect(error.message == "port \(first.port) on 127.0.0.1 is in use")
            #expect(error.remedy == .choosePort(privileged: false))
        }
    }

    @Test func closeEndsViewersPromptly() async throws {
        let server = try MJPEGServer(port: 0)
        let events = Events()
        server.setOnViewer { events.append($0) }
        let port = server.port
        server.publish(fakeJPEG(1, size: 1000))
        // One client sits in the request read (connected first: accept is FIFO, so it has been
        // accepted once the viewers are served), two in the frame wait. close must wake all three.
        let idle = try HTTPClient(port: port)
        let clients = try await onThread {
            try (0..<2).map { _ in
                let c = try StreamClient(port: port)
                _ = try c.parts(1)
                return c
            }
        }
        #expect(await waitUntil { server.viewerCount == 2 })

        let start = ContinuousClock.now
        server.close()
        #expect(ContinuousClock.now - start < .milliseconds(500))
        server.close()   // idempotent
        server.publish(fakeJPEG(2, size: 1000))   // harmless after close

        let ended = try await onThread { [idle] in try clients.allSatisfy { try $0.readToEOF() } && idle.readToEOF() }
        #expect(ended)
        #expect(server.viewerCount == 0)
        #expect(events.values.last == 0)
        #expect(throws: (any Error).self) { try HTTPClient(port: port) }
    }
}

// MARK: - Helpers

/// A stand-in JPEG: SOI, `size - 4` bytes derived from `n`, EOI.
private func fakeJPEG(_ n: Int, size: Int) -> [UInt8] {
    [0xFF, 0xD8] + (0..<(size - 4)).map { UInt8(truncatingIfNeeded: $0 &+ n &* 31) | 1 } + [0xFF, 0xD9]
}

/// Polls `condition` every 5 ms for up to `timeout`.
private func waitUntil(_ timeout: Swift.Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Runs blocking socket work on a thread of its own, not on the cooperative pool.
private func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { cont in
        Thread { cont.resume(with: Result { try body() }) }.start()
    }
}

/// `@unchecked Sendable` invariant: `values` is only touched under `lock`.
private final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ v: Int) { lock.withLock { list.append(v) } }
    var values: [Int] { lock.withLock { list } }
}

/// Publishes `make(i)` every `every` seconds on a thread of its own until stopped.
/// `@unchecked Sendable` invariant: `running` is only touched under `lock`.
private final class Publisher: @unchecked Sendable {
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

private struct Response: Sendable {
    var status: Int
    var headers: [String: String]   // names lowercased
    var body: [UInt8]
}

/// A blocking HTTP/1.1 client on a raw socket (URLSession needs FoundationNetworking). Reads time
/// out after 3 s so a broken server fails the test instead of hanging it.
private final class HTTPClient: @unchecked Sendable {   // used by one thread at a time
    let fd: Int32
    var buffer: [UInt8] = []

    init(port: Int, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket: \(errno)") }
        var tv = timeval(tv_sec: 3, tv_usec: 0)
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
            Glibc.close(fd)
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
        if n < 0 { throw ClientError(description: "recv: \(String(cString: strerror(errno)))") }
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

    func response() throws -> Response {
        let status = try line().split(separator: " ")
        guard status.count >= 2, let code = Int(status[1]) else { throw ClientError(description: "bad status line") }
        let fields = try headers()
        while try fill() {}   // Connection: close — the body ends at EOF
        return Response(status: code, headers: fields, body: buffer)
    }

    func get(_ path: String, method: String = "GET") throws -> Response {
        try send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return try response()
    }

    /// True when the server ends the connection (EOF) within the read timeout.
    func readToEOF() throws -> Bool {
        while try fill() {}
        return true
    }
}

/// A `/stream.mjpg` viewer that parses multipart parts.
private final class StreamClient: @unchecked Sendable {   // used by one thread at a time
    struct Part: Sendable {
        var type: String?
        var declaredLength: Int
        var body: [UInt8]
    }
    let http: HTTPClient
    let boundary: String

    init(port: Int) throws {
        http = try HTTPClient(port: port)
        try http.send("GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
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
