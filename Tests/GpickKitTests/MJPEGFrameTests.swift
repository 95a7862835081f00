import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import GstCore
import Synchronization
import Testing

/// MJPEG frames as webcams really send them: real frames whole, cut short, without their end
/// marker, damaged, and without image data.
struct JPEGFrameCheckTests {
    static let good = "mjpeg/camera-streamer_capture.jpeg"     // 1920x1080, Exif and a thumbnail inside
    static let uvc = "mjpeg/gst-uvch264demux_valid_h264_jpg.mjpg"  // a UVC H.264 camera's frame, H.264 in APP4
    static let noScan = "mjpeg/gst-uvch264demux_valid_h264_yuy2.mjpg"  // YUY2 in APP4, no image scan
    static let corrupt = "mjpeg/camera-streamer_broken.jpeg"   // bad Huffman codes, markers intact

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

    /// A byte in the coded data that makes a marker where none may be is seen; so is coded data
    /// out of step with its Huffman tables (the real corrupt frame, whose markers are intact).
    @Test func markersWhereNoneMayBeAreDamage() throws {
        var damaged = try Self.frame(Self.good)
        let middle = damaged.count / 2
        damaged[middle] = 0xFF
        damaged[middle + 1] = 0xC4  // a DHT marker in the middle of the scan: the scan ends short of its blocks
        #expect(JPEGFrameCheck.problem(damaged) == .corrupt)
        damaged = try Self.frame(Self.good)
        damaged.insert(contentsOf: [0xFF, 0x00], at: 4)  // a marker that does not exist, among the segments
        #expect(JPEGFrameCheck.problem(damaged) == .damaged)
        #expect(JPEGFrameCheck.problem(try Self.frame(Self.corrupt)) == .corrupt)
    }

    /// Single bits flipped at 200 places in the real frame's coded data: a flip in a Huffman code
    /// that throws the data out of step for good is seen; one in a coefficient's value bits is
    /// not, nor one after which the codes fall back into step within the block (JPEG's codes
    /// resynchronise within a few symbols): only the picture shows those. Measured: 36 of 200.
    @Test func bitsFlippedInCodesAreSeen() throws {
        let good = try Self.frame(Self.good)
        let scan = try #require(CameraStandInTests.scanStart(good))
        var random = SeededRandom(state: 46)
        var seen = 0, tried = 0
        while tried < 200 {
            var f = good
            let at = scan + Int(random.next() % UInt64(good.count - scan - 4))
            let v = f[at] ^ UInt8(1 << (random.next() % 8))
            guard v != 0xFF, f[at] != 0xFF, f[at - 1] != 0xFF else { continue }  // no marker made or unmade
            f[at] = v
            tried += 1
            if JPEGFrameCheck.problem(f) == .corrupt { seen += 1 }
        }
        #expect(seen >= 30, "\(seen) of \(tried) flips seen")
    }

