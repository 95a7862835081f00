import FoundationEssentials
import GpickBase
import GpickFormats
import GpickKit

/// How `gpick inspect` prints its report, whichever executable made it (gpick for movies,
/// gpick-library for photos, which it reads with libvips): lines of `key: value`, or one JSON
/// `report` event.
package enum InspectOutput {
    package static func emit(_ report: InspectReport, json: Bool, stamps: Bool, events: Events) throws {
        if json {
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
        if let c = report.codec { print(report.still == nil ? "codec: \(c)" : "format: \(c)") }
        if let s = report.still {
            printStill(s, upright: report.width.flatMap { w in report.height.map { (w, $0) } })
        } else {
            if let w = report.width, let h = report.height { print("dimensions: \(w)x\(h)") }
            if let f = report.fps, f > 0 { print(cFormat("fps: %.3f", f)) }
            if report.kind != "photo" { print(cFormat("duration: %.3f s", report.duration)) }
            if let n = report.frames { print("frames: \(n)") }
        }
        for (i, s) in report.streams.enumerated() {
            var line = "stream \(i): \(s.kind) \(s.codec)"
            if let w = s.width, let h = s.height { line += " \(w)x\(h)" }
            if let c = s.channels, let r = s.sampleRate { line += " \(c) ch \(r) Hz" }
            print(line)
        }
        if let mp = report.motionPhoto {
            print("motion photo: \(mp.consistent ? "consistent" : "INCONSISTENT")")
            if let kind = report.still?.motionPhotoKind { print("  kind: \(kind)") }
            if let o = report.still?.videoOffset { print("  clip at byte: \(o)") }
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
        } else if let id = report.still?.contentIdentifier {
            print("apple content identifier: \(id)")
        }
        if stamps, let st = report.stamps {
            for (i, s) in st.enumerated() { print("frame \(i): \(s ?? "none")") }
        }
    }

    static func printStill(_ s: StillFacts, upright: (Int, Int)?) {
        if let w = s.storedWidth, let h = s.storedHeight { print("dimensions: \(w)x\(h)") }
        if let c = s.cleanAperture { print("shown: \(c.width)x\(c.height) (clean aperture at \(c.left),\(c.top))") }
        if let (w, h) = upright {
            let o = s.orientation ?? 1
            print("upright: \(w)x\(h)" + (o == 1 ? "" : " (orientation \(o): \(orientationWords[o] ?? "?"))"))
        }
        print("taken: \(s.taken ?? "unknown (no date in the file)")")
        if s.make != nil || s.model != nil { print("camera: \([s.make, s.model].compactMap { $0 }.joined(separator: " "))") }
        if let sw = s.software { print("software: \(sw)") }
        print("images: \(s.images.count)")
        for (i, image) in s.images.enumerated() {
            var line = "image \(i): \(image.role.rawValue)"
            if let w = image.width, let h = image.height { line += " \(w)x\(h)" }
            if let m = image.mimeType { line += " \(m)" }
            print(line)
        }
        if let d = s.decoder {
            print("decoder: \(d)" + (s.decodedWidth.map { w in s.decodedHeight.map { " \(w)x\($0)" } ?? "" } ?? ""))
        }
    }

    static let orientationWords = [
        2: "mirrored left-right", 3: "turned 180°", 4: "mirrored top-bottom", 5: "mirrored, turned 90° anticlockwise",
        6: "turned 90° clockwise", 7: "mirrored, turned 90° clockwise", 8: "turned 90° anticlockwise",
    ]
}

extension JSONEncoder {
    package static var sorted: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }
}
