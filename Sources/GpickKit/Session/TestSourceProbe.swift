import Dispatch
import FoundationEssentials
import Glibc
import GstCore

/// Draws the frame stamp on every test-source frame and, with `fail-after=N`, turns the source
/// into a failing camera after N frames (an error like an unplugged device's, then no more frames).
final class TestSourceProbe: Sendable {
    private let state: Mutex
    private let options: SourceSpec.TestOptions

    /// `@unchecked Sendable` invariant: guarded by its own lock; touched only from the probe.
    final class Mutex: @unchecked Sendable {
        let lock = Lock()
        var index = 0
        var info: VideoInfo?
        var failed = false
        var firstBuffer: DispatchTime?
    }

    init(options: SourceSpec.TestOptions) {
        self.options = options
        self.state = Mutex()
    }

    /// Installs the probe on `pad` (the source's format capsfilter output); `source` posts the error.
    func install(on pad: Pad, source: Element) {
        pad.addProbe(.buffer) { [self] info in
            self.state.lock.lock()
            defer { self.state.lock.unlock() }
            if self.state.failed { return .drop }
            if let warmup = self.options.warmup, warmup > 0 {
                // A camera starting up: nothing comes out until `warmup` has passed.
                let now = DispatchTime.now()
                if self.state.firstBuffer == nil { self.state.firstBuffer = now }
                if Double(now.uptimeNanoseconds - self.state.firstBuffer!.uptimeNanoseconds) / 1e9 < warmup { return .drop }
            }
            if let limit = self.options.failAfter, self.state.index >= limit {
                self.state.failed = true
                source.postError(.read,
                                 message: "Could not read from the test source (fail-after=\(limit))",
                                 debug: "simulated camera failure after \(limit) frames")
                return .drop
            }
            if self.state.info == nil, let caps = Pad(info.pad, transfer: .none).currentCaps {
                self.state.info = VideoInfo(caps)
            }
            guard let vinfo = self.state.info, vinfo.isYUV, let buffer = info.writableBuffer() else { return .ok }
            let stamp = FrameStamp(sourceID: self.options.id, index: self.state.index)
            _ = buffer.withVideoFrame(caps: vinfo, writable: true) { frame in stamp.draw(into: &frame) }
            self.state.index += 1
            return .ok
        }
    }
}
