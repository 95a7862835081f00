// gpick-avatarbench: the avatar renderer's in-process benchmark (bench/run.sh, section "avatar", A1).
//
//   gpick-avatarbench [--runs N] [--warmup N]
//
// Times what `gpick avatar --text "Ada Lovelace" --gradient "#83b6ec,#337fdc" --shape circle
// --size 500` does once its process is up: `AvatarRenderer().render(model)` (the gradient, the
// initials "AL" fitted and coloured for contrast, the circle cut), from the call to the rendered
// avatar, and the same followed by its PNG encoding. Each run renders anew: nothing is cached
// between them. Prints one JSON object: medians, p90s, minimums and maximums in milliseconds.
import Foundation
import GpickBenchSupport
import GpickAvatar

let bench = BenchTool("gpick-avatarbench")
var arguments = Array(CommandLine.arguments.dropFirst())
let runs = BenchTool.option("--runs", in: &arguments) ?? 200
let warmup = BenchTool.option("--warmup", in: &arguments) ?? 20
guard arguments.isEmpty else { bench.fail("usage: gpick-avatarbench [--runs N] [--warmup N]") }

// The model of A1, as the command line above builds it (the bench's A2 renders the same).
let top = "#83b6ec", bottom = "#337fdc"
var model = ProfileImage()
model.text = "Ada Lovelace"
guard let c1 = AvatarColor(parsing: top), let c2 = AvatarColor(parsing: bottom) else { bench.fail("bad colours") }
model.setGradient(c1, c2)
model.shape = .circle
model.size = 500
let renderer = AvatarRenderer()
let clock = ContinuousClock()

do {
    var renders: [Double] = []
    var encodes: [Double] = []
    var png: [UInt8] = []
    var textColor: AvatarColor?
    for i in 0..<(warmup + runs) {
        let start = clock.now
        let avatar = try await renderer.render(model)
        let rendered = clock.now
        png = try avatar.encoded(as: .png)
        let encoded = clock.now
        textColor = avatar.textColor
        if i >= warmup {
            renders.append(BenchTool.milliseconds(rendered - start))
            encodes.append(BenchTool.milliseconds(encoded - start))
        }
    }
    let out: [String: Any] = [
        "text": model.text, "shown": model.shownText, "size": model.size, "shape": model.shape.description,
        "gradient": [top, bottom], "text_color": textColor?.description ?? "", "png_bytes": png.count,
        "runs": runs, "warmup": warmup, "render": BenchTool.summary(renders), "render_png": BenchTool.summary(encodes),
    ]
    let data = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} catch {
    bench.fail("\(error)")
}
