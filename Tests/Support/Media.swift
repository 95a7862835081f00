import Foundation
import GpickFormats
import GpickKit
import GstCore

/// Decodes outputs through GStreamer so tests check frames and pixels, not file sizes.
public enum Media {
    /// gpick's own report on a file, as `gpick inspect PATH --json` (without `--stamps`) gives
    /// it, made in this process: for checks over many files, where two processes each (gpick
    /// hands a photo to gpick-library) cost more than the reading. The command is tested itself.
    public static func inspected(_ path: String) async throws -> InspectReport {
        if MetadataReader.looksLikeStill(path: path) {
            return try await MediaInspector.inspectStill(path: path, metadata: try MetadataReader.read(path: path), decoder: nil,
                                                         stamps: false, library: TestEnvironment.library)
        }
        return try await MediaInspector.inspect(path: path, decode: false, library: TestEnvironment.library)
    }

    public static func frames(_ path: String, measure: Bool = false) async throws -> [DecodedFrame] {
        try await MediaInspector.decodeFrames(path: path, library: TestEnvironment.library, measure: measure)
    }

    /// Stamp indices of every frame (nil where a frame carries no valid stamp).
    public static func stampIndices(_ path: String, id: Int = 1) async throws -> [Int?] {
        try await frames(path).map { f in f.stamp.flatMap { $0.sourceID == id ? $0.index : nil } }
    }

    public static func discover(_ path: String) async throws -> MediaInfo {
        try await Discoverer.discover(path: path, timeout: 30)
    }

    /// The first frame as packed RGB.
    public static func rgb(_ path: String) async throws -> (width: Int, height: Int, pixels: [UInt8]) {
        try await decoded(path, format: "RGB", bytesPerPixel: 3)
    }

    /// The first frame as packed RGBA, straight alpha (GStreamer's decoders: libpng, libjpeg, libwebp).
    public static func rgba(_ path: String) async throws -> (width: Int, height: Int, pixels: [UInt8]) {
        try await decoded(path, format: "RGBA", bytesPerPixel: 4)
    }

    static func decoded(_ path: String, format: String, bytesPerPixel bpp: Int) async throws -> (width: Int, height: Int, pixels: [UInt8]) {
        try await OffPool.run { () throws(any Error) in
            let p = try Pipeline.parse("filesrc name=f ! decodebin ! videoconvert ! video/x-raw,format=\(format) ! appsink name=s sync=false max-buffers=1")
            try p.requireElement(named: "f").set("location", path)
            let sink = try AppSink(p.requireElement(named: "s"))
            let box = Box()
            sink.setCallbacks(onSample: { s in box.set(s) })
            try p.setState(.playing)
            let deadline = Date().addingTimeInterval(HangBound.seconds(10))
            while box.get() == nil && Date() < deadline { usleep(5000) }
            try p.setState(.null)
            guard let sample = box.get() else { throw TestFailure("no frame decoded from \(path)") }
            guard let out = sample.withVideoFrame({ f -> (Int, Int, [UInt8]) in
                var px = [UInt8](repeating: 0, count: f.width * f.height * bpp)
                let plane = f.planes[0]
                for y in 0..<f.height {
                    let row = UnsafeRawPointer(plane.data + y * plane.stride)
                    for x in 0..<(f.width * bpp) { px[y * f.width * bpp + x] = row.load(fromByteOffset: x, as: UInt8.self) }
                }
                return (f.width, f.height, px)
            }) else { throw TestFailure("cannot map frame of \(path)") }
            return (width: out.0, height: out.1, pixels: out.2)
        }
    }

    final class Box: @unchecked Sendable {
        // Invariant: `sample` only touched under `lock`.
        private let lock = NSLock()
        private var sample: Sample?
        func set(_ s: Sample) { lock.withLock { if sample == nil { sample = s } } }
        func get() -> Sample? { lock.withLock { sample } }
    }

    /// RGB at (x, y).
    public static func pixel(_ img: (width: Int, height: Int, pixels: [UInt8]), _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * img.width + x) * 3
        return (Int(img.pixels[i]), Int(img.pixels[i + 1]), Int(img.pixels[i + 2]))
    }

    /// Checks that `indices` are exactly first, first+1, …
    public static func isConsecutive(_ indices: [Int?], from first: Int = 0) -> Bool {
        indices.enumerated().allSatisfy { $0.element == first + $0.offset }
    }

    /// Frames missing from an increasing run of stamp indices (nil if it is not increasing).
    public static func missing(_ indices: [Int]) -> Int? {
        guard zip(indices, indices.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        return zip(indices, indices.dropFirst()).reduce(0) { $0 + ($1.1 - $1.0 - 1) }
    }
}
