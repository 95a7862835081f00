import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import GstCore
import Testing

/// gpickjpegdec, gpick's MJPEG decoder: the same pictures as GStreamer's jpegdec, and a frame
/// whose coded data is damaged dropped where jpegdec would decode past it.
struct JPEGDecoderTests {
    /// A decoded picture: its format and its planes, each as rows of its samples (no padding).
    struct Picture: Sendable {
        var format: String
        var planes: [[[UInt8]]]
    }

    /// Frames through `DECODER`, one whole JPEG per buffer as a camera sends them: the decoded
    /// pictures by the frame's index (from their timestamps).
    static func decode(_ frames: [[UInt8]], with decoder: String, caps: String) async throws -> [Int: Picture] {
        #expect(try await registered(), "libjpeg.so.62 did not open: gpickjpegdec is not there")
        let pipeline = try await Pipeline.parse("appsrc name=src format=time caps=\(caps) ! \(decoder) ! appsink name=out sync=false")
        let decoded = Locked<[Int: Picture]>([:])
        try AppSink(pipeline.requireElement(named: "out")).setCallbacks(onSample: { sample in
            guard let pts = sample.buffer?.pts else { return }
            let picture = sample.withVideoFrame { frame -> Picture in
                let subsampled = ["I420": 2, "Y42B": 2, "Y41B": 4][frame.format] ?? 1
                let planes = frame.planes.enumerated().map { p, plane -> [[UInt8]] in
                    let width = p == 0 ? frame.width : (frame.width + subsampled - 1) / subsampled
                    let bytes = frame.format == "RGBx" ? 4 * width : width
                    return (0..<plane.height).map { row in
                        Array(UnsafeRawBufferPointer(start: plane.data + row * plane.stride, count: bytes))
                    }
                }
                return Picture(format: frame.format, planes: planes)
            }
            if let picture { decoded.withLock { $0[Int(pts / 1_000_000)] = picture } }
        })
        for error in try await Self.play(frames, through: pipeline, interval: 1_000_000) { Issue.record("\(decoder): \(error)") }
        return decoded.withLock { $0 }
    }

    /// Plays `frames` through `pipeline`'s appsrc "src", one whole JPEG a buffer, frame i at
    /// i × `interval` ns, to its end: the errors it posted (none for a stream that went on).
    static func play(_ frames: [[UInt8]], through pipeline: Pipeline, interval: UInt64) async throws -> [String] {
        let bus = pipeline.bus.messages()
        try await pipeline.setState(.playing)
        let src = try AppSrc(pipeline.requireElement(named: "src"))
        for (i, f) in frames.enumerated() {
            let buffer = try #require(f.withUnsafeBytes { OwnedBuffer.copying($0) })
            buffer.view.setPTS(UInt64(i) * interval)
            buffer.view.setDuration(interval)
            try src.push(buffer)
        }
        src.endOfStream()
        var errors: [String] = []
        for await m in bus {
            if case .endOfStream = m { break }
            if case .error(let e) = m { errors.append(e.message); break }
        }
        try await pipeline.setState(.null)
        return errors
    }

    /// GStreamer initialised (off the pool), then gpickjpegdec registered: whether it is there.
    static func registered() async throws -> Bool {
        try await Gst.initialized()
        return CameraJPEGDecoder.register()
    }

    /// A camera's MJPEG caps: the size they carry is the mode's; the decoder reads each frame's own.
    static let caps = "image/jpeg,width=1920,height=1080,framerate=30/1"

