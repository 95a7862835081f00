import GpickWeb
import GpickTestSupport
import Foundation
import GpickKit
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// gpick's one local web server: who it answers (Host and token, as Jupyter does it), what it
/// reads of a request, and where it listens. Real sockets on 127.0.0.1.
@Suite struct WebServerTests {
    /// A server with a counting "/echo" that answers the request back as JSON.
    static func echoServer() throws -> (WebServer, Events) {
        let server = try WebServer(port: 0, maxBody: 1000)
        let calls = Events()
        server.mount("/echo") { request, response in
            calls.append(1)
            let object: [String: Any] = ["method": request.method, "path": request.path, "query": request.query,
                                         "body": String(decoding: request.body, as: UTF8.self)]
            response.json(.ok, Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
        }
        return (server, calls)
    }

    @Test func onlyTheTokenAndTheServersOwnHostGetIn() async throws {
        let (server, calls) = try Self.echoServer()
        defer { server.close() }
        let port = server.port, token = server.token
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        func get(_ path: String, method: String = "GET", token: String? = nil, _ headers: [String: String] = [:],
                 body: [UInt8] = []) async throws -> HTTPResponse {
            try await onThread { try HTTPClient(port: port, token: token).get(path, method: method, headers: headers, body: body) }
        }
        // No token, a wrong one, or the right one with a foreign Host: 403, and the handler never runs.
        #expect(try await get("/echo").status == 403)
        #expect(try await get("/echo?token=\(String(token.reversed()))").status == 403)
        // One character off (never the same one: a token may start with either).
        let offByOne = (token.first == "0" ? "1" : "0") + token.dropFirst()
        #expect(try await get("/echo", token: offByOne).status == 403)
        #expect(try await get("/echo", ["Cookie": "gpick-token-\(port)=nope"]).status == 403)
        for host in ["evil.example:\(port)", "127.0.0.1", "127.0.0.1:\(port + 1)", "localhost.evil.example:\(port)", ""] {
            let r = try await get("/echo?token=\(token)", token: token, ["Host": host])
            #expect(r.status == 403, "Host \(host)")
        }
        #expect(calls.values.isEmpty)

        // The printed URL's token: allowed, and handed over as a cookie for the page's next requests.
        let first = try await get("/echo?token=\(token)&a=1")
        #expect(first.status == 200)
        let cookie = try #require(first.headers["set-cookie"])
        #expect(cookie.hasPrefix("gpick-token-\(port)=\(token);"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
        #expect(first.headers["referrer-policy"] == "no-referrer" && first.headers["x-content-type-options"] == "nosniff")
        let byCookie = try await get("/echo", ["Cookie": "other=1; gpick-token-\(port)=\(token)", "Host": "localhost:\(port)"])
        #expect(byCookie.status == 200 && byCookie.headers["set-cookie"] == nil)

        // A change needs the header: a cookie (which a cross-site form would carry) is not enough.
        #expect(try await get("/echo", method: "POST", ["Cookie": "gpick-token-\(port)=\(token)"]).status == 403)
        #expect(try await get("/echo?token=\(token)", method: "POST").status == 403)
        let post = try await get("/echo", method: "POST", token: token, body: Array("{\"x\":1}".utf8))
        #expect(post.status == 200)
        let echoed = try JSONSerialization.jsonObject(with: Data(post.body)) as? [String: Any]
        #expect(echoed?["method"] as? String == "POST" && echoed?["body"] as? String == "{\"x\":1}")
        #expect(calls.values.count == 3)
    }

    @Test func requestsAreReadWithinBounds() async throws {
        let (server, _) = try Self.echoServer()
        defer { server.close() }
        let port = server.port, token = server.token
        let r = try await onThread { try HTTPClient(port: port, token: token).get("/echo?name=a%20b+c&e=%C3%A9&flag") }
        let query = (try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])?["query"] as? [String: String]
        #expect(query == ["name": "a b c", "e": "é", "flag": ""])
        let big = try await onThread {
            try HTTPClient(port: port, token: token).get("/echo", method: "POST", body: [UInt8](repeating: 65, count: 1001))
        }
        #expect(big.status == 413)
        let chunked = try await onThread {
            try HTTPClient(port: port, token: token).get("/echo", method: "POST", headers: ["Transfer-Encoding": "chunked"])
        }
        #expect(chunked.status == 411)
        let huge = try await onThread {
            try HTTPClient(port: port, token: token).get("/echo", headers: ["X-Filler": String(repeating: "x", count: 9000)])
        }
        #expect(huge.status == 431)
        let garbage = try await onThread { () throws -> HTTPResponse in
            let c = try HTTPClient(port: port)
            try c.send("GET /echo HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n")
            return try c.response()
        }
        #expect(garbage.status == 400)
    }

