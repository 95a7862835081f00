// gpick-imagebench: ImageSource's in-process benchmark (bench/run.sh, section "imagesource", L6),
// and what writing a still's EXIF costs `snap` (section "realfiles", E1).
//
//   gpick-imagebench PHOTO [--runs N] [--warmup N]
//   gpick-imagebench exif JPEG [--runs N] [--warmup N]
//
// Times, on a warm process and page cache, what a picker cell asks of a photo first:
// - `size()`: the header only (gpick's own readers), from the call to the answer;
// - the first result of a progressive 256 px request: the stand-in (the EXIF thumbnail here), from
//   the call to its delivery; the final picture is awaited too, outside the timing, so each run
//   starts idle.
// Prints one JSON object: medians, minimums and maximums in milliseconds, and what came first.
//
// `exif` times what `snap` adds to a still it has encoded: `StillExif(...)` made for it (its clock
// read included) and `.insert(into:)` the JPEG's bytes, read once beforehand, from the call to the
// new bytes. Prints the same summary, the bytes the APP1 added, and whether it is where it belongs.
import Foundation
import GpickBenchSupport
import GpickBase
import GpickFormats
import GpickImages

let bench = BenchTool("gpick-imagebench")
var arguments = Array(CommandLine.arguments.dropFirst())
let runs = BenchTool.option("--runs", in: &arguments) ?? 200
let warmup = BenchTool.option("--warmup", in: &arguments) ?? 20
let usage = "usage: gpick-imagebench PHOTO [--runs N] [--warmup N] | exif JPEG [--runs N] [--warmup N]"

if arguments.first == "exif" {
    guard arguments.count == 2 else { bench.fail(usage) }
    guard let data = FileManager.default.contents(atPath: arguments[1]) else { bench.fail("cannot read \(arguments[1])") }
    let jpeg = [UInt8](data)
    let camera = CameraIdentity(make: "gpick", model: "videotestsrc")
    let clock = ContinuousClock()
    var times: [Double] = []
    var written: [UInt8] = []
    do {
        for i in 0..<(warmup + runs) {
            let start = clock.now
            written = try StillExif(camera: camera, software: "gpick-imagebench", takenAt: StillExif.now(), width: 1920, height: 1080)
                .insert(into: jpeg)
            if i >= warmup { times.append(BenchTool.milliseconds(clock.now - start)) }
        }
        // SOI, then (after an APP0, when the encoder wrote one) an APP1 holding "Exif\0\0".
        var at = 2
        if jpeg.count > 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        let placed = written.count > at + 10 && written[at] == 0xFF && written[at + 1] == 0xE1
            && Array(written[(at + 4)..<(at + 10)]) == Array("Exif".utf8) + [0, 0]
        let out: [String: Any] = ["jpeg": arguments[1], "jpeg_bytes": jpeg.count, "exif_bytes": written.count - jpeg.count,
                                  "exif_placed": placed, "runs": runs, "warmup": warmup, "insert": BenchTool.summary(times)]
        let json = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
        exit(0)
    } catch let e as GpickError {
        bench.fail(e.message)
    } catch {
        bench.fail("\(error)")
    }
}

guard arguments.count == 1 else { bench.fail(usage) }
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
                if i >= warmup { origins[result.origin.rawValue, default: 0] += 1 }
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
