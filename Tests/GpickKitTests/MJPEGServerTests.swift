import GpickWeb
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
        #expect(server.url == "http://127.0.0.1:\(server.port)/?token=\(server.server.token)")
        let port = server.port, token = server.server.token

        let page = try await onThread { try HTTPClient(port: port, token: token).get("/") }
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.headers["cache-control"] == "no-store")
        #expect(page.headers["connection"] == "close")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("<img src=\"/stream.mjpg\""))
        #expect(html.contains("<title>bench &lt;cam&gt;</title>"))

        #expect(try await onThread { try HTTPClient(port: port, token: token).get("/snapshot.jpg") }.status == 503)
        let frame = fakeJPEG(7, size: 5000)
        server.publish(frame)
        let snap = try await onThread { try HTTPClient(port: port, token: token).get("/snapshot.jpg?t=1") }
        #expect(snap.status == 200)
        #expect(snap.headers["content-type"] == "image/jpeg")
        #expect(snap.headers["content-length"] == "\(frame.count)")
        #expect(snap.body == frame)

        let head = try await onThread { try HTTPClient(port: port, token: token).get("/", method: "HEAD") }
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
        let port = server.port, token = server.server.token

        // Both connected before either reads, so the viewer count really reaches 2.
        let clientA = try await onThread { try StreamClient(port: port, token: token) }
        let clientB = try await onThread { try StreamClient(port: port, token: token) }
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
        // Clients disconnected: both viewers leave, and each change was reported. (A write that
        // was under way when its viewer stopped reading may take the server's whole send deadline,
        // 5 s, before that viewer is dropped: the wait is longer than that.)
        #expect(await waitUntil(.seconds(15)) { server.viewerCount == 0 && events.values.count == 4 }, "\(events.values)")
        #expect(events.values.max() == 2 && events.values.last == 0)
    }

    @Test func stalledViewerDoesNotStallPublishOrOthers() async throws {
        let server = try MJPEGServer(port: 0)
        defer { server.close() }
        let port = server.port, token = server.server.token
        // Connects, asks for the stream, never reads (and offers a tiny receive window).
        let stalled = try HTTPClient(port: port, token: token, receiveBuffer: 4096)
        try stalled.send("GET /stream.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Gpick-Token: \(token)\r\n\r\n")
        defer { stalled.close() }
        let live = try await onThread { try StreamClient(port: port, token: token) }
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
        let port = server.port, token = server.server.token
        let missing = try await onThread { try HTTPClient(port: port, token: token).get("/nope") }
        #expect(missing.status == 404)
        #expect(missing.headers["connection"] == "close")
        let post = try await onThread { try HTTPClient(port: port, token: token).get("/", method: "POST") }
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        let garbage = try await onThread { () throws -> HTTPResponse in
            let c = try HTTPClient(port: port, token: token)
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
        let port = server.port, token = server.server.token
        server.publish(fakeJPEG(1, size: 1000))
        // One client sits in the request read (connected first: accept is FIFO, so it has been
        // accepted once the viewers are served), two in the frame wait. close must wake all three.
        let idle = try HTTPClient(port: port, token: token)
        let clients = try await onThread {
            try (0..<2).map { _ in
                let c = try StreamClient(port: port, token: token)
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

