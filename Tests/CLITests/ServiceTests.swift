import Foundation
import GpickBase
import GpickTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// gpick under systemd, as systemd talks to it: a notify socket the test binds (a datagram
/// socket, as systemd binds `$NOTIFY_SOCKET`), `WATCHDOG_USEC` for the watchdog, and stderr that
/// `$JOURNAL_STREAM` names as the journal's.
struct ServiceTests {
    /// A bound datagram socket; a thread of its own reads each message as it comes, with its time.
    final class NotifySocket: @unchecked Sendable {
        // Invariant: path and fd are set in init and never changed; messages only under its lock.
        let path: String
        private let fd: Int32
        private let messages = Locked<[(at: Date, text: String)]>([])
        private let closed = Locked(false)

        init() throws {
            path = TestEnvironment.tempDir("notify") + "/notify.sock"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var a = sockaddr_un()
            a.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &a.sun_path) { p in _ = path.utf8CString.withUnsafeBytes { p.copyMemory(from: $0) } }
            let bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            guard fd >= 0, bound == 0 else { throw TestFailure("cannot bind \(path): \(String(cString: strerror(errno)))") }
            let thread = Thread { [self] in self.read() }
            thread.start()
        }

        private func read() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !closed.withLock({ $0 }) {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 100) > 0 else { continue }
                let n = recv(fd, &buffer, buffer.count, 0)
                if n > 0 { messages.withLock { $0.append((Date(), String(decoding: buffer[0..<n], as: UTF8.self))) } }
            }
            Glibc.close(fd)
        }

        var received: [(at: Date, text: String)] { messages.withLock { $0 } }
        func shutDown() { closed.withLock { $0 = true } }

        /// Waits until `done` holds for what came so far.
        func wait(seconds: Double, _ what: String, until done: ([(at: Date, text: String)]) -> Bool) async throws {
            let deadline = Date().addingTimeInterval(HangBound.seconds(seconds))
            while !done(received) {
                guard Date() < deadline else { throw TestFailure("\(what): \(received.map(\.text))") }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
        }
    }

    /// `gpick serve` says READY=1 once its stream is up, with its URL as the status; then feeds
    /// the watchdog at half of WATCHDOG_USEC while the camera's frames flow; once the source stalls
    /// (no error, no frame: `stall-after`) the pings stop though gpick still runs, so systemd
    /// would restart it; SIGTERM then says STOPPING=1.
    @Test func serveSaysReadyAndFeedsTheWatchdogOnlyWhileFramesFlow() async throws {
        let socket = try NotifySocket()
        defer { socket.shutDown() }
        // 150 frames at 30 fps: 5 s of frames, then none.
        let p = try Subprocess.start(TestEnvironment.binary, ["serve", "--port", "0", "--source", "test:smpte?stall-after=150",
                                                              "--width", "320", "--height", "240", "--json"],
                                     env: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"])
        func pings(_ m: [(at: Date, text: String)]) -> [Date] { m.filter { $0.text == "WATCHDOG=1" }.map(\.at) }
        // Pings come, then a silence of ten intervals while gpick still runs.
        try await socket.wait(seconds: 30, "no pings, then no silence") { m in
            let p = pings(m)
            return p.count >= 5 && Date().timeIntervalSince(p.last!) > 2
        }
        #expect(p.process.isRunning, "gpick still serves the stalled source")
        let before = socket.received
        let ready = before.filter { $0.text.contains("READY=1") }
        #expect(ready.count == 1, "\(before.map(\.text))")
        let url = try #require(PreviewTests.events(p.stdoutSoFar).first { $0["event"] as? String == "started" }?["url"] as? String)
        #expect(ready.first?.text == "READY=1\nSTATUS=serving \(url)", "\(ready.map(\.text))")
        let times = pings(before)
        #expect(times.allSatisfy { $0 > ready[0].at }, "no ping before READY")
        // At half of 400 ms while frames flowed: 5 s of frames hold about 20 intervals.
        let gaps = zip(times, times.dropFirst()).map { $1.timeIntervalSince($0) }.sorted()
        #expect(times.count >= 12 && gaps[gaps.count / 2] > 0.15 && gaps[gaps.count / 2] < 0.4,
                "\(times.count) pings, median gap \(gaps[gaps.count / 2]) s")
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        try await socket.wait(seconds: 5, "no STOPPING=1") { $0.last?.text == "STOPPING=1" }
        #expect(pings(socket.received).count == times.count, "no ping after the stall")
    }

    /// A loop recording (gpick-record@) says READY=1 once it records, with its file as the status,
    /// and feeds the watchdog only while frames flow, as serve does.
    @Test func aLoopRecordingSaysReadyAndFeedsTheWatchdogOnlyWhileFramesFlow() async throws {
        let socket = try NotifySocket()
        defer { socket.shutDown() }
        let dir = TestEnvironment.tempDir()
        // 90 frames at 30 fps: 3 s of frames, then none.
        let p = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "test:smpte?stall-after=90", "--split", "0.5", "--keep", "2s",
                                                              "--width", "320", "--height", "240", "-o", "\(dir)/cam.mp4"],
                                     env: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"])
        func pings(_ m: [(at: Date, text: String)]) -> [Date] { m.filter { $0.text == "WATCHDOG=1" }.map(\.at) }
        try await socket.wait(seconds: 30, "no pings, then no silence") { m in
            let p = pings(m)
            return p.count >= 3 && Date().timeIntervalSince(p.last!) > 2
        }
        #expect(p.process.isRunning, "gpick still records the stalled source")
        let ready = socket.received.filter { $0.text.contains("READY=1") }
        #expect(ready.map(\.text) == ["READY=1\nSTATUS=recording to \(dir)/cam.mp4"], "\(socket.received.map(\.text))")
        #expect(pings(socket.received).allSatisfy { $0 > ready[0].at }, "no ping before READY")
        let times = pings(socket.received)
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        try await socket.wait(seconds: 5, "no STOPPING=1") { $0.last?.text == "STOPPING=1" }
        #expect(pings(socket.received).count == times.count, "no ping after the stall")
    }

    /// Without WATCHDOG_USEC (or with another process's WATCHDOG_PID) there is no ping; without
    /// NOTIFY_SOCKET nothing is sent at all (the notifier is not made).
    @Test func theWatchdogIsFedOnlyWhenAskedForThisProcess() {
        #expect(ServiceNotifier(environment: [:]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/run/x"])?.watchdogInterval == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "@abstract", "WATCHDOG_USEC": "3000000"], pid: 7)?.watchdogInterval == .milliseconds(1500))
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "8"], pid: 7)?.watchdogInterval == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "7"], pid: 7)?.watchdogInterval == .milliseconds(1500))
    }

    /// Under the journal (stderr is the stream $JOURNAL_STREAM names), each line begins with its
    /// level: the error line with <3>, so journald files it as an error. On any other stderr the
    /// line is as always.
    @Test func underTheJournalTheErrorLineCarriesItsLevel() async throws {
        let dir = TestEnvironment.tempDir()
        for (matching, prefix) in [(true, "<3>gpick: error: "), (false, "gpick: error: ")] {
            let log = "\(dir)/stderr-\(matching)"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            var st = stat()
            stat(log, &st)
            let stream = "\(st.st_dev):\(matching ? Int(st.st_ino) : Int(st.st_ino) + 1)"
            let r = try await Subprocess.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" 2>>\"$GPICK_TEST_LOG\"", TestEnvironment.binary,
                                                         "snap", "--source", "test", "-o", "\(dir)/missing/a.jpg"],
                                             env: ["JOURNAL_STREAM": stream, "GPICK_TEST_LOG": log])
            #expect(r.status != 0)
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(text.hasPrefix(prefix) && text.split(separator: "\n").count == 1, "\(matching): \(text)")
        }
    }
}
