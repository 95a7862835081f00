import CGStreamer
import Foundation
import GpickTestSupport
import GstCore
import Testing

@Suite(.serialized) struct CoreTests {
    init() throws { try Gst.initialize() }

    @Test func unknownElementIsATypedParseError() {
        do {
            _ = try Pipeline.parse("videotestsrc ! nosuchelement ! fakesink")
            Issue.record("parsed")
        } catch {
            #expect(error.domain == .parse)
            #expect(error.isParseNoSuchElement)
            #expect(error.message.contains("nosuchelement"))
        }
    }

    @Test func unknownPropertyIsATypedParseError() {
        #expect(throws: GStreamerError.self) { try Pipeline.parse("videotestsrc nope=1 ! fakesink") }
    }

    @Test func propertiesAreTypedAndRangeChecked() throws {
        let e = try Element.make("videotestsrc")
        try e.set("num-buffers", 5)
        #expect(try e.get("num-buffers") == .int(5))
        try e.set("pattern", .string("ball"))
        #expect(try e.get("pattern") == .serialized("ball"))
        try e.set("is-live", true)
        #expect(try e.get("is-live") == .bool(true))
        #expect(throws: GStreamerError.self) { try e.set("num-buffers", .int(-5)) }
        #expect(throws: GStreamerError.self) { try e.set("pattern", .string("nonsense")) }
        #expect(throws: GStreamerError.self) { try e.set("no-such-property", 1) }
        let enc = try Element.make("x264enc")
        try enc.set("bitrate", 4000)  // guint
        try enc.set("speed-preset", .string("veryfast"))
        #expect(throws: GStreamerError.self) { try enc.set("bitrate", .int(Int64(UInt32.max) + 1)) }
        let mux = try Element.make("mp4mux")
        try mux.set("reserved-max-duration", .int(5_000_000_000))  // guint64
        #expect(try mux.get("reserved-max-duration") == .int(5_000_000_000))
    }

    /// An element that has its clock but not yet its base time (a bin going to PLAYING hands
    /// them out in that order) reads the clock's own time as its running time: hours, the
    /// machine's uptime. Only once it plays is the running time trusted.
    @Test func runningTimeIsTrustedOnlyOncePlaying() async throws {
        let p = try await Pipeline.parse("appsrc name=a is-live=true format=time ! fakesink sync=false")
        let a = try #require(p.element(named: "a"))
        #expect(a.playingRunningTime == nil)
        let clock = try #require(gst_system_clock_obtain())
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        _ = gst_element_set_clock(a.pointer, clock)
        let early = try #require(a.currentRunningTime)
        #expect(gst_element_get_base_time(a.pointer) == 0 && early + 1_000_000_000 >= UInt64(gst_clock_get_time(clock)),
                "a clock but no base time: \(early) ns is the clock's own time")
        #expect(a.playingRunningTime == nil)
        try await p.setState(.playing)
        let playing = try #require(a.playingRunningTime)
        #expect(playing < 5_000_000_000 && playing < early, "\(playing) ns since it started playing, against \(early)")
        try await p.setState(.null)
    }

    @Test func busDeliversEndOfStreamAsync() async throws {
        let p = try await Pipeline.parse("videotestsrc num-buffers=3 ! fakesink")
        let messages = p.bus.messages()
        try await p.setState(.playing)
        var sawEOS = false, sawPlaying = false
        for await m in messages {
            if case .stateChanged(_, .playing) = m { sawPlaying = true }
            if case .endOfStream = m { sawEOS = true; break }
        }
        try await p.setState(.null)
        #expect(sawEOS && sawPlaying)
    }

    @Test func busDeliversErrorsWithDomainAndPath() async throws {
        let p = try await Pipeline.parse("filesrc location=/nonexistent/file name=in ! fakesink")
        let messages = p.bus.messages()
        _ = try? await p.setState(.playing)
        var error: GStreamerError?
        for await m in messages { if case .error(let e) = m { error = e; break } }
        try await p.setState(.null)
        let e = try #require(error)
        #expect(e.domain == .resource && e.isResourceNotFound)
        #expect(e.source == "in")
        #expect(e.sourcePath?.hasSuffix(":in") == true)
    }

    @Test func appsinkSamplesMapWithStrides() async throws {
        // 322 px wide I420: rows are padded to a multiple of 4 (stride 324), chroma 161 → 164.
        let p = try await Pipeline.parse("videotestsrc num-buffers=1 pattern=white ! video/x-raw,format=I420,width=322,height=240 ! appsink name=s")
        let sink = try AppSink(p.requireElement(named: "s"))
        let (stream, cont) = AsyncStream<Sample>.makeStream()
        sink.setCallbacks(onSample: { cont.yield($0) }, onEOS: { cont.finish() })
        try await p.setState(.playing)
        var got: Sample?
        for await s in stream { got = s; break }
        try await p.setState(.null)
        let sample = try #require(got)
        let strides = sample.withVideoFrame { f in f.planes.map(\.stride) }
        #expect(strides == [324, 164, 164])
        let lastLumaByte = sample.withVideoFrame { f in f.planes[0].data.load(fromByteOffset: 321, as: UInt8.self) }
        #expect(lastLumaByte == 235)
        #expect(sample.videoInfo?.width == 322)
    }

    /// Plays `launch ! filesink` to its end into `path`.
    static func write(_ launch: String, to path: String) async throws {
        let p = try await Pipeline.parse("\(launch) ! filesink name=f")
        try p.requireElement(named: "f").set("location", path)
        let messages = p.bus.messages()
        try await p.setState(.playing)
        for await m in messages { if case .endOfStream = m { break } }
        try await p.setState(.null)
    }

    @Test func discovererReadsDurationAndRejectsGarbage() async throws {
        let dir = TestEnvironment.tempDir()
        try await Self.write("videotestsrc num-buffers=15 ! video/x-raw,framerate=30/1 ! x264enc ! mp4mux", to: "\(dir)/d.mp4")
        let info = try await Discoverer.discover(path: "\(dir)/d.mp4")
        #expect(abs(info.durationSeconds - 0.5) < 0.01)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: "\(dir)/junk.mp4"))
        await #expect(throws: (any Error).self) { try await Discoverer.discover(path: "\(dir)/junk.mp4") }
    }

    /// A Matroska file cut after 400 bytes is damaged every time, never "timed out". decodebin2,
    /// inside GstDiscoverer, loses the demuxer's error in about one discovery in ten when the
    /// demuxer fails while decodebin is still starting it; the discovery then ran out its time.
    @Test func aTruncatedFileIsDamagedInEveryDiscovery() async throws {
        let dir = TestEnvironment.tempDir()
        try await Self.write("videotestsrc num-buffers=30 ! x264enc ! matroskamux", to: "\(dir)/whole.mkv")
        let whole = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/whole.mkv"))
        try whole.prefix(400).write(to: URL(fileURLWithPath: "\(dir)/cut.mkv"))
        var outcomes: [String: Int] = [:]
        for _ in 0..<20 {
            do throws(DiscovererError) {
                _ = try await Discoverer.discover(path: "\(dir)/cut.mkv", timeout: 10)
                outcomes["read", default: 0] += 1
            } catch {
                switch error {
                case .unreadable: outcomes["damaged", default: 0] += 1
                case .timedOut: outcomes["timed out", default: 0] += 1
                case .missingPlugins: outcomes["missing plugins", default: 0] += 1
                }
            }
        }
        #expect(outcomes == ["damaged": 20], "\(outcomes)")
    }
}
