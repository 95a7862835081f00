import GpickBase
import GstCore
import Synchronization

/// Keeps the frames a webcam damaged out of the session: each MJPEG frame is checked as it
/// leaves the camera's mode filter (`JPEGFrameCheck`), and one that is cut short, lacks its end
/// marker or holds a stray marker is dropped and counted, never decoded into a grey or smeared
/// picture. Damaged coded data is found by gpickjpegdec as it decodes (`CameraJPEGDecoder`),
/// which drops the frame and tells the guard; where another decoder is in place, the check walks
/// the codes itself before decoding. Decoders are told never to fail the stream on a frame they
/// cannot decode (GStreamer's video decoders give up after ten in a row by default, and the
/// session would end): they drop that frame instead. Either way the camera goes on.
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
    private let report: @Sendable (_ total: Int, JPEGFrameCheck.Problem) -> Void
    /// Set once the decoder in place checks the coded data itself.
    let decoderChecksCodes = Atomic(false)

    /// A count shared by every guard a session installs (one per camera it opens).
    public final class Tally: Sendable {
        private let total = Mutex(0)
        public init() {}
        public var value: Int { total.withLock { $0 } }
        func add() { total.withLock { $0 += 1 } }
    }

    /// Frames dropped so far.
    public var droppedFrames: Int { count.withLock { $0.dropped } }

    private init(interval: Double, tally: Tally?, report: @escaping @Sendable (_ total: Int, JPEGFrameCheck.Problem) -> Void) {
        self.interval = UInt64(interval * 1e9)
        self.tally = tally
        self.report = report
    }

    /// Lets a decoder drop what it cannot decode, and takes gpickjpegdec's word on damaged codes.
    private func adopt(_ element: Element) {
        if CameraJPEGDecoder.isOne(element) {
            CameraJPEGDecoder.watch(element) { [self] _ in record(.corrupt) }
            decoderChecksCodes.store(true, ordering: .relaxed)
        } else if element.hasProperty("max-errors"), element.factoryName?.hasSuffix("dec") == true {
            try? element.set("max-errors", -1)
        }
    }

    /// Counts a frame (`problem` nil: a whole one) and tells the total when it is due.
    private func record(_ problem: JPEGFrameCheck.Problem?) {
        let due = count.withLock { c -> (Int, JPEGFrameCheck.Problem)? in
            if let problem { c.dropped += 1; c.lastProblem = problem }
            let now = Monotonic.nanoseconds()
            guard c.dropped > c.reported, c.reportedAt == 0 || now - c.reportedAt >= interval else { return nil }
            (c.reported, c.reportedAt) = (c.dropped, now)
            return (c.dropped, c.lastProblem)
        }
        if problem != nil { tally?.add() }
        if let due { report(due.0, due.1) }
    }

    /// Installs the check on `bin`'s mode filter and the decoders made inside it. `report` hears
    /// the running total at most once per `interval` seconds: at the first drop, and after that
    /// with the next frame (whole or not) once the interval has passed, so the last count is
    /// told too. It runs on the camera's streaming thread: it must not block.
    @discardableResult
    public static func install(on bin: Bin, tally: Tally? = nil, interval: Double = 1,
                               report: @escaping @Sendable (_ total: Int, JPEGFrameCheck.Problem) -> Void) -> MJPEGGuard? {
        guard let pad = bin.element(named: "mode")?.staticPad("src") else { return nil }
        let guardian = MJPEGGuard(interval: interval, tally: tally, report: report)
        pad.addProbe(.buffer) { info in
            let walk = !guardian.decoderChecksCodes.load(ordering: .relaxed)
            let problem = info.buffer?.withBytes({ JPEGFrameCheck.problem($0, walkCodes: walk) }) ?? nil
            guardian.record(problem)
            return problem == nil ? .ok : .drop
        }
        // Decoders a decodebin makes (when it meets the caps, before the first frame reaches
        // them), and one named in the pipeline file itself.
        bin.onDeepElementAdded { guardian.adopt($0) }
        for element in bin.children { guardian.adopt(element) }
        return guardian
    }
}
