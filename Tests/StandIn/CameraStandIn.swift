import Foundation
import GpickKit
import GstCore
import Synchronization

/// A camera without the camera: `source-v4l2.yaml`'s own pipeline text, with only the element
/// that would open `/dev/video0` replaced: by an appsrc ("camera") and a caps filter named "src"
/// as v4l2src is, which advertises a real camera's mode table (one caps structure per line of its
/// `v4l2-ctl --list-formats-ext`; an appsrc alone answers a caps query with ANY). The session probes it and
/// fixes its mode filter as it does a camera's; the stand-in then learns the mode the way a
/// driver does (a caps query downstream, fixated) and sends frames in it, in real time. Each is
/// stamped with its capture time on the pipeline's clock, at exact intervals from the first, as a
/// driver stamps frames from the sensor's clock, however late the frame is read. Raw modes get frames made here, each with its
/// index in the frame stamp (source id 1), so a test can tell which frames came through; MJPEG
/// and H.264 modes get the bytes the test gives (real frames, whole or damaged; encoded ones).
public final class CameraStandIn: Sendable {
    public enum Frames: Sendable {
        /// Raw frames, frame i stamped `FrameStamp(sourceID: 1, index: i)`.
        case stamped
        /// JPEG frame i's bytes.
        case jpeg(@Sendable (Int) -> [UInt8])
        /// H.264 access unit i (byte-stream, as a UVC camera sends it); none: the camera has
        /// no more to send.
        case h264(@Sendable (Int) -> [UInt8])
    }

    public let offers: [ModeOffer]
    /// The caps the stand-in advertises: one structure per line of the table.
    private let advertised: String
    private let frames: Frames
    /// Seconds from playing to the first frame (a camera that takes its time to start).
    private let startDelay: Double
    private let state = Mutex(Feed())
    /// Entered while the sending thread runs: `stop()` returns once it has left, so `pushed`
    /// then counts every frame handed over (a push in flight is counted, not missed).
    private let sending = DispatchGroup()

    private struct Feed {
        var pushed = 0
        var stopped = false
        var caps: Caps?
        var failure: String?
    }

    public init(offers: [ModeOffer], frames: Frames, startDelay: Double = 0) {
        self.offers = offers
        self.advertised = offers.map { CapsModes.caps(for: $0) }.joined(separator: "; ")
        self.frames = frames
        self.startDelay = startDelay
    }

    /// Frames the stand-in has handed to the pipeline.
    public var pushed: Int { state.withLock { $0.pushed } }
    /// The mode it was given (fixed caps), once known.
    public var negotiated: Caps? { state.withLock { $0.caps } }
    /// Why it stopped sending, if it stopped by itself.
    public var failure: String? { state.withLock { $0.failure } }

    /// The camera's source part: v4l2src swapped for the stand-in; everything after it (mode
    /// filter, decodebin, conversion, rate) is the product's own text.
    public func sourcePart(_ library: PipelineLibrary) throws -> PipelineBuilder.Part {
        var file = try library.load("source-v4l2")
        let camera = "v4l2src name=src"
        guard file.pipeline.value.contains(camera) else { throw StandInError("source-v4l2.yaml no longer starts with \(camera)") }
        let caps = advertised
        file.pipeline.value = file.pipeline.value.replacingOccurrences(
            of: camera, with: "appsrc name=camera is-live=true format=time max-bytes=0 max-buffers=0 ! capsfilter name=src caps=\"\(caps)\"")
        file.parameters.removeAll { $0.name == "device" }
        file.bindings.removeAll { $0.parameter == "device" }
        file.name = "camera-stand-in"
        return PipelineBuilder.Part(file)
    }

    /// Starts sending into the stand-in inside `pipeline` (a session's, once prepared), on a
    /// thread of its own, at the negotiated rate, once it plays, until `stop()`.
    public func start(in pipeline: Bin) throws {
        try start(with: try pipeline.requireElement(named: "camera"))
    }

    /// The same, in a prepared session.
    public func start(in session: CaptureSession) throws {
        guard let camera = session.element(named: "camera") else { throw StandInError("the session has no stand-in (prepare it first)") }
        try start(with: camera)
    }

    private func start(with camera: Element) throws {
        let src = try AppSrc(camera)
        sending.enter()
        let thread = Thread { [self] in
            defer { sending.leave() }
            self.run(src)
        }
        thread.name = "camera-stand-in"
        thread.start()
    }

    /// Stops sending, and waits for the frame being pushed, if any (at most one frame's push).
    public func stop() {
        state.withLock { $0.stopped = true }
        sending.wait()
    }

