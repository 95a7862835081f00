import Foundation
import GpickBase
import GpickImages
import GpickTestSupport
import Testing

/// Reliability check 32: 1000 requests cancelled at random moments (before the first result,
/// between the degraded and the final one, after both), on a file and on a URL that trickles.
/// Nothing may be delivered after the cancel, every transfer must end, and nothing may leak.
@Suite struct ImageSourceCancelTests {
    /// Consumes a request and cancels it, both on this actor: the cancel and the consumer's loop
    /// body never interleave, so a result seen after `cancelled` was set was delivered after the
    /// cancel, not merely in flight before it.
    actor Lane {
        var cancelled = false
        var late = 0
        /// How many results each request delivered: 0, 1 (the degraded one) or 2.
        var outcomes: [Int: Int] = [:]
        var errors: [String] = []

        func consume(_ results: ImageResults, cancelAfterFirst: Bool = false) async -> Int {
            var n = 0
            do {
                for try await _ in results {
                    if cancelled { late += 1 }
                    n += 1
                    // Between the stand-in and the final picture, for certain (timing alone may
                    // never land there on a loaded machine).
                    if cancelAfterFirst, n == 1 {
                        cancelled = true
                        withUnsafeCurrentTask { $0?.cancel() }
                    }
                }
            } catch {
                if !cancelled { errors.append(error.message) }
            }
            return n
        }

        func run(_ source: any ImageSource, _ request: ImageRequest, after delay: Duration?, cancelAfterFirst: Bool = false) async {
            cancelled = false
            let task = Task { await self.consume(source.image(request), cancelAfterFirst: cancelAfterFirst) }
            if let delay, delay > .zero { try? await Task.sleep(for: delay) } else if delay == nil { _ = await task.value } else { await Task.yield() }
            cancelled = true
            task.cancel()
            outcomes[await task.value, default: 0] += 1
        }

        func report() -> (late: Int, outcomes: [Int: Int], errors: [String]) { (late, outcomes, errors) }
    }

    @Test func thousandRandomCancelsDeliverNothingLateAndLeakNothing() async throws {
        let dir = Fixture.dir()
        let path = "\(dir)/photo.jpg", small = "\(dir)/small.jpg"
        try await ImageSourceTests.stripes(path, width: 320, height: 240)
        try await ImageSourceTests.stripes(small, width: 160, height: 120)
        try await ExifTool.check(["-q", "-overwrite_original", "-ThumbnailImage<=\(small)", path])
        let server = try await StaticHTTPServer(folder: dir)
        defer { server.stop() }
        let file = FileImageSource(path: path, thumbnails: ImageSourceTests.cache(dir))
        let url = URLImageSource(url: server.url("slow/photo.jpg"), copies: URLCopies(base: "\(dir)/copies"), timeout: 10)
        let request = ImageRequest(size: .fit(width: 256, height: 256), delivery: .progressive)

        // How long an uncancelled request takes here, now, four at a time as below: the cancels
        // spread over 1.8 times that, so some land before, between and after the results.
        func typical(_ source: any ImageSource) async throws -> Duration {
            let clock = ContinuousClock()
            var times: [Duration] = []
            for _ in 0..<3 {
                try await withThrowingTaskGroup(of: Duration.self) { group in
                    for _ in 0..<4 { group.addTask { try await clock.measure { _ = try await ImageSourceTests.collect(source.image(request)) } } }
                    for try await t in group { times.append(t) }
                }
            }
            return times.sorted()[times.count / 2]
        }
        let fileTypical = try await typical(file)
        let urlTypical = try await typical(url)
        let heapBefore = TestEnvironment.heapInUseKiB()
        let fetchesBefore = server.started("slow/photo.jpg")

        let lanes = (0..<4).map { _ in Lane() }
        var urlRequests = 0
        await withTaskGroup(of: Int.self) { group in
            for lane in lanes {
                group.addTask {
                    var rng = SystemRandomNumberGenerator()
                    var urls = 0
                    for i in 0..<250 {
                        let onURL = i % 10 == 0
                        // Random moments within the time a request takes here (bounded, so a
                        // loaded machine does not stretch the test), plus the stages for certain:
                        // at once, between the two results, after both.
                        let span = min(onURL ? urlTypical : fileTypical, .milliseconds(onURL ? 60 : 20))
                        let delay = span * Double.random(in: 0...1.8, using: &rng)
                        switch i % 25 {
                        case 1: await lane.run(onURL ? url : file, request, after: .zero)
                        case 2: await lane.run(file, request, after: nil, cancelAfterFirst: true)
                        case 3: await lane.run(file, request, after: nil)
                        default: await lane.run(onURL ? url : file, request, after: delay)
                        }
                        if onURL { urls += 1 }
                    }
                    return urls
                }
            }
            for await n in group { urlRequests += n }
        }

        var late = 0
        var outcomes: [Int: Int] = [:]
        for lane in lanes {
            let r = await lane.report()
            late += r.late
            outcomes.merge(r.outcomes, uniquingKeysWith: +)
            #expect(r.errors.isEmpty, "failures of requests not cancelled: \(r.errors.prefix(3))")
        }
        #expect(late == 0, "results delivered after their cancel: \(late)")
        #expect(outcomes.values.reduce(0, +) == 1000)
        // The moments covered every stage: nothing yet, the stand-in only, both.
        #expect(outcomes[0, default: 0] > 0 && outcomes[1, default: 0] > 0 && outcomes[2, default: 0] > 0, "\(outcomes)")

        // Every transfer the server saw ended (the client hung up or took it all)…
        #expect(try await TestEnvironment.eventually(10) {
            server.started("slow/photo.jpg") == server.finished("slow/photo.jpg")
        }, "transfers left open: \(server.started("slow/photo.jpg")) started, \(server.finished("slow/photo.jpg")) over")
        #expect(server.started("slow/photo.jpg") - fetchesBefore <= urlRequests)
        // …no file of this test stays open here, and memory is flat (a leaked picture per
        // request would be 1000 × 192 KiB at least).
        #expect(try await TestEnvironment.eventually(10) {
            !TestEnvironment.fdTargets().contains { $0.hasPrefix(dir) }
        }, "still open: \(TestEnvironment.fdTargets().filter { $0.hasPrefix(dir) })")
        // The heap in use is the whole test process's: another suite's test decoding a large
        // photo beside this one lifts it for a while, and gives it back when done; a leak stays.
        // (RSS did not give it back: a CI run saw it 708 MiB up, 99 MiB as the requests ended.)
        let grownAtOnce = TestEnvironment.heapInUseKiB() - heapBefore
        var grown = grownAtOnce
        #expect(try await TestEnvironment.eventually(60) {
            grown = TestEnvironment.heapInUseKiB() - heapBefore
            return grown < 96 << 10
        }, "the heap in use grew by \(grown >> 10) MiB over 1000 cancelled requests (\(grownAtOnce >> 10) MiB as they ended)")
    }
}
