import CImaging
import Dispatch
import FoundationEssentials
import GpickBase
import GstCore

/// Motion detection on a running session's frames, where they enter the session's outputs (after
/// flips and placeholders). Off until started, and nothing is added to the pipeline but a probe:
/// each frame's luma is shrunk to the small grid on the streaming thread (16 reads a cell, about
/// 0.2 ms at 1080p), and compared on a queue of its own, so no output waits for the comparison.
/// The test source's stamp changes every frame and is not the scene: it is never looked at.
public final class MotionWatch: Sendable {
    private let stopped = Locked(false)
    private let times = Locked<(first: Double?, last: Double?)>((nil, nil))
    /// The newest frame compared, once its events were told, and the frame through which every
    /// start has been told (nil once stopped).
    private let judged = Locked<(newest: Double, startsThrough: Double?)?>(nil)
    private let queue = DispatchQueue(label: "gpick.motion")
    /// Whether each start's first moving frame is kept (`keepStartFrames`), and those kept, by zone.
    private let keeping = Locked(false)
    private let startFrames = Locked<[String: (time: Double, frame: Sample)]>([:])
    private let detector: Locked<MotionDetectorBox>
    private let events: @Sendable (MotionEvent) -> Void

    /// The detector, used on `queue` only.
    private final class MotionDetectorBox: @unchecked Sendable {
        let detector: MotionDetector
        var lastTime: Double?
        /// When recent frames entered (monotonic ns), by stream time: a start's latency.
        var entered: [(time: Double, at: UInt64)] = []
        /// The newest frames compared (`recentFrames` of them), while starts' frames are kept.
        var recent: [(time: Double, frame: Sample)] = []
        init(_ detector: MotionDetector) { self.detector = detector }
    }

    /// Seconds without motion before a zone's motion ends (its settings').
    public let endAfter: Double
    /// Frames compared that are held while starts' frames are kept: a start is told its
    /// settings' startFrames after its first moving frame.
    private let recentFrames: Int

    private init(detector: MotionDetector, events: @escaping @Sendable (MotionEvent) -> Void) {
        self.endAfter = detector.settings.endAfter
        self.recentFrames = detector.settings.startFrames + 1
        self.detector = Locked(MotionDetectorBox(detector))
        self.events = events
    }

    /// Starts watching `session`'s frames; `events` is told each start and end (on a queue of the
    /// watch's own, in order). Also emitted as the session's `.motion` event.
    public static func start(in session: CaptureSession, settings: MotionSettings,
                             events: @escaping @Sendable (MotionEvent) -> Void = { _ in }) throws(GpickError) -> MotionWatch {
        let graph = try session.graphForOutput()
        guard let tee = graph.videoTee, let pad = tee.staticPad("sink") else { throw GpickError(.runtime, "the session is not running") }
        let f = session.format
        guard let info = (try? Caps("video/x-raw,format=I420,width=\(f.width),height=\(f.height)")).flatMap(VideoInfo.init) else {
            throw GpickError(.runtime, "cannot describe the session's frames (\(f.width)x\(f.height))")
        }
        let ignoring = session.source.isTest ? [Self.stampArea(width: f.width, height: f.height)] : []
        let detector = MotionDetector(settings: settings, width: f.width, height: f.height, ignoring: ignoring)
        let watch = MotionWatch(detector: detector, events: { [weak session] e in
            events(e)
            session?.emit(.motion(e))
        })
        let (gw, gh) = (detector.gridWidth, detector.gridHeight)
        // Frames held for the queue while it catches up: 32 MiB of them at most (ten at 1080p),
        // and never fewer than a start needs.
        let holdable = max(watch.recentFrames, min(90, (32 << 20) / max(1, f.width * f.height * 3 / 2)))
        pad.addProbe(.buffer) { [weak watch] probe in
            guard let watch, !watch.stopped.withLock({ $0 }) else { return .remove }
            guard let buffer = probe.buffer, let pts = buffer.pts else { return .ok }
            // A reference to the frame, only when starts' frames are kept, and not while the
            // comparison is further behind than memory allows (its queue would hold them all).
            var held: Sample?
            if watch.keeping.withLock({ $0 }), watch.backlog.withLock({ $0 }) < holdable, let caps = probe.currentCaps {
                held = Sample(holding: buffer, caps: caps)
            }
            var grid = [UInt8](repeating: 0, count: gw * gh)
            let shrunk = buffer.withVideoFrame(caps: info, writable: false) { frame -> Bool in
                guard let y = frame.planes.first else { return false }
                grid.withUnsafeMutableBufferPointer { g in
                    gpick_luma_grid(y.data.assumingMemoryBound(to: UInt8.self), Int32(y.stride), Int32(frame.width), Int32(frame.height),
                                    g.baseAddress, Int32(gw), Int32(gh))
                }
                return true
            } ?? false
            if shrunk { watch.frame(grid, at: Double(pts) / 1e9, entered: Monotonic.nanoseconds(), held: held) }
            return .ok
        }
        return watch
    }

