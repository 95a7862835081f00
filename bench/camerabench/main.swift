// gpick-camerabench: the camera section's in-process benchmark (bench/run.sh, section "camera").
//
//   gpick-camerabench choice LISTING [--runs N]     C1: choosing a mode from a camera's table
//   gpick-camerabench decode FRAME.jpg [--frames N]  C2: the camera stage decoding MJPEG
//   gpick-camerabench session SECONDS                C3: a session on the stand-in, raw then MJPEG
//
// C1 reads a `v4l2-ctl --list-formats-ext` listing once (timed too), then times
// `ModeChoice.choose` for each of the six requests the mode tests ask (nothing, 640x480, 720p30,
// 1080p30, 1080p60, 4K), N times after 20 warm-up. C2 runs `source-v4l2.yaml`'s own text with
// the camera replaced by an appsrc that sends one real frame N times at 30 fps (the buffer's
// memory shared, not copied), the damaged-frame check installed as a session installs it, to the
// end, and measures the process's CPU time from PLAYING to the end. C3 runs a whole session on the
// camera stand-in (SessionRun.swift) twice. Each prints one JSON object.
import Foundation
import Glibc
import GpickBase
import GpickBenchSupport
import GpickKit
import GstCore

let bench = BenchTool("gpick-camerabench")
var arguments = Array(CommandLine.arguments.dropFirst())
let runs = BenchTool.option("--runs", in: &arguments) ?? 500
let frameCount = BenchTool.option("--frames", in: &arguments) ?? 300
guard arguments.count == 2, ["choice", "decode", "session"].contains(arguments[0]) else {
    bench.fail("usage: gpick-camerabench choice LISTING [--runs N] | decode FRAME.jpg [--frames N] | session SECONDS")
}

func printJSON(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { bench.fail("cannot write JSON") }
    print(String(decoding: data, as: UTF8.self))
}

func cpuSeconds() -> Double {
    var u = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &u)
    return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
}

let clock = ContinuousClock()
if arguments[0] == "choice" {
    guard let text = try? String(contentsOfFile: arguments[1], encoding: .utf8) else { bench.fail("cannot read \(arguments[1])") }
    var parses: [Double] = []
    var listing = V4L2FormatListing(parsing: text)
    for _ in 0..<50 {
        let start = clock.now
        listing = V4L2FormatListing(parsing: text)
        parses.append(BenchTool.milliseconds(clock.now - start))
    }
    let modes = listing.offers.reduce(0) { n, o in
        if case .discrete(let rates) = o.rates { return n + rates.count } else { return n + 1 }
    }
    let requests: [ModeRequest] = [
        .automatic, .deliver(size: ModeSize(width: 640, height: 480), rate: nil),
        .deliver(size: ModeSize(width: 1280, height: 720), rate: Fraction(30, 1)),
        .deliver(size: ModeSize(width: 1920, height: 1080), rate: Fraction(30, 1)),
        .deliver(size: ModeSize(width: 1920, height: 1080), rate: Fraction(60, 1)),
        .deliver(size: ModeSize(width: 3840, height: 2160), rate: nil),
    ]
    var times: [Double] = []
    var chosen: [String] = []
    do {
        for i in 0..<(20 + runs) {
            for r in requests {
                let start = clock.now
                let c = try ModeChoice.choose(from: listing.offers, for: r)
                let t = BenchTool.milliseconds(clock.now - start)
                if i >= 20 { times.append(t) }
                if i == 0 { chosen.append("\(r): \(c.mode)") }
            }
        }
    } catch {
        bench.fail(error.message)
    }
    printJSON(["listing": arguments[1], "formats": listing.offers.count, "modes": modes, "runs": runs, "requests": requests.count,
               "choice": BenchTool.summary(times), "parse": BenchTool.summary(parses), "chosen": chosen])
} else if arguments[0] == "session" {
    do {
        printJSON(try await sessions(seconds: Int(arguments[1]) ?? 60))
    } catch {
        bench.fail("\(error)")
    }
} else {
    do {
        printJSON(try await decode(arguments[1], frames: frameCount))
    } catch let e as GStreamerError {
        bench.fail(e.message)
    } catch let e as GpickError {
        bench.fail(e.message)
    }
}

/// A JPEG's size, from its frame header (SOF0…SOF2).
func frameSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
    var i = 2
    while i + 9 < b.count, b[i] == 0xFF {
        let marker = b[i + 1], length = Int(b[i + 2]) << 8 | Int(b[i + 3])
        if (0xC0...0xC2).contains(marker) { return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6])) }
        i += 2 + length
    }
    return nil
}

/// C2: the camera stage over `count` copies of one frame, to its end.
func decode(_ path: String, frames count: Int) async throws -> [String: Any] {
    guard let bytes = FileManager.default.contents(atPath: path) else { bench.fail("cannot read \(path)") }
    guard let frame = bytes.withUnsafeBytes({ OwnedBuffer.copying($0) }) else { bench.fail("cannot hold \(path)") }
    let file = try PipelineLibrary().load("source-v4l2")
    // The caps a camera's MJPEG mode has: its size and rate.
    guard let size = frameSize([UInt8](bytes)) else { bench.fail("\(path) is not a baseline JPEG frame") }
    let caps = "image/jpeg,width=\(size.width),height=\(size.height),framerate=30/1"
    let text = file.pipeline.value.replacingOccurrences(of: "v4l2src name=src", with: "appsrc name=src format=time block=true max-buffers=4 caps=\(caps)")
        + " ! fakesink sync=false"
    try await Gst.initialized()
    CameraJPEGDecoder.register()
    let pipeline: Pipeline = try await Pipeline.parse(text)
    let decoder = Locked<String?>(nil)
    pipeline.onDeepElementAdded { element in
        if element.factoryName?.contains("dec") == true, element.factoryName != "decodebin" { decoder.withLock { $0 = element.factoryName } }
    }
    let guardian = MJPEGGuard.install(on: pipeline) { _, _ in }
    let decoded = Locked(0)
    try pipeline.requireElement(named: "decoded").staticPad("sink")?.addProbe(.buffer) { _ in
        decoded.withLock { $0 += 1 }
        return .ok
    }
    let src = try AppSrc(pipeline.requireElement(named: "src"))
    let bus = pipeline.bus.messages()
    let before = cpuSeconds(), start = ContinuousClock().now
    try await pipeline.setState(.playing) as StateChange
    let pushing = Task.detached {
        for i in 0..<count {
            guard let b = frame.copy(pts: UInt64(i) * 1_000_000_000 / 30, duration: 1_000_000_000 / 30) else { return }
            try? src.push(b)
        }
        src.endOfStream()
    }
    for await m in bus {
        if case .endOfStream = m { break }
        if case .error(let e) = m { throw e }
    }
    await pushing.value
    let wall = BenchTool.milliseconds(ContinuousClock().now - start) / 1000, cpu = cpuSeconds() - before
    try await pipeline.setState(.null) as StateChange
    let frames = decoded.withLock { $0 }
    return ["frames": frames, "dropped": guardian?.droppedFrames ?? -1, "decoder": decoder.withLock { $0 } ?? "none", "cpu_seconds": cpu, "wall_seconds": wall,
            "video_seconds": Double(frames) / 30, "cpu_per_video_second": cpu / max(Double(frames) / 30, 0.001)]
}
