import Dispatch
import FoundationEssentials
import Glibc
import GpickBase
import GstCore

/// Draws the frame stamp on every test-source frame and, with `fail-after=N`, turns the source
/// into a failing camera after N frames (an error like an unplugged device's, then no more frames);
/// with `stall-after=N`, into a silent one (no more frames, no error); with `moves=A-B`, a bright
/// block crosses the picture in frames A to B-1 and nothing moves in the others.
final class TestSourceProbe: Sendable {
    private let state = Locked(ProbeState())
    private let options: SourceSpec.TestOptions

    /// What the probe counts; read and written only under `state`'s lock.
    private struct ProbeState: ~Copyable {
        var index = 0
        var info: VideoInfo?
        var failed = false
        var firstBuffer: DispatchTime?
    }

    init(options: SourceSpec.TestOptions) {
        self.options = options
    }

    /// Installs the probe on `pad` (the source's format capsfilter output); `source` posts the error.
    func install(on pad: Pad, source: Element) {
        pad.addProbe(.buffer) { [self] info in
            self.state.withLock { s -> ProbeReturn in
                if s.failed { return .drop }
                if let warmup = self.options.warmup, warmup > 0 {
                    // A camera starting up: nothing comes out until `warmup` has passed.
                    let now = DispatchTime.now()
                    let first = s.firstBuffer ?? now
                    s.firstBuffer = first
                    if Double(now.uptimeNanoseconds - first.uptimeNanoseconds) / 1e9 < warmup { return .drop }
                }
                if let limit = self.options.stallAfter, s.index >= limit { return .drop }
                if let limit = self.options.failAfter, s.index >= limit {
                    s.failed = true
                    source.postError(.read,
                                     message: "Could not read from the test source (fail-after=\(limit))",
                                     debug: "simulated camera failure after \(limit) frames")
                    return .drop
                }
                if s.info == nil, let caps = Pad(info.pad, transfer: .none).currentCaps {
                    s.info = VideoInfo(caps)
                }
                guard let vinfo = s.info, vinfo.isYUV, let buffer = info.writableBuffer() else { return .ok }
                let stamp = FrameStamp(sourceID: self.options.id, index: s.index)
                let moving = self.options.moves.first { $0.contains(s.index) }
                let index = s.index
                _ = buffer.withVideoFrame(caps: vinfo, writable: true) { frame in
                    if let moving { Self.drawBlock(into: &frame, step: index - moving.lowerBound, of: moving.count) }
                    stamp.draw(into: &frame)
                }
                // When the stamp was drawn (CLOCK_MONOTONIC, which every process on the machine
                // shares): a viewer that decodes the stamp knows how long the frame took to reach it.
                DebugLog.log(.log, source, "stamp \(stamp) drawn at monotonic \(Monotonic.nanoseconds())")
                s.index += 1
                return .ok
            }
        }
    }

    /// A white block, an eighth of the picture's width and a quarter of its height, across the
    /// middle band from left to right over `count` frames, or again every two seconds (60 frames)
    /// in a longer range (luma only: what motion looks at).
    static func drawBlock(into frame: inout VideoFrame, step: Int, of count: Int) {
        guard let y = frame.planes.first else { return }
        let w = max(2, frame.width / 8), h = max(2, frame.height / 4)
        let pass = min(count, 60)
        let x0 = (frame.width - w) * (step % pass) / max(1, pass - 1)
        let y0 = (frame.height - h) / 2
        let data = y.data.assumingMemoryBound(to: UInt8.self)
        for row in y0..<(y0 + h) {
            (data + row * y.stride + x0).update(repeating: 235, count: w)
        }
    }
}