    /// Slow clients (slowloris): 300 connections that send half a request head, then a byte now
    /// and then. They hold no handler (a real request is still answered at once, where 32
    /// request threads would all be taken), and each is dropped, unanswered, when its 5 s to send
    /// a whole request have passed, trickle or not.
    @Test func slowClientsHoldNothingAndAreDroppedInTime() async throws {
        let (server, calls) = try Self.echoServer()
        defer { server.close() }
        let port = server.port, token = server.token
        let slow = try await onThread {
            try (0..<300).map { _ in
                let c = try HTTPClient(port: port)
                try c.send("GET /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Gpick-Token: \(token)\r\nX-Fill: a")
                return c
            }
        }
        let answered = try await onThread { try HTTPClient(port: port, token: token).get("/echo") }
        #expect(answered.status == 200, "a real request beside 300 slow ones: \(answered.status)")
        let (dropped, left) = try await onThread { () -> (Int, [String]) in
            for c in slow { try? c.send("a") }
            // Every connection at once, not one after another: a late one does not hide the rest.
            // A hang bound, not a measure: the server's deadline is 5 s.
            let deadline = ContinuousClock.now + .seconds(HangBound.seconds(60))
            var open = Set(slow.indices), errors: [Int: String] = [:]
            while !open.isEmpty, ContinuousClock.now < deadline {
                var fds = open.sorted().map { pollfd(fd: slow[$0].fd, events: Int16(POLLIN), revents: 0) }
                guard poll(&fds, nfds_t(fds.count), 500) > 0 else { continue }
                for (i, p) in zip(open.sorted(), fds) where p.revents != 0 {
                    // EOF, or a reset (the server closed with the client's last byte unread).
                    do { if try !slow[i].fill() { open.remove(i) } } catch { open.remove(i); errors[i] = "\(error)" }
                }
            }
            for c in slow {
                #expect(c.buffer.isEmpty, "a slow client was answered: \(String(decoding: c.buffer, as: UTF8.self))")
            }
            let resets = errors.values.filter { $0.contains("reset") || $0.contains("pipe") }.count
            let other = errors.values.filter { !($0.contains("reset") || $0.contains("pipe")) }
            return (300 - open.count - other.count, open.sorted().prefix(5).map { "client \($0) still open" } + other.prefix(5)
                    + ["\(resets) dropped with a reset"])
        }
        #expect(dropped == 300, "\(dropped) of 300 slow clients dropped: \(left)")
        #expect(calls.values.count == 1)
    }

    @Test func routesByExactPathThenLongestPrefix() async throws {
        let server = try WebServer(port: 0)
        defer { server.close() }
        for (path, prefix) in [("/a", false), ("/a/", true), ("/a/b/", true)] {
            server.mount(path, prefix: prefix) { _, response in response.text(.ok, "\(path)\(prefix ? "*" : "")") }
        }
        let port = server.port, token = server.token
        func body(_ path: String) async throws -> String {
            let r = try await onThread { try HTTPClient(port: port, token: token).get(path) }
            return r.status == 200 ? String(decoding: r.body, as: UTF8.self) : "\(r.status)"
        }
        #expect(try await body("/a") == "/a")
        #expect(try await body("/a/x") == "/a/*")
        #expect(try await body("/a/b/7") == "/a/b/*")
        #expect(try await body("/b") == "404")
        // Dot segments, empty segments and escapes never reach a handler, prefix or not.
        for path in ["/a/../a", "/a/./x", "/a//x", "/a/%2e%2e/x", "/a/..", "//etc/passwd", "/a/x\\y"] {
            #expect(try await body(path) == "404", "\(path)")
        }
        server.unmount("/a/b/", prefix: true)
        #expect(try await body("/a/b/7") == "/a/*")
    }

    /// Bound to the loopback address only (the kernel's own table says so), each with its own token.
    @Test func listensOnLoopbackOnlyWithATokenOfItsOwn() throws {
        let a = try WebServer(port: 0), b = try WebServer(port: 0)
        defer { a.close(); b.close() }
        #expect(a.token != b.token)
        let table = StreamServers.socketTable("/proc/net/tcp")
        let local = table.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
        let ours = local.filter { $0.hasSuffix(String(format: ":%04X", a.port)) }
        #expect(ours == ["0100007F:" + String(format: "%04X", a.port)], "\(ours)")
    }
}
