import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe a photo or movie: kind, size, codec, duration, frame count, streams, frame stamps.")

    @Argument(help: "The file to inspect.")
    var file: String

    @Flag(name: .long, help: "Decode every frame and print its frame stamp.")
    var stamps = false

    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func run() async throws {
        let events = Events(json: out.json, command: "inspect")
        try await reporting(events) {
            let report = try await MediaInspector.inspect(path: file, decode: true, library: pipelines.library)
            if out.json {
                let data = try JSONEncoder.sorted.encode(report)
                guard case .object(var obj) = try JSONDecoder().decode(JSONValue.self, from: data) else {
                    throw GpickError(.runtime, "inspect: the report is not a JSON object")
                }
                if !stamps { obj.removeValue(forKey: "stamps") }
                events.emit("report", obj)
                return
            }
            print("file: \(report.path)")
            print("kind: \(report.kind)")
            print("size: \(report.bytes) bytes")
            if let c = report.container { print("container: \(c)") }
            if let c = report.codec { print("codec: \(c)") }
            if let w = report.width, let h = report.height { print("dimensions: \(w)x\(h)") }
            if let f = report.fps, f > 0 { print(cFormat("fps: %.3f", f)) }
            if report.kind != "photo" { print(cFormat("duration: %.3f s", report.duration)) }
            if let n = report.frames { print("frames: \(n)") }
            for (i, s) in report.streams.enumerated() {
                var line = "stream \(i): \(s.kind) \(s.codec)"
                if let w = s.width, let h = s.height { line += " \(w)x\(h)" }
                if let c = s.channels, let r = s.sampleRate { line += " \(c) ch \(r) Hz" }
                print(line)
            }
            if let mp = report.motionPhoto {
                print("motion photo: \(mp.consistent ? "consistent" : "INCONSISTENT")")
                if let us = mp.presentationTimestampUs { print(cFormat("  still time: %.3f s", Double(us) / 1e6)) }
                if let d = mp.clipDuration { print(cFormat("  clip duration: %.3f s", d)) }
                if let n = mp.clipFrames { print("  clip frames: \(n)") }
                print("  clip bytes: \(mp.videoLength)")
                if let s = mp.stampAtPresentation { print("  stamp at still time: \(s)") }
                for p in mp.problems { print("  problem: \(p)") }
            }
            if let a = report.appleLivePhoto {
                print("apple live photo: \(a.consistent ? "consistent pair" : "INCONSISTENT")")
                if let id = a.contentIdentifier { print("  content identifier: \(id)") }
                if let p = a.pairedWith { print("  paired with: \(p)") }
                if let t = a.stillTime { print(cFormat("  still time: %.3f s", t)) }
                for p in a.problems { print("  problem: \(p)") }
            }
            if stamps, let st = report.stamps {
                for (i, s) in st.enumerated() { print("frame \(i): \(s ?? "none")") }
            }
        }
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }
}
