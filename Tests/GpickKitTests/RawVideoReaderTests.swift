import CGStreamer
import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import GstCore
import Testing

/// gpicky4mdec, gpick's YUV4MPEG2 reader: behind decodebin it pulls each frame with one read into
/// a pooled buffer, and the frames are the file's, to the byte, in order, at their times.
struct RawVideoReaderTests {
    /// A y4m file of `count` frames whose every sample says where it is (frame, plane, x, y), and
    /// each frame's planes as rows without padding.
    struct File {
        var path: String
        var frames: [[[[UInt8]]]]  // frame, plane, row, sample
    }

    static func write(width: Int, height: Int, count: Int, to path: String, frameLine: String = "FRAME") throws -> File {
        let planes = [(width, height), ((width + 1) / 2, (height + 1) / 2), ((width + 1) / 2, (height + 1) / 2)]
        var bytes = Array("YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n".utf8)
        var frames: [[[[UInt8]]]] = []
        for f in 0..<count {
            bytes += Array("\(frameLine)\n".utf8)
            var frame: [[[UInt8]]] = []
            for (p, (w, h)) in planes.enumerated() {
                let rows = (0..<h).map { y in (0..<w).map { x in UInt8(truncatingIfNeeded: f * 7 + p * 31 + x * 3 + y * 5) } }
                rows.forEach { bytes += $0 }
                frame.append(rows)
            }
            frames.append(frame)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return File(path: path, frames: frames)
    }

    struct Read: Sendable {
        var frames: [(pts: UInt64, planes: [[[UInt8]]], pooled: Bool)] = []
        var errors: [String] = []
        var pulled = false
        var reader = false
    }

    /// Plays `description` (ending in an appsink "out") to its end or its first error; with
    /// `seek`, from there (a flushing seek once it is paused).
    static func read(_ description: String, seekTo seek: UInt64? = nil) async throws -> Read {
        try await Gst.initialized()
        RawVideoReader.register()
        let pipeline = try await Pipeline.parse(description)
        let got = Locked(Read())
        let sink = try AppSink(pipeline.requireElement(named: "out"))
        sink.setCallbacks(onSample: { sample in
            guard let buffer = sample.buffer, let pts = buffer.pts else { return }
            let pooled = buffer.pointer.pointee.pool != nil
            let planes = sample.withVideoFrame { frame in
                frame.planes.enumerated().map { p, plane -> [[UInt8]] in
                    let width = p == 0 ? frame.width : (frame.width + 1) / 2
                    return (0..<plane.height).map { Array(UnsafeRawBufferPointer(start: plane.data + $0 * plane.stride, count: width)) }
                }
            } ?? []
            got.withLock { $0.frames.append((pts, planes, pooled)) }
        })
        let bus = pipeline.bus.messages()
        if let seek {
            try await pipeline.setState(.paused)
            _ = try #require(sink.tryPullPreroll(timeout: 10_000_000_000))
            #expect(pipeline.seek(to: seek, .flush), "the reader refused a flushing seek")
        }
        try await pipeline.setState(.playing)
        for await message in bus {
            if case .endOfStream = message { break }
            if case .error(let e) = message { got.withLock { $0.errors.append(e.message) }; break }
        }
        let reader = pipeline.children.first { $0.factoryName == RawVideoReader.factoryName }
        got.withLock {
            $0.reader = reader != nil
            $0.pulled = reader.map(RawVideoReader.pulls) ?? false
        }
        try await pipeline.setState(.null)
        return got.withLock { $0 }
    }

    /// Through decodebin, as gpick's file source reads a file: the reader is taken (not y4mdec),
    /// pulls, and every frame arrives whole, in order, at i/30 s, in a buffer of a pool. Widths
    /// that GStreamer pads (322: rows of 324 and 164) are copied once into the padded layout.
    @Test(arguments: [(320, 240), (322, 242)])
    func aFileIsReadFrameByFrameIntoPooledBuffers(_ size: (Int, Int)) async throws {
        let dir = TestEnvironment.tempDir()
        let file = try Self.write(width: size.0, height: size.1, count: 12, to: "\(dir)/clip.y4m")
        let read = try await Self.read("filesrc location=\(file.path) ! decodebin ! appsink name=out sync=false")
        #expect(read.errors.isEmpty, "\(read.errors)")
        #expect(read.reader, "decodebin did not take gpicky4mdec")
        #expect(read.pulled, "the reader did not pull from the file")
        #expect(read.frames.count == 12)
        for (i, frame) in read.frames.enumerated() {
            #expect(frame.pts == UInt64(i) * 1_000_000_000 / 30, "frame \(i) at \(frame.pts)")
            let same = frame.planes == file.frames[i]
            #expect(same, "frame \(i) differs from the file's")
            #expect(frame.pooled, "frame \(i) is not a pool's buffer")
        }
    }

    /// Pushed to (a queue before it cannot be pulled from), it gathers the same frames.
    @Test func framesPushedToItAreTheSameFrames() async throws {
        let dir = TestEnvironment.tempDir()
        let file = try Self.write(width: 322, height: 242, count: 8, to: "\(dir)/clip.y4m", frameLine: "FRAME Ixyz")
        let read = try await Self.read("filesrc location=\(file.path) blocksize=1000 ! queue ! gpicky4mdec ! appsink name=out sync=false")
        #expect(read.errors.isEmpty, "\(read.errors)")
        #expect(!read.pulled)
        let same = read.frames.map(\.planes) == file.frames
        #expect(same, "\(read.frames.count) frames, not the file's 8")
    }

    /// A flushing seek to 1 s goes on from frame 30; a last frame cut short ends the stream
    /// quietly after the whole ones.
    @Test func itSeeksAndAShortLastFrameEndsTheStream() async throws {
        let dir = TestEnvironment.tempDir()
        let file = try Self.write(width: 64, height: 48, count: 40, to: "\(dir)/clip.y4m")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file.path))
        try handle.truncate(atOffset: try handle.seekToEnd() - 100)
        try handle.close()
        let read = try await Self.read("filesrc location=\(file.path) ! decodebin ! appsink name=out sync=false", seekTo: 1_000_000_000)
        #expect(read.errors.isEmpty, "\(read.errors)")
        #expect(read.frames.first?.pts == 1_000_000_000)
        let same = read.frames.map(\.planes) == Array(file.frames[30..<39])
        #expect(same, "frames after the seek: \(read.frames.map { f in file.frames.firstIndex { $0 == f.planes } ?? -1 }), not 30 to 38")
    }

    /// A header gpick cannot read, or none, is said in the user's terms, not as a GStreamer
    /// failure code; nothing waits for frames that will not come.
    @Test func aBadHeaderSaysWhatIsWrongWithIt() async throws {
        let dir = TestEnvironment.tempDir()
        try Data("YUV4MPEG2 W320 H240 F30:1 C420weird\nFRAME\n".utf8 + [UInt8](repeating: 0, count: 200)).write(to: URL(fileURLWithPath: "\(dir)/bad.y4m"))
        let read = try await Self.read("filesrc location=\(dir)/bad.y4m ! gpicky4mdec ! appsink name=out sync=false")
        #expect(read.errors == ["Not a YUV4MPEG2 stream gpick can read: its colour space (C) is not one GStreamer has a format for."])
        try Data().write(to: URL(fileURLWithPath: "\(dir)/empty.y4m"))
        let empty = try await Self.read("filesrc location=\(dir)/empty.y4m ! gpicky4mdec ! appsink name=out sync=false")
        #expect(empty.errors == ["The YUV4MPEG2 stream ended before its header."])
    }

    @Test func theRankFollowsGStreamersVariable() {
        #expect(OwnElementRank.asked(for: "gpicky4mdec", otherwise: GST_RANK_PRIMARY, variable: nil) == GST_RANK_PRIMARY.rawValue)
        #expect(OwnElementRank.asked(for: "gpicky4mdec", otherwise: GST_RANK_PRIMARY, variable: "x:MAX, gpicky4mdec : none") == 0)
        #expect(OwnElementRank.asked(for: "gpickjpegdec", otherwise: GST_RANK_PRIMARY, variable: "gpickjpegdec:77") == 77)
    }
}
