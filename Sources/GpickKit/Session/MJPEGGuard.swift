import GpickBase
import GstCore
import Synchronization

/// Keeps the frames a webcam damaged out of the session: each MJPEG frame is checked as it
/// leaves the camera's mode filter (`JPEGFrameCheck`), and one that is cut short, lacks its end
/// marker or holds a stray marker is dropped and counted, never decoded into a grey or smeared
/// picture. The decoder is told never to fail the stream on a frame it cannot decode (GStreamer's
/// video decoders give up after ten in a row by default, and the session would end): it drops
/// that frame instead. Either way the camera goes on.
public final class MJPEGGuard: Sendable {
    private struct Count {
        var dropped = 0
        var reported = 0
        var reportedAt: UInt64 = 0
        var lastProblem: JPEGFrameCheck.Problem = .noEnd
    }
    private let count = Mutex(Count())
    private let interval: UInt64
    private let tally: Tally?

    /// A count shared by every guard a session installs (one per camera it opens).
    public final class Tally: Sendable {
        private let total = Mutex(0)
        public init() {}
        public var value: Int { total.withLock { $0 } }
        func add() { total.withLock { $0 += 1 } }
    }

    /// Frames dropped so far.
    public var droppedFrames: Int { count.withLock { $0.dropped } }

    private init(interval: Double, tally: Tally?) {
        self.interval = UInt64(interval * 1e9)
        self.tally = tally
    }

    /// Installs the check on `bin`'s mode filter and the decoders made inside it. `report` hears
    /// the running total at most once per `interval` seconds: at the first drop, and after that
    /// with the next frame (whole or not) once the interval has passed, so the last count is
    /// told too. It runs on the camera's streaming thread: it must not block.
    @discardableResult
    public static func install(on bin: Bin, tally: Tally? = nil, interval: Double = 1,
                               report: @escaping @Sendable (_ total: Int, JPEGFrameCheck.Problem) -> Void) -> MJPEGGuard? {
        guard let pad = bin.element(named: "mode")?.staticPad("src") else { return nil }
        let guardian = MJPEGGuard(interval: interval, tally: tally)
        pad.addProbe(.buffer) { info in
            let problem = info.buffer?.withBytes({ JPEGFrameCheck.problem($0) }) ?? nil
            let due = guardian.count.withLock { c -> (Int, JPEGFrameCheck.Problem)? in
                if let problem { c.dropped += 1; c.lastProblem = problem }
                let now = Monotonic.nanoseconds()
                guard c.dropped > c.reported, c.reportedAt == 0 || now - c.reportedAt >= guardian.interval else { return nil }
                (c.reported, c.reportedAt) = (c.dropped, now)
                return (c.dropped, c.lastProblem)
            }
            if problem != nil { guardian.tally?.add() }
            if let due { report(due.0, due.1) }
            return problem == nil ? .ok : .drop
        }
        bin.onDeepElementAdded { element in
            if element.hasProperty("max-errors"), element.factoryName?.hasSuffix("dec") == true { try? element.set("max-errors", -1) }
        }
        return guardian
    }
}
