// gpick-imagebench: ImageSource's in-process benchmark (bench/run.sh, section "imagesource", L6).
//
//   gpick-imagebench PHOTO [--runs N] [--warmup N]
//
// Times, on a warm process and page cache, what a picker cell asks of a photo first:
// - `size()`: the header only (gpick's own readers), from the call to the answer;
// - the first result of a progressive 256 px request: the stand-in (the EXIF thumbnail here), from
//   the call to its delivery; the final picture is awaited too, outside the timing, so each run
//   starts idle.
// Prints one JSON object: medians, minimums and maximums in milliseconds, and what came first.
import Foundation
import GpickBenchSupport
import GpickBase
import GpickImages

let bench = BenchTool("gpick-imagebench")
var arguments = Array(CommandLine.arguments.dropFirst())
let runs = BenchTool.option("--runs", in: &arguments) ?? 200
let warmup = BenchTool.option("--warmup", in: &arguments) ?? 20
guard arguments.count == 1 else { bench.fail("usage: gpick-imagebench PHOTO [--runs N] [--warmup N]") }
let photo = arguments[0]

let cacheBase = NSTemporaryDirectory() + "gpick-imagebench-\(getpid())"
defer { try? FileManager.default.removeItem(atPath: cacheBase) }
let source = FileImageSource(path: photo, thumbnails: ThumbnailCache(base: cacheBase, version: "bench"))
let request = ImageRequest(size: .fit(width: 256, height: 256), delivery: .progressive)
let clock = ContinuousClock()

do {
    var sizes: [Double] = []
    var firsts: [Double] = []
    var shown = PixelSize(width: 0, height: 0)
    var origins: [String: Int] = [:]
    for i in 0..<(warmup + runs) {
        let start = clock.now
        shown = try await source.size()
        if i >= warmup { sizes.append(BenchTool.milliseconds(clock.now - start)) }
    }
    for i in 0..<(warmup + runs) {
        let start = clock.now
        var first: Double? = nil
        var count = 0
        for try await result in source.image(request) {
            if first == nil {
                first = BenchTool.milliseconds(clock.now - start)
                if i >= warmup { origins[result.origin, default: 0] += 1 }
            }
            count += 1
        }
        guard count >= 1, let first else { bench.fail("no picture") }
        if i >= warmup { firsts.append(first) }
    }
    var out: [String: Any] = ["photo": photo, "width": shown.width, "height": shown.height, "runs": runs, "warmup": warmup,
                              "size": BenchTool.summary(sizes), "first_result": BenchTool.summary(firsts), "first_origins": origins]
    out["first_degraded_every_run"] = origins["exif-thumbnail", default: 0] + origins["cached-thumbnail", default: 0] == runs
    let data = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} catch let e as GpickError {
    bench.fail(e.message)
}
