import Foundation
import GpickBase
import GpickImages
import GpickTestSupport
import Testing

/// URL sources against a real HTTP server on 127.0.0.1 (a process of its own), which reports
/// how many bytes it really sent.
@Suite struct URLImageSourceTests {
    static func serve(_ dir: String) async throws -> StaticHTTPServer { try await StaticHTTPServer(folder: dir) }

    @Test func sizeReadsOnlyTheFirstBytesOfALargePhoto() async throws {
        let dir = Fixture.dir()
        try await Fixture.jpeg("\(dir)/big.jpg", width: 4032, height: 3024, orientation: 6)
        let total = try Fixture.bytes("\(dir)/big.jpg").count
        try #require(total > 4 * StaticHTTPServer.stallBytes, "the photo must be larger than what the server sends first")
        let server = try await Self.serve(dir)
        defer { server.stop() }
        let started = ContinuousClock.now
        let size = try await URLImageSource(url: server.url("stall/big.jpg")).size()
        #expect(size == PixelSize(width: 3024, height: 4032), "as shown: EXIF orientation 6")
        // The server holds the rest back until the client hangs up, for 10 s.
        #expect(ContinuousClock.now - started < .seconds(8))
        // At most the first part: the client hung up once it had the header (perhaps before
        // the server had written all of that part, on a busy machine).
        let sent = try await server.sent("stall/big.jpg")
        #expect(sent.count == 1 && sent[0] > 0 && sent[0] <= StaticHTTPServer.stallBytes, "\(sent)")
    }

