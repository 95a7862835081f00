import Foundation
import Testing
import GpickTestSupport

/// GStreamer's own leak tracer (`GST_TRACERS=leaks`) lists every GstObject, buffer, caps and
/// event still alive at `gst_deinit`, which gpick calls at exit when the tracer is on. Every
/// path below must end with none: the Swift core's ownership (floating sunk, full adopted, none
/// retained, NULL before the last unref) is checked by GStreamer itself, not by our own counts.
@Suite(.serialized) struct LeakTracerTests {
    static let env = ["GST_TRACERS": "leaks", "GST_DEBUG": "leaks:7,GST_TRACER:7", "GST_DEBUG_NO_COLOR": "1"]
    static let small = ["--width", "320", "--height", "240"]

    /// The tracer's count of objects alive at exit, and the lines that name them.
    static func alive(_ r: Subprocess.Result) throws -> (count: Int, objects: [String]) {
        let line = try #require(r.stderrLines.last { $0.contains("alive objects") && $0.contains("listed") },
                                "the leak tracer did not report (was gst_deinit called?)")
        let count = line.components(separatedBy: "listed ").last.flatMap { Int($0.prefix { $0.isNumber }) }
        let objects = r.stderrLines.filter { $0.contains("object-alive") && $0.contains("type-name") }
        return (try #require(count), objects)
    }

    @Test func sessionWithEveryOutputLeavesNothingAlive() async throws {
        let dir = TestEnvironment.tempDir()
        let script = """
            preview start http
            snap a.jpg
            record 0.5s r.mp4
            flip
            snap b.jpg
            suspend
            wait 0.3s
            resume
            record 0.4s r.webm
            preview stop
            live l1
            """
        let r = try await Subprocess.gpick(["session", "--source", "test", "--preview-port", "0", "--output-dir", dir] + Self.small,
                                           env: Self.env, stdin: script + "\n")
        #expect(r.status == 0, "\(r.stderrLines.filter { $0.contains("error") }.prefix(3))")
        let (count, objects) = try Self.alive(r)
        #expect(count == 0, "\(objects.prefix(10))")
    }

    @Test(arguments: [
        ["snap", "--source", "test", "--count", "3", "-o", "b.jpg"],
        ["record", "--source", "test", "--audio", "test", "--duration", "0.5", "-o", "r.mkv"],
        ["record", "--source", "test", "--audio", "test", "--duration", "1.5", "--split", "0.5", "-o", "p.mp4"],
        ["inspect", "--stamps", "bad.mp4"],  // an error path: a file that is not media
        ["record", "--source", "test?fail-after=10", "--duration", "2", "-o", "f.mp4"],  // a camera failure
    ])
    func commandsLeaveNothingAlive(args: [String]) async throws {
        let dir = TestEnvironment.tempDir()
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: "\(dir)/bad.mp4"))
        let absolute = args.map { $0.hasSuffix(".jpg") || $0.hasSuffix(".mkv") || $0.hasSuffix(".mp4") ? "\(dir)/\($0)" : $0 }
        let r = try await Subprocess.gpick(absolute + (args[0] == "inspect" ? [] : Self.small), env: Self.env)
        let (count, objects) = try Self.alive(r)
        #expect(count == 0, "\(args.joined(separator: " ")): \(objects.prefix(10))")
    }
}