    private func run(_ src: AppSrc) {
        guard let pad = src.staticPad("src"), let own = try? Caps(advertised),
              let caps = pad.peerQueryCaps(filter: own)?.fixated(),
              let width = caps.int("width"), let height = caps.int("height"), let (num, den) = caps.fraction("framerate"), num > 0 else {
            state.withLock { $0.failure = "no mode could be fixed downstream" }
            return
        }
        src.setCaps(caps)
        state.withLock { $0.caps = caps }
        let interval = Double(den) / Double(num)
        let raw: RawFrames?
        if caps.mediaType == "video/x-raw" {
            guard let format = caps.string("format"), let made = RawFrames(format: format, width: width, height: height) else {
                state.withLock { $0.failure = "the stand-in makes no \(caps.string("format") ?? "?") frames" }
                return
            }
            raw = made
        } else if case .stamped = frames {
            state.withLock { $0.failure = "stamped raw frames cannot be sent in \(caps.mediaType ?? "?")" }
            return
        } else {
            raw = nil
        }
        var index = 0
        var start: Date?
        var firstPTS: UInt64 = 0
        while !state.withLock({ $0.stopped }) {
            if let start {
                let due = start.addingTimeInterval(Double(index) * interval).timeIntervalSinceNow
                if due > 0 { Thread.sleep(forTimeInterval: due) }
            }
            let bytes: [UInt8]
            switch frames {
            case .stamped: bytes = raw?.frame(index) ?? []
            case .jpeg(let make), .h264(let make): bytes = make(index)
            }
            if bytes.isEmpty { return }
            if start == nil {
                // A live camera sends only once playing, stamped on the running clock.
                guard src.playingRunningTime != nil else { Thread.sleep(forTimeInterval: 0.005); continue }
                if startDelay > 0 { Thread.sleep(forTimeInterval: startDelay) }
                guard let now = src.playingRunningTime else { return }
                firstPTS = now
            }
            guard let buffer = bytes.withUnsafeBytes({ OwnedBuffer.copying($0) }) else { return }
            let duration = UInt64(1e9 * interval)
            buffer.view.setPTS(firstPTS + UInt64(index) * duration)
            buffer.view.setDuration(duration)
            do {
                try src.push(buffer)
            } catch {
                state.withLock { $0.failure = "push refused: \(error.message)" }
                return
            }
            if start == nil { start = Date() }
            index += 1
            state.withLock { $0.pushed = index }
        }
    }
}

/// Raw frames in a camera's packed or planar YUV format: grey, with the frame stamp in luma.
public struct RawFrames: Sendable {
    public let format: String, width: Int, height: Int
    /// Byte offset of luma sample (x, y), and the frame with neutral chroma.
    let luma: @Sendable (Int, Int) -> Int
    public let blank: [UInt8]

    public init?(format: String, width: Int, height: Int) {
        (self.format, self.width, self.height) = (format, width, height)
        let w = width, h = height
        switch format {
        case "YUY2", "YVYU":
            luma = { x, y in (y * w + x) * 2 }
            blank = [UInt8](unsafeUninitializedCapacity: w * h * 2) { b, n in
                for i in stride(from: 0, to: w * h * 2, by: 2) { b[i] = 100; b[i + 1] = 128 }
                n = w * h * 2
            }
        case "UYVY", "VYUY":
            luma = { x, y in (y * w + x) * 2 + 1 }
            blank = [UInt8](unsafeUninitializedCapacity: w * h * 2) { b, n in
                for i in stride(from: 0, to: w * h * 2, by: 2) { b[i] = 128; b[i + 1] = 100 }
                n = w * h * 2
            }
        case "GRAY8":
            luma = { x, y in y * w + x }
            blank = [UInt8](repeating: 100, count: w * h)
        case "NV12", "NV21", "I420", "YV12":
            // GStreamer's default strides are these sizes rounded up to 4 (and 8 for I420's chroma).
            guard w % 8 == 0, h % 2 == 0 else { return nil }
            luma = { x, y in y * w + x }
            blank = [UInt8](repeating: 100, count: w * h) + [UInt8](repeating: 128, count: w * h / 2)
        default:
            return nil
        }
    }

    /// Frame `index`: the blank frame with `FrameStamp(sourceID: 1, index:)` drawn in its luma.
    public func frame(_ index: Int) -> [UInt8] {
        var bytes = blank
        let c = FrameStamp.cellSize(width: width, height: height)
        guard width >= 16 * c, height >= 2 * c else { return bytes }
        let word = FrameStamp(sourceID: 1, index: index % FrameStamp.indexModulus).word
        for row in 0..<2 {
            for col in 0..<16 {
                let value: UInt8 = (word >> UInt32(31 - (row * 16 + col))) & 1 == 1 ? 255 : 0
                for y in (row * c)..<(row * c + c) {
                    for x in (col * c)..<(col * c + c) { bytes[luma(x, y)] = value }
                }
            }
        }
        return bytes
    }
}

/// Why the stand-in cannot be made or run, in a sentence.
public struct StandInError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