    @Test func bestFetchesAndKeepsACopyThatProgressiveShowsFirstNextTime() async throws {
        let dir = Fixture.dir()
        try await ImageSourceTests.stripes("\(dir)/stripes.jpg")
        let server = try await Self.serve(dir)
        defer { server.stop() }
        let copies = URLCopies(base: "\(dir)/copies")
        let source = URLImageSource(url: server.url("stripes.jpg"), copies: copies)
        #expect(try await source.size() == PixelSize(width: 640, height: 480))

        // Nothing kept yet: progressive has nothing cheap to show first.
        let first = try await ImageSourceTests.collect(source.image(ImageRequest(size: .fill(width: 120, height: 120), delivery: .progressive)))
        #expect(try await TestEnvironment.eventually { TestEnvironment.allFiles(under: "\(dir)/copies").count == 1 })
        #expect(first.map(\.origin) == [.fetched])
        let c = try await ImageSourceTests.rgb(first[0].picture, dir)
        #expect(c.width == 120 && c.height == 120)
        #expect(abs((ImageSourceTests.firstX(c, y: 60, .green) ?? -1) - 100) <= 2, "filled, not distorted")

        let fit = try await ImageSourceTests.collect(source.image(ImageRequest(size: .fit(width: 200, height: 200), delivery: .progressive)))
        #expect(fit.map(\.origin) == [.cachedCopy, .fetched])
        #expect(fit.map(\.degraded) == [true, false])
        // The stand-in has the final picture's shape, at no more than the kept copy holds (the
        // 120 px request's, 160×120: it covered the square before the crop).
        #expect(fit.map { [$0.picture.width, $0.picture.height] } == [[160, 120], [200, 150]])
        // The kept copies: one per size asked, mode 0600 in a 0700 folder.
        // Kept after the final picture went out, without the caller waiting for it.
        #expect(try await TestEnvironment.eventually { TestEnvironment.allFiles(under: "\(dir)/copies").count == 2 })
        let kept = TestEnvironment.allFiles(under: "\(dir)/copies").map { "\(dir)/copies/\($0)" }
        for file in kept { #expect(try Fixture.status(file).st_mode & 0o777 == 0o600) }

        let best = try await ImageSourceTests.collect(source.image(ImageRequest(size: .fit(width: 200, height: 200))))
        #expect(best.map(\.origin) == [.fetched])
        #expect(try await source.fullResolutionData() == (try Fixture.bytes("\(dir)/stripes.jpg")))
    }

    @Test func failuresAreOneLineInTheUsersTerms() async throws {
        let dir = Fixture.dir()
        try Fixture.write(Array("just some text\n".utf8), to: "\(dir)/notes.txt")
        try await Fixture.jpeg("\(dir)/photo.jpg", width: 320, height: 240)
        try Fixture.write(TestPNG.bomb(width: 100_000, height: 100_000), to: "\(dir)/bomb.png")
        let server = try await Self.serve(dir)
        defer { server.stop() }
        // A port nothing listens on: bound, then closed.
        let closed = try StreamServers.freePort(udp: false)
        let cases: [(URLImageSource, [String])] = [
            (URLImageSource(url: server.url("missing.jpg")), ["HTTP 404", "Not Found"]),
            (URLImageSource(url: server.url("status/500")), ["HTTP 500"]),
            (URLImageSource(url: server.url("notes.txt")), ["not an image format"]),
            (URLImageSource(url: server.url("bomb.png")), ["image too large"]),
            (URLImageSource(url: server.url("photo.jpg"), maxBytes: 1000), ["larger than"]),
            (URLImageSource(url: "http://127.0.0.1:\(closed)/a.jpg"), ["cannot be reached"]),
        ]
        for (source, words) in cases {
            let error = await #expect(throws: GpickError.self) {
                _ = try await ImageSourceTests.collect(source.image(ImageRequest(size: .fit(width: 64, height: 64))))
            }
            let message = error?.message ?? ""
            #expect(message.contains(source.url), "names the URL: \(message)")
            for w in words { #expect(message.contains(w), "\(source.url): \(message)") }
            #expect(!message.contains("\n") && !message.contains("gstbasesrc"), "one line, no GStreamer text: \(message)")
        }
    }

    /// Redirects are followed up to 10 hops and only to http(s); a server that answers nothing is
    /// given up on after the source's timeout, and a fetch nobody wants any more stops at once.
    @Test func redirectsSilenceAndCancellationAreBounded() async throws {
        let dir = Fixture.dir()
        try await Fixture.jpeg("\(dir)/photo.jpg", width: 320, height: 240)
        try Fixture.write(Array("gpick-host\n".utf8), to: "\(dir)/hostname")
        let server = try await Self.serve(dir)
        defer { server.stop() }
        #expect(try await URLImageSource(url: server.url("redirect/3/photo.jpg")).size() == PixelSize(width: 320, height: 240))
        let fetched = try await URLImageSource(url: server.url("redirect/9/photo.jpg")).fullResolutionData()
        #expect(fetched == (try Fixture.bytes("\(dir)/photo.jpg")), "ten hops are followed")
        let cases: [(String, String)] = [
            ("redirect/10/photo.jpg", "too many redirects"),
            ("redirect/file/hostname", "it redirects to a URL that is not http(s)"),
        ]
        for (path, words) in cases {
            let error = await #expect(throws: GpickError.self) { _ = try await URLImageSource(url: server.url(path)).fullResolutionData() }
            #expect(error?.message == "cannot fetch \(server.url(path)): \(words)")
        }

        let started = ContinuousClock.now
        let silent = await #expect(throws: GpickError.self) {
            _ = try await URLImageSource(url: server.url("silent/photo.jpg"), timeout: 1).fullResolutionData()
        }
        let waited = ContinuousClock.now - started
        #expect(silent?.message == "cannot fetch \(server.url("silent/photo.jpg")): no answer within 1 s")
        // Given up on well before the server's own 10 s (a loaded machine adds seconds, not that).
        #expect(waited >= .milliseconds(900) && waited < .seconds(HangBound.seconds(8)), "gave up after \(waited)")

        // Cancelled while the server holds the rest of the body back (for 10 s).
        let stalled = server.url("stall/photo-big.jpg")
        try await Fixture.jpeg("\(dir)/photo-big.jpg", width: 4032, height: 3024)
        let task = Task { try await ImageSourceTests.collect(URLImageSource(url: stalled).image(ImageRequest(size: .fit(width: 64, height: 64)))) }
        // Waits for the request to reach the server (on a loaded machine the fetch may start late):
        // what is bounded is the stop after the cancel, below.
        #expect(try await TestEnvironment.eventually(30) { server.started("stall/photo-big.jpg") == 1 })
        let cancelled = ContinuousClock.now
        task.cancel()
        _ = await task.result
        #expect(ContinuousClock.now - cancelled < .seconds(HangBound.seconds(8)), "stopped when cancelled, not when the server's 10 s ran out")
        // At most the first part went out (none, if the hang-up came before the server wrote it).
        let sent = try await server.sent("stall/photo-big.jpg")
        #expect(sent.count == 1 && sent[0] <= StaticHTTPServer.stallBytes, "hung up, not read to the end: \(sent)")
    }

    /// A program that another part of the process starts during a fetch, the way most libraries
    /// start one (nothing closed), does not keep the connection: cancelled, the fetch hangs up.
    @Test func aChildStartedDuringAFetchDoesNotHoldItsConnection() async throws {
        let dir = Fixture.dir()
        try await Fixture.jpeg("\(dir)/photo-big.jpg", width: 4032, height: 3024)
        let server = try await Self.serve(dir)
        defer { server.stop() }
        let task = Task { try await ImageSourceTests.collect(URLImageSource(url: server.url("stall/photo-big.jpg")).image(ImageRequest(size: .fit(width: 64, height: 64)))) }
        #expect(try await TestEnvironment.eventually(30) { server.started("stall/photo-big.jpg") == 1 })
        // The connection is open (the server holds the rest back): a child started now, with
        // posix_spawn and no file actions, gets every descriptor that is not close-on-exec.
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sleep", "60"].map { (word: String) in strdup(word) } + [nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ) == 0)
        defer { kill(pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) }
        task.cancel()
        _ = await task.result
        // The server's 10 s wait for a hang-up would otherwise run out, and it would send the rest.
        let sent = try await server.sent("stall/photo-big.jpg", timeout: 8)
        #expect(sent.count == 1 && sent[0] <= StaticHTTPServer.stallBytes, "the hang-up reached the server: \(sent)")
    }
}