    /// Two frames of each of four pictures, JPEG-encoded by jpegenc (libjpeg-turbo) at quality 90
    /// from `format` (I420, Y42B, Y444 or GRAY8: 4:2:0, 4:2:2, 4:4:4 and grey): noise at 1920x1080
    /// (long codes), SMPTE bars at 1366x766 and flat colour at 642x362 (sizes that are not
    /// multiples of the MCU), the ball at 88x40.
    static func encodedFrames(_ format: String) async throws -> [(name: String, bytes: [UInt8])] {
        let dir = TestEnvironment.tempDir("layout-\(format)")
        var frames: [(name: String, bytes: [UInt8])] = []
        for (pattern, size) in [("snow", "1920x1080"), ("smpte", "1366x766"), ("solid-color", "642x362"), ("ball", "88x40")] {
            let wh = size.split(separator: "x")
            let pipeline = try await Pipeline.parse("videotestsrc pattern=\(pattern) num-buffers=2 ! video/x-raw,format=\(format),width=\(wh[0]),height=\(wh[1]) "
                                                    + "! jpegenc quality=90 ! multifilesink location=\(dir)/\(pattern)-%d.jpg")
            let bus = pipeline.bus.messages()
            try await pipeline.setState(.playing)
            for await m in bus {
                if case .endOfStream = m { break }
                if case .error(let e) = m { Issue.record("\(e.message)"); break }
            }
            try await pipeline.setState(.null)
            for i in 0..<2 {
                frames.append(("\(pattern) \(size) frame \(i)", [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(pattern)-\(i).jpg")))))
            }
        }
        return frames
    }

    /// Frames of every layout a camera or encoder makes pass whole: libjpeg-turbo's (jpegenc) at
    /// 4:2:0, 4:2:2, 4:4:4 and grey, sizes that are not multiples of the MCU, noise (long codes)
    /// and flat colour (short ones); the real frames with restart markers (the UVC camera's).
    @Test(arguments: ["I420", "Y42B", "Y444", "GRAY8"])
    func encodedFramesOfEveryLayoutPass(_ format: String) async throws {
        for frame in try await Self.encodedFrames(format) {
            #expect(JPEGFrameCheck.problem(frame.bytes) == nil, "\(format) \(frame.name)")
        }
        #expect(JPEGFrameCheck.problem(try Self.frame(Self.uvc)) == nil)  // DRI: restart markers every few MCUs
    }
}

/// Damaged frames in a camera's MJPEG stream, through `source-v4l2.yaml`'s own text with the
/// camera replaced by an appsrc that sends real frames (the guard installed as a session
/// installs it): every whole frame is decoded, every damaged one that the check can see is
/// dropped and counted (the real corrupt frame among them), and nothing ends the stream. Once
/// with the decoder decodebin takes (gpickjpegdec, which finds damaged codes itself), once with
/// jpegdec in its place (the guard walks the codes before it).
struct MJPEGStreamTests {
    @Test(arguments: ["decodebin", "jpegdec"])
    func damagedFramesAreDroppedAndCountedAndTheStreamGoesOn(_ decoder: String) async throws {
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
        if JPEGFrameCheck.problem(frames[100]) == nil { bad += 1 }
        frames[100] = corrupt  // damaged Huffman codes, markers intact
        let whole = frames.filter { JPEGFrameCheck.problem($0) == nil }.count
        #expect(whole + bad == 120 && bad > 12)

        let file = try PipelineLibrary().load("source-v4l2")
        let caps = "image/jpeg,width=1920,height=1080,framerate=30/1"
        if decoder == "decodebin" { #expect(try await JPEGDecoderTests.registered(), "libjpeg.so.62 did not open") }
        let text = file.pipeline.value.replacingOccurrences(of: "v4l2src name=src", with: "appsrc name=src format=time caps=\(caps)")
            .replacingOccurrences(of: "decodebin", with: decoder) + " ! fakesink name=out sync=false"
        let pipeline = try await Pipeline.parse(text)
        try pipeline.requireElement(named: "mode").set("caps", caps: try Caps(caps))
        let reported = Locked<[Int]>([])
        let guardian = try #require(MJPEGGuard.install(on: pipeline, interval: 0) { total, _ in reported.withLock { $0.append(total) } })
        let decoded = Locked(0)
        try #require(pipeline.requireElement(named: "decoded").staticPad("sink")).addProbe(.buffer) { _ in
            decoded.withLock { $0 += 1 }
            return .ok
        }
        let errors = try await JPEGDecoderTests.play(frames, through: pipeline, interval: 1_000_000_000 / 30)
        #expect(errors.isEmpty, "\(errors)")
        #expect(guardian.droppedFrames == bad)
        #expect(reported.withLock { $0 } == Array(1...bad))
        #expect(decoded.withLock { $0 } == whole, "decoded \(decoded.withLock { $0 }) of \(whole) whole frames")
        #expect(guardian.decoderChecksCodes.load(ordering: .relaxed) == (decoder == "decodebin"))
    }
}
