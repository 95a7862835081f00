// Runs N snap + record cycles (or, with "flips", N camera flips in one session) in one process
// and reports its own open fds and memory, so the leak tests are not disturbed by other tests
// sharing the test runner's process.
import Foundation
import GpickKit

var args = CommandLine.arguments
let flips = args.count > 1 && args[1] == "flips"
if flips { args.remove(at: 1) }
guard args.count == 4, let cycles = Int(args[1]) else {
    FileHandle.standardError.write(Data("usage: gpick-soak [flips] CYCLES PIPELINES_DIR OUTPUT_DIR\n".utf8))
    exit(64)
}
let library = PipelineLibrary(override: args[2])
let dir = args[3]

func fds() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count }
func rssKiB() -> Int {
    let s = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    return s.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
}

func report(_ before: (fds: Int, rss: Int)) {
    print("{\"fdsBefore\":\(before.fds),\"fdsAfter\":\(fds()),\"rssBeforeKiB\":\(before.rss),\"rssAfterKiB\":\(rssKiB())}")
}

/// Flips back and forth in one session, each time until the new camera delivers, with a
/// recording running through all of them.
func soakFlips(_ count: Int) async throws {
    var config = SessionConfiguration()
    config.source = .test(.init())
    config.format = SessionFormat(width: 160, height: 120, fps: 30)
    config.library = library
    let session = CaptureSession(config)
    try await session.start()
    let rec = try await MovieRecording.start(in: session, to: try OutputPath("\(dir)/flips.mkv"),
                                             settings: RecordingSettings(container: .mkv))
    var before = (fds: 0, rss: 0)
    for i in 0..<count {
        if i == 10 { before = (fds(), rssKiB()) }
        try await session.flip()
        try await session.waitUntilLive()
        // Now and then, wait for a sharp frame of the new camera (after its crossfade).
        if i % 10 == 9 { for try await _ in session.nextFrames(1) {} }
    }
    rec.requestStop()
    _ = try await rec.finished()
    report(before)
    await session.stop()
}

do {
    if flips {
        try await soakFlips(cycles)
        exit(0)
    }
    let encoder = try await StillEncoder.make(format: .jpeg, library: library)
    var config = SessionConfiguration()
    config.source = .test(.init())
    config.format = SessionFormat(width: 320, height: 240, fps: 30)
    config.library = library
    var before = (fds: 0, rss: 0)
    for i in 0..<cycles {
        if i == 5 {  // after warm-up (caches, registry, threads)
            try await Task.sleep(nanoseconds: 300_000_000)
            before = (fds(), rssKiB())
        }
        let session = CaptureSession(config)
        try await session.start()
        for try await f in session.nextFrames(1) {
            try await AtomicWrite.store(try await encoder.encode(f, camera: session.camera), to: try OutputPath("\(dir)/s\(i).jpg"))
        }
        let rec = try await MovieRecording.start(in: session, to: try OutputPath("\(dir)/r\(i).mp4"),
                                                 settings: RecordingSettings(container: .mp4, duration: 0.2))
        _ = try await rec.finished()
        await session.stop()
    }
    await encoder.close()
    try await Task.sleep(nanoseconds: 300_000_000)
    report(before)
} catch let e as GpickError {
    FileHandle.standardError.write(Data("gpick-soak: \(e.message)\n".utf8))
    exit(1)
}
