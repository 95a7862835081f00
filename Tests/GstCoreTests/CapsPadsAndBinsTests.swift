import Foundation
import GpickBase
import GstCore
import Testing

/// Caps read as typed fields, pad probes that count and drop, and elements found by name in a
/// pipeline: real GStreamer objects, small pipelines run to their end.
@Suite struct CapsPadsAndBinsTests {
    init() throws { try Gst.initialize() }

    @Test func capsAreReadAsTypedFields() throws {
        let caps = try Caps("video/x-raw,format=I420,width=1280,height=720,framerate=30000/1001")
        #expect(caps.mediaType == "video/x-raw")
        #expect(caps.int("width") == 1280 && caps.int("height") == 720)
        #expect(caps.string("format") == "I420")
        #expect(caps.fraction("framerate")! == (30000, 1001))
        #expect(caps.int("nope") == nil && caps.string("width") == nil, "a missing field, or one of another type")
        let info = try #require(VideoInfo(caps))
        #expect(info.width == 1280 && info.height == 720 && info.format == "I420" && info.isYUV)
        #expect(throws: GStreamerError.self) { try Caps("video/x-raw,width=") }
    }

    /// A buffer probe sees every buffer in order, and one that drops keeps them from the sink.
    @Test func aBufferProbeCountsAndDrops() async throws {
        let p = try await Pipeline.parse("videotestsrc num-buffers=10 ! video/x-raw,width=64,height=48 ! identity name=gate ! appsink name=s sync=false")
        let seen = Locked<[UInt64]>([])
        let pad = try #require(p.requireElement(named: "gate").staticPad("src"))
        _ = pad.addProbe(.buffer) { info in
            let pts = info.buffer.flatMap(\.pts) ?? .max
            let n = seen.withLock { s -> Int in s.append(pts); return s.count }
            return n % 2 == 0 ? .drop : .ok
        }
        let sink = try AppSink(p.requireElement(named: "s"))
        let (stream, done) = AsyncStream<UInt64?>.makeStream()
        sink.setCallbacks(onSample: { done.yield($0.buffer?.pts) }, onEOS: { done.finish() })
        try await p.setState(.playing)
        var arrived: [UInt64?] = []
        for await pts in stream { arrived.append(pts) }
        try await p.setState(.null)
        let probed = seen.withLock { $0 }
        #expect(probed.count == 10 && probed == probed.sorted(), "\(probed)")
        #expect(arrived.count == 5, "every other buffer dropped: \(arrived)")
        #expect(arrived.compactMap { $0 } == stride(from: 0, to: 10, by: 2).map { probed[$0] })
    }

    @Test func elementsAreFoundByNameAndAMissingOneIsATypedError() throws {
        let p = try Pipeline.parse("videotestsrc name=cam ! queue ! fakesink name=out")
        #expect(p.element(named: "cam")?.factoryName == "videotestsrc")
        #expect(p.element(named: "out")?.factoryName == "fakesink")
        #expect(p.element(named: "nope") == nil)
        do {
            _ = try p.requireElement(named: "nope")
            Issue.record("found an element that is not there")
        } catch {
            #expect(error.domain == .core && error.message == "no element named \"nope\"")
        }
        #expect(Set(p.children.compactMap(\.factoryName)) == ["videotestsrc", "queue", "fakesink"])
    }

    /// decodebin's decoder is seen as it is added, early enough to set its properties; a
    /// prerolled pipeline knows its length and seeks in it.
    @Test func deepElementsDurationAndSeeking() async throws {
        let dir = NSTemporaryDirectory() + "gstcore-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let made = try await Pipeline.parse("videotestsrc num-buffers=60 ! video/x-raw,width=160,height=120,framerate=30/1 ! x264enc key-int-max=10 ! mp4mux ! filesink location=\(dir)/clip.mp4")
        let end = made.bus.messages()
        try await made.setState(.playing)
        for await m in end { if case .endOfStream = m { break } }
        try await made.setState(.null)

        let p = try await Pipeline.parse("filesrc location=\(dir)/clip.mp4 ! decodebin ! videoconvert ! video/x-raw,format=RGB ! appsink name=s")
        let set = Locked<[String: Bool]>([:])
        p.onDeepElementAdded { element in
            guard let name = element.factoryName, name.hasPrefix("avdec_") else { return }
            let ok = (try? element.set("max-threads", 1)) != nil
            set.withLock { $0[name] = ok && (try? element.get("max-threads")) == .int(1) }
        }
        let sink = try AppSink(p.requireElement(named: "s"))
        try await p.setState(.paused)
        let first = try #require(sink.tryPullPreroll(timeout: 10_000_000_000))
        #expect(set.withLock { $0 } == ["avdec_h264": true])
        let length = try #require(p.queryDuration())
        #expect(abs(Double(length) / 1e9 - 2.0) < 0.05, "\(length) ns")
        #expect(first.withPackedPixels { _, w, h, stride in [w, h, stride] } == [160, 120, 480])
        #expect(p.seek(to: 1_000_000_000, [.flush, .keyUnit, .snapNearest]))
        let after = try #require(sink.tryPullPreroll(timeout: 10_000_000_000))
        // The keyframe nearest 1 s: x264 puts one at least every 10 frames (a third of a second).
        let at = Double(after.buffer?.pts ?? 0) / 1e9
        #expect(abs(at - 1) <= 0.34, "the frame after seeking to 1 s is at \(at) s")
        try await p.setState(.null)
    }
}