    /// Keeps each start's first moving frame from now on, for `startFrame(of:)` (a clip's still:
    /// the frame the motion began in, not the one at hand when it is told). Costs a few frames'
    /// references while on.
    public func keepStartFrames() { keeping.withLock { $0 = true } }

    /// The first moving frame of the start `event` (taken: asked once), when it was kept.
    public func startFrame(of event: MotionEvent) -> Sample? {
        startFrames.withLock { kept in
            guard let k = kept[event.zone], k.time == event.time else { return nil }
            kept[event.zone] = nil
            return k.frame
        }
    }

    /// Frames handed to the queue and not compared yet.
    private let backlog = Locked(0)

    /// Stream times (s) of the first and the latest frame looked at.
    public var firstFrameTime: Double? { times.withLock { $0.first } }
    public var lastFrameTime: Double? { times.withLock { $0.last } }

    private func frame(_ grid: [UInt8], at time: Double, entered: UInt64, held: Sample?) {
        times.withLock { t in
            if t.first == nil { t.first = time }
            t.last = time
        }
        backlog.withLock { $0 += 1 }
        queue.async { [self] in
            backlog.withLock { $0 -= 1 }
            let (found, firsts, through) = detector.withLock { box -> ([MotionEvent], [(String, Double, Sample)], Double?) in
                box.lastTime = time
                box.entered.append((time, entered))
                if box.entered.count > 256 { box.entered.removeFirst(box.entered.count - 256) }
                if let held { box.recent.append((time, held)) }
                if box.recent.count > recentFrames { box.recent.removeFirst(box.recent.count - recentFrames) }
                let now = Monotonic.nanoseconds()
                let found = box.detector.process(grid, at: time).map { e in
                    guard e.kind == .started, let first = box.entered.last(where: { $0.time == e.time }) else { return e }
                    var started = e
                    started.latency = Double(now &- first.at) / 1e9
                    return started
                }
                let firsts = found.compactMap { e in
                    e.kind == .started ? box.recent.last(where: { $0.time == e.time }).map { (e.zone, e.time, $0.frame) } : nil
                }
                // A start is told startFrames frames after its first moving frame: once this frame
                // is compared, every start up to that many frames back has been.
                let back = max(1, recentFrames - 1)
                return (found, firsts, box.entered.count >= back ? box.entered[box.entered.count - back].time : nil)
            }
            // Kept before the start is told, so whoever it is told to finds its frame.
            if !firsts.isEmpty { startFrames.withLock { kept in for (zone, t, f) in firsts { kept[zone] = (t, f) } } }
            for e in found { events(e) }
            judged.withLock { if !stopped.withLock({ $0 }) { $0 = (time, through) } }
        }
    }

    /// Stream time (s) of the newest frame compared, its events told; nil before the first and
    /// once stopped. On a loaded machine the comparison falls behind the frames; a pre-roll
    /// ring keeps what it has not judged yet (`MotionClips.follow`).
    public var judgedTime: Double? { judged.withLock { $0?.newest } }

    /// Stream time (s) through which every start of motion has been told: a start whose first
    /// moving frame is at or before it would have been. Behind `judgedTime` by the frames a
    /// start takes to be sure; nil before then and once stopped.
    public var startsToldThrough: Double? { judged.withLock { $0?.startsThrough } }

    /// Whether `stop()` was called.
    public var isStopped: Bool { stopped.withLock { $0 } }

    /// Stops watching: motion under way ends now (its `ended` is told before this returns).
    public func stop() async {
        stopped.withLock { $0 = true }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                let found = detector.withLock { box in
                    box.recent.removeAll()
                    return box.detector.finish(at: box.lastTime ?? 0)
                }
                for e in found { events(e) }
                judged.withLock { $0 = nil }
                startFrames.withLock { $0.removeAll() }
                c.resume()
            }
        }
    }

    /// Where the test source draws its stamp (README, "Frame stamp"), one cell of margin around.
    static func stampArea(width: Int, height: Int) -> MotionPolygon {
        let c = Double(max(4, min(width, height) / 24))
        let x = min(1, 17 * c / Double(width)), y = min(1, 3 * c / Double(height))
        return try! MotionPolygon([(0, 0), (x, 0), (x, y), (0, y)])
    }
}