    /// Every layout an encoder makes (4:2:0, 4:2:2, 4:4:4, grey; sizes that are not multiples of
    /// the MCU; noise and flat colour) and the real camera frames decode as jpegdec decodes them:
    /// the same libjpeg-turbo and IDCT, so the same luma to the byte, and the same chroma where
    /// jpegdec keeps the JPEG's layout (4:2:0, grey); from 4:2:2 and 4:4:4, which jpegdec makes
    /// 4:2:0 and gpickjpegdec keeps, the chroma within a step on average.
    @Test(arguments: ["I420", "Y42B", "Y444", "GRAY8"])
    func picturesAreJpegdecsToTheByte(_ format: String) async throws {
        var frames = try await JPEGFrameCheckTests.encodedFrames(format).map(\.bytes)
        frames.append(try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.good))
        frames.append(try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.uvc))  // restart markers
        let ours = try await Self.decode(frames, with: "gpickjpegdec", caps: Self.caps)
        let theirs = try await Self.decode(frames, with: "jpegdec", caps: Self.caps)
        #expect(ours.count == frames.count && theirs.count == frames.count)
        for i in frames.indices {
            guard let a = ours[i], let b = theirs[i] else { continue }
            #expect(a.planes.first == b.planes.first, "frame \(i) (\(format)): luma differs from jpegdec's")
            guard a.format != b.format else {
                #expect(a.planes == b.planes, "frame \(i) (\(format)): chroma differs from jpegdec's")
                continue
            }
            // jpegdec makes I420 of every YUV layout; gpickjpegdec keeps the JPEG's own.
            let own = ["Y42B": "4:2:2", "Y444": "4:4:4"]
            #expect(b.format == "I420" && own[a.format] != nil, "frame \(i): \(a.format) against \(b.format)")
            // Its chroma, averaged down to 4:2:0, against jpegdec's (which makes 4:2:0 its own
            // way): on average within a step, so each sample comes from the right place.
            for p in 1..<3 {
                let rowStep = a.planes[p].count / max(1, b.planes[p].count), colStep = a.planes[p][0].count / max(1, b.planes[p][0].count)
                var difference = 0, samples = 0
                for (r, row) in b.planes[p].enumerated() {
                    for (c, v) in row.enumerated() {
                        var sum = 0, n = 0
                        for y in r * rowStep..<min((r + 1) * rowStep, a.planes[p].count) {
                            for x in c * colStep..<min((c + 1) * colStep, a.planes[p][y].count) { sum += Int(a.planes[p][y][x]); n += 1 }
                        }
                        difference += abs((sum + n / 2) / max(n, 1) - Int(v))
                        samples += 1
                    }
                }
                let mean = Double(difference) / Double(max(samples, 1))
                #expect(mean <= 1, "frame \(i) (\(a.format)), plane \(p): chroma \(mean) from jpegdec's on average")
            }
        }
    }

    /// Single bits flipped in the real frame's coded data (as `bitsFlippedInCodesAreSeen`): every
    /// frame the code walk sees is dropped by the decoder too, which sees more besides: a flipped
    /// DC difference leaves the codes in step but shifts every later block of its component, out
    /// of what an 8-bit block can hold (measured: the walk 37 of the 202 frames, the decoder 64).
    /// The whole frame decodes.
    @Test func flippedBitsTheWalkSeesAreDroppedByTheDecoder() async throws {
        let good = try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.good)
        let scan = try #require(CameraStandInTests.scanStart(good))
        var random = SeededRandom(state: 46)
        var frames: [[UInt8]] = [good]
        while frames.count < 201 {
            var f = good
            let at = scan + Int(random.next() % UInt64(good.count - scan - 4))
            let v = f[at] ^ UInt8(1 << (random.next() % 8))
            guard v != 0xFF, f[at] != 0xFF, f[at - 1] != 0xFF else { continue }  // no marker made or unmade
            f[at] = v
            frames.append(f)
        }
        frames.append(try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.corrupt))
        let walked = Set(frames.indices.filter { JPEGFrameCheck.problem(frames[$0]) == .corrupt })
        let decoded = try await Self.decode(frames, with: "gpickjpegdec", caps: Self.caps)
        let dropped = Set(frames.indices).subtracting(decoded.keys)
        #expect(decoded[0] != nil, "the whole frame was dropped")
        #expect(dropped.contains(frames.count - 1), "the real corrupt frame was decoded")
        #expect(walked.isSubset(of: dropped), "seen by the walk, decoded: \(walked.subtracting(dropped).sorted())")
        #expect(walked.count >= 30 && dropped.count > walked.count + 15, "walk \(walked.count), decoder \(dropped.count) of \(frames.count)")
    }

    /// A frame the decoder drops is told to its watcher, and the stream goes on past more than ten
    /// in a row (GStreamer's decoders fail the stream after ten by default).
    @Test func droppedFramesAreToldAndTheStreamGoesOn() async throws {
        #expect(try await Self.registered())
        let good = try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.good)
        let corrupt = try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.corrupt)
        let frames = [good] + Array(repeating: corrupt, count: 15) + [good, Array(good.prefix(good.count / 2)), good]
        let pipeline = try await Pipeline.parse("appsrc name=src format=time caps=\(Self.caps) ! gpickjpegdec name=dec ! fakesink name=out sync=false")
        let told = Locked<[String]>([])
        CameraJPEGDecoder.watch(try pipeline.requireElement(named: "dec")) { reason in told.withLock { $0.append(reason) } }
        let passed = Locked(0)
        try #require(pipeline.requireElement(named: "out").staticPad("sink")).addProbe(.buffer) { _ in
            passed.withLock { $0 += 1 }
            return .ok
        }
        let errors = try await Self.play(frames, through: pipeline, interval: 33_333_333)
        #expect(errors.isEmpty, "\(errors)")
        #expect(passed.withLock { $0 } == 3)
        let reasons = told.withLock { $0 }
        #expect(reasons.count == 16 && reasons.allSatisfy { !$0.isEmpty }, "\(reasons)")
    }

    /// decodebin takes gpickjpegdec for a camera's progressive MJPEG and leaves interlaced MJPEG
    /// (two fields a buffer) to jpegdec, which joins the fields.
    @Test(arguments: [("", "gpickjpegdec"), (",interlace-mode=progressive", "gpickjpegdec"), (",interlace-mode=interleaved", "jpegdec")])
    func decodebinTakesItForProgressiveFramesOnly(_ interlace: String, _ expected: String) async throws {
        #expect(try await Self.registered())
        let good = try JPEGFrameCheckTests.frame(JPEGFrameCheckTests.good)
        let pipeline = try await Pipeline.parse("appsrc name=src format=time caps=\(Self.caps)\(interlace) ! decodebin ! videoconvert ! fakesink sync=false")
        let made = Locked<[String]>([])
        pipeline.onDeepElementAdded { element in
            if let name = element.factoryName, name.hasSuffix("jpegdec") { made.withLock { $0.append(name) } }
        }
        _ = try await Self.play([good], through: pipeline, interval: 33_333_333)
        // decodebin makes each candidate before it asks it (a refused one is made, then removed): the last one stayed.
        #expect(made.withLock { $0 }.last == expected, "\(interlace): \(made.withLock { $0 })")
    }
}
