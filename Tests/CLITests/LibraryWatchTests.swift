import Foundation
import GpickTestSupport
import Testing

@Suite struct LibraryWatchTests {
    /// Polls `library list` until `condition` holds on the listed paths.
    func waitForListing(_ w: LibraryCLIWorld, timeout: Double = 10, _ condition: ([String]) -> Bool) async throws -> [String] {
        let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
        var paths: [String] = []
        while Date() < deadline {
            paths = try await LibraryCLI.listed(library: w.library, data: w.data)
            if condition(paths) { return paths }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return paths
    }

    @Test func keepsTheIndexLiveAndStopsOnSigint() async throws {
        let w = try LibraryCLIWorld()
        let old = try await w.source("dated.jpg", as: "old.jpg", in: w.library)
        let watch = try LibraryCLI.start(["library", "watch", "--json", "--library", w.library], data: w.data)
        try await watch.waitForOutput("\"event\":\"ready\"")
        #expect(try await LibraryCLI.listed(library: w.library, data: w.data) == [old], "the first scan")

        // Written slowly: indexed once it is complete, and once.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try await LibraryCLIFixtures.get().path("dated.jpg")))
        let slow = w.library + "/slow.jpg"
        let fd = open(slow, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        let half = bytes.count / 2
        bytes.withUnsafeBytes { _ = write(fd, $0.baseAddress, half) }
        try await Task.sleep(nanoseconds: 400_000_000)  // past the settle time, still open
        #expect(!watch.stdoutSoFar.contains(slow), "not indexed while being written")
        bytes.withUnsafeBytes { _ = write(fd, $0.baseAddress! + half, bytes.count - half) }
        close(fd)
        let listed = try await waitForListing(w) { $0.contains(slow) }
        #expect(listed.filter { $0 == slow }.count == 1)
        let detail = try await LibraryCLI.run(["library", "list", "--json", "--library", w.library], data: w.data)
        let row = LibraryCLI.events(detail.stdout).first { $0["path"] as? String == slow }
        #expect(row?["size"] as? Int == bytes.count && row?["width"] as? Int == 320, "indexed complete: \(String(describing: row))")

        // Deleted: gone from the index.
        try FileManager.default.removeItem(atPath: old)
        #expect(try await waitForListing(w) { !$0.contains(old) } == [slow])
        try await watch.waitForOutput("\"event\":\"removed\"")
        #expect(watch.stdoutSoFar.components(separatedBy: "\"event\":\"indexed\"").count - 1 == 1, "one indexed event: \(watch.stdoutSoFar)")

        watch.signal(SIGINT)
        let r = try await watch.wait(timeout: 10)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"event\":\"finished\""))
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }

    /// The kernel's queue overflows while the watch is stopped (SIGSTOP): more events than
    /// fs.inotify.max_queued_events, then a file whose events are lost. The watch scans anew and
    /// finds it. (No system setting is changed: other processes' watches are not affected.)
    @Test func queueOverflowRescans() async throws {
        let w = try LibraryCLIWorld()
        let x = try await w.source("dated.jpg", as: "x.jpg", in: w.library)
        let y = try await w.source("plain.jpg", as: "y.jpg", in: w.library)
        let watch = try LibraryCLI.start(["library", "watch", "--json", "--library", w.library], data: w.data)
        try await watch.waitForOutput("\"event\":\"ready\"")
        let limit = Int((try String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 16384
        try #require(limit <= 4_000_000, "max_queued_events is \(limit): too many events to overflow in a test")

        watch.signal(SIGSTOP)
        // T, or t when a tracer (strace, gdb) has the process: stopped either way.
        let stopped = try await TestEnvironment.eventually { ["T", "t"].contains(LibraryCLI.processState(watch.pid)) }
        try #require(stopped, "the watch did not stop")
        // Alternating files: the kernel merges only an event identical to the last one queued.
        for _ in 0...(limit / 2 + 16) {
            utimensat(AT_FDCWD, x, nil, 0)
            utimensat(AT_FDCWD, y, nil, 0)
        }
        let lost = try await w.source("dated.jpg", as: "lost.jpg", extra: "lost", in: w.library)
        watch.signal(SIGCONT)

        try await watch.waitForOutput("\"event\":\"rescanned\"")
        let listed = try await waitForListing(w) { $0.contains(lost) }
        #expect(Set(listed) == [x, y, lost])
        watch.signal(SIGTERM)
        let r = try await watch.wait(timeout: 10)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("overflowed"))
    }
}


extension LibraryCLI {
    /// The state letter of a process (R, S, T…), from /proc.
    static func processState(_ pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").first.map(String.init)
    }
}
