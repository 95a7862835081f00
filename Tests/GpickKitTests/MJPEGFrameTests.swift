import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import GstCore
import Testing

/// MJPEG frames as webcams really send them: real frames whole, cut short, without their end
/// marker, damaged, and without image data.
struct JPEGFrameCheckTests {
    static let good = "mjpeg/camera-streamer_capture.jpeg"     // 1920x1080, Exif and a thumbnail inside
    static let uvc = "mjpeg/gst-uvch264demux_valid_h264_jpg.mjpg"  // a UVC H.264 camera's frame, H.264 in APP4
    static let noScan = "mjpeg/gst-uvch264demux_valid_h264_yuy2.mjpg"  // YUY2 in APP4, no image scan
    static let corrupt = "mjpeg/camera-streamer_broken.jpeg"   // bad Huffman codes: only a decoder sees them

    static func frame(_ name: String) throws -> [UInt8] {
        try #require(CameraData.verified.contains(name), "\(name) is not in ../shared/cameras: the camera tests need it")
        return try CameraData.bytes(name)
    }

    @Test func wholeRealFramesPass() throws {
        #expect(JPEGFrameCheck.problem(try Self.frame(Self.good)) == nil)
        #expect(JPEGFrameCheck.problem(try Self.frame(Self.uvc)) == nil)
        // Zero padding after the end marker, as some cameras send up to the payload's size.
        #expect(JPEGFrameCheck.problem(try Self.frame(Self.good) + [UInt8](repeating: 0, count: 1000)) == nil)
    }

    @Test func aFrameWithoutImageDataIsRefused() throws {
        #expect(JPEGFrameCheck.problem(try Self.frame(Self.noScan)) == .noScan)
    }

    /// Cut at 200 places from the first bytes to the last: never taken for whole.
    @Test func framesCutShortAreRefusedWhereverTheCutFalls() throws {
        let whole = try Self.frame(Self.good)
        var random = SeededRandom(state: 44)
        for _ in 0..<200 {
            let cut = Int(random.next() % UInt64(whole.count - 1)) + 1
            let problem = JPEGFrameCheck.problem(Array(whole.prefix(cut)))
            #expect(problem != nil, "cut at \(cut) of \(whole.count) passed")
        }
        #expect(JPEGFrameCheck.problem(Array(whole.dropLast(2))) == .noEnd)
        #expect(JPEGFrameCheck.problem(Array(whole.prefix(whole.count / 2))) == .noEnd)
        #expect(JPEGFrameCheck.problem(Array(whole.dropFirst(100))) == .noStart)
        #expect(JPEGFrameCheck.problem([0xFF, 0xD8]) == .noStart)
    }

    /// A byte in the coded data that makes a marker where none may be is seen; a flip that
    /// makes valid-looking data is a decoder's to find (the real corrupt frame is such a one).
    @Test func markersWhereNoneMayBeAreDamage() throws {
        var damaged = try Self.frame(Self.good)
        let middle = damaged.count / 2
        damaged[middle] = 0xFF
        damaged[middle + 1] = 0xC4  // a DHT marker in the middle of the scan
        #expect(JPEGFrameCheck.problem(damaged) == .damaged)
        #expect(JPEGFrameCheck.problem(try Self.frame(Self.corrupt)) == nil)
    }
}

/// Damaged frames in a camera's MJPEG stream, through `source-v4l2.yaml`'s own text with the
/// camera replaced by an appsrc that sends real frames (the guard installed as a session
/// installs it): every whole frame is decoded, every damaged one that the check can see is
/// dropped and counted, and nothing ends the stream. Frames the check cannot see (bad Huffman
/// codes) reach the decoder; it decodes or drops them without failing.
struct MJPEGStreamTests {
    @Test func damagedFramesAreDroppedAndCountedAndTheStreamGoesOn() async throws {
        let good = try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.good)
        let noScan = try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.noScan)
        let corrupt = try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.corrupt)
        var random = SeededRandom(state: 7)
        // 120 frames (4 s at 30 fps): mostly whole, with every kind of damage among them, and
        // more than ten damaged in a row once (a decoder's default limit before it fails).
        var frames: [[UInt8]] = []
        var bad = 0
        for i in 0..<120 {
            let kind = (40..<52).contains(i) ? Int(random.next() % 3) : Int(random.next() % 6)
            switch kind {
            case 0: frames.append(Array(good.prefix(Int(random.next() % UInt64(good.count - 10)) + 4))); bad += 1  // cut short
            case 1: frames.append(Array(good.dropLast(2))); bad += 1                                              // no end marker
            case 2: frames.append(noScan); bad += 1                                                                // no image data
            default: frames.append(good)
            }
        }
        frames[100] = corrupt  // damage only a decoder sees
        let whole = frames.enumerated().filter { $0.offset != 100 && JPEGFrameCheck.problem($0.element) == nil }.count
        #expect(whole + bad + 1 == 120 && bad > 12)

        let file = try PipelineLibrary().load("source-v4l2")
        let caps = "image/jpeg,width=1920,height=1080,framerate=30/1"
        let text = file.pipeline.value.replacingOccurrences(of: "v4l2src name=src", with: "appsrc name=src format=time caps=\(caps)")
            + " ! fakesink name=out sync=false"
        let pipeline = try await Pipeline.parse(text)
        try pipeline.requireElement(named: "mode").set("caps", caps: try Caps(caps))
        let reported = Locked<[Int]>([])
        let guardian = try #require(MJPEGGuard.install(on: pipeline, interval: 0) { total, _ in reported.withLock { $0.append(total) } })
        let decoded = Locked(0)
        try #require(pipeline.requireElement(named: "decoded").staticPad("sink")).addProbe(.buffer) { _ in
            decoded.withLock { $0 += 1 }
            return .ok
        }
        let bus = pipeline.bus.messages()
        try await pipeline.setState(.playing)
        let src = try AppSrc(pipeline.requireElement(named: "src"))
        for (i, f) in frames.enumerated() {
            let buffer = try #require(f.withUnsafeBytes { OwnedBuffer.copying($0) })
            buffer.view.setPTS(UInt64(i) * 1_000_000_000 / 30)
            buffer.view.setDuration(1_000_000_000 / 30)
            try src.push(buffer)
        }
        src.endOfStream()
        var errors: [String] = []
        for await m in bus {
            if case .endOfStream = m { break }
            if case .error(let e) = m { errors.append(e.message); break }
        }
        try await pipeline.setState(.null)
        #expect(errors.isEmpty, "\(errors)")
        #expect(guardian.droppedFrames == bad)
        #expect(reported.withLock { $0 } == Array(1...bad))
        // Every whole frame decoded, and the corrupt one decoded (smeared) or dropped.
        #expect((whole...whole + 1).contains(decoded.withLock { $0 }), "decoded \(decoded.withLock { $0 }) of \(whole) whole frames")
    }
}
