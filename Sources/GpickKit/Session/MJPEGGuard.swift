import GstCore
import Synchronization

/// Keeps the frames a webcam damaged out of the session: each MJPEG frame is checked as it
/// leaves the camera's mode filter (`JPEGFrameCheck`), and one that is cut short, lacks its end
/// marker or holds a stray marker is dropped and counted, never decoded into a grey or smeared
/// picture. The decoder is told never to fail the stream on a frame it cannot decode (GStreamer's
/// video decoders give up after ten in a row by default, and the session would end): it drops
/// that frame instead. Either way the camera goes on.
public final class MJPEGGuard: Sendable {
    private let dropped = Mutex(0)

    /// Frames dropped so far.
    public var droppedFrames: Int { dropped.withLock { $0 } }

    /// Installs the check on `bin`'s mode filter and the decoders made inside it; `onDrop` hears
    /// of each frame dropped (on the camera's streaming thread: it must not block).
    @discardableResult
    public static func install(on bin: Bin, onDrop: @escaping @Sendable (_ total: Int, JPEGFrameCheck.Problem) -> Void) -> MJPEGGuard? {
        guard let pad = bin.element(named: "mode")?.staticPad("src") else { return nil }
        let guardian = MJPEGGuard()
        pad.addProbe(.buffer) { info in
            guard let problem = info.buffer?.withBytes({ JPEGFrameCheck.problem($0) }) ?? nil else { return .ok }
            let total = guardian.dropped.withLock { n -> Int in n += 1; return n }
            onDrop(total, problem)
            return .drop
        }
        bin.onDeepElementAdded { element in
            if element.hasProperty("max-errors"), element.factoryName?.hasSuffix("dec") == true { try? element.set("max-errors", -1) }
        }
        return guardian
    }
}
