import FoundationEssentials
import Glibc
import GpickBase
import GstCore

/// How far a clip may go ahead of the motion watch (ns, running time; nil: no limit): frames are
/// written up to `writable` while the motion goes on, and past the clip's end only once every
/// start before that end is `decided` (it would have kept the clip going).
struct ClipLimits: Sendable {
    var writable: @Sendable () -> UInt64?
    var decided: @Sendable () -> UInt64?
    static let none = ClipLimits(writable: { nil }, decided: { nil })
}

/// One motion clip being written (pipeline file `motion-clip`): the ring's samples from a
/// keyframe on, retimed to start at 0, pushed as the ring takes them, until a set end. Pushing
/// never waits (appsrc queues), so the ring's streaming thread is never held by the disk.
final class ClipStream: Sendable {
    let path: String
    let number: Int
    private let pipeline: Pipeline
    private let input: AppSrc
    private let fd: Int32
    private let directory: String
    private let state = Locked(State())
    /// Held while frames go to the muxer, so the ring's thread and a late end keep their order.
    private let pushing = Locked(())
    /// Set once the clip follows the ring.
    private let limits = Locked(ClipLimits.none)
    /// Told the keyframe a clip as long as it may be ends before, ahead of its end of stream.
    private let onRoll = Locked<(@Sendable (UInt64) -> Void)?>(nil)

    /// What has been written, and what waits (`release` decides).
    struct State {
        var first: UInt64?
        var last: UInt64?
        var frames = 0
        /// Running time past which the clip ends (the motion's end and the after part); nil while
        /// the motion goes on.
        var endAt: UInt64?
        /// The frame at `endAt` is known to come (the clips stopped there): the clip ends with it.
        var through = false
        var ended = false
        /// The longest the clip may be (ns; nil: no limit): it ends before the first keyframe that
        /// far past its first frame, and a clip of its own goes on from that keyframe.
        var longest: UInt64?
        /// The keyframe the clip ended before, as long as it was: the next clip starts with it.
        var rolledAt: UInt64?
        /// Samples taken but not yet written: past how far the clip may be written (`limit`).
        var pending: [LiveRing.Entry] = []
        var failure: GpickError?
    }

    private init(path: String, number: Int, pipeline: Pipeline, input: AppSrc, fd: Int32, directory: String) {
        self.path = path
        self.number = number
        self.pipeline = pipeline
        self.input = input
        self.fd = fd
        self.directory = directory
    }

    /// Creates the clip's file (never over another) and starts its muxer, its header space
    /// reserved for `longest` seconds and a little more (nil: the pipeline file's own reserve).
    static func open(in directory: String, name: String, number: Int, longest: Double?, library: PipelineLibrary) async throws(GpickError) -> ClipStream {
        let file = try library.load("motion-clip")
        let (fd, path) = try ClipNames.create(in: directory, name: name)
        do throws(GpickError) {
            // A minute more than the longest: the clip ends at the first keyframe past it.
            var values: [String: Parameter.Value] = [:]
            if let longest, file.parameter("reserve") != nil { values["reserve"] = .duration(longest + 60) }
            let bin = try await PipelineBuilder.build(file, audio: false, values: values, outputs: ["output": .int(Int64(fd))],
                                                      asPipeline: true)
            guard let pipeline = bin as? Pipeline else { throw GpickError(.runtime, "\(file.path) did not build a pipeline") }
            let input: AppSrc
            do throws(GStreamerError) {
                input = try AppSrc(try pipeline.requireElement(named: file.tap("input")?.element ?? "vin"))
            } catch {
                throw GpickError(.pipeline, "\(file.path): \(error.message)")
            }
            return ClipStream(path: path, number: number, pipeline: pipeline, input: input, fd: fd, directory: directory)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
    }

    /// Starts the muxer and follows `ring` from the keyframe at or before `from`, then takes off
    /// the ring's pin at `from` (its frames are the clip's now), writing no further than
    /// `limits` allow and for no longer than `longest` seconds. A clip that long ends before a
    /// keyframe, which the ring keeps (pinned there), and `rolled` is told its time, for the
    /// clip that goes on from it (that clip's own `from`, whose pin it takes off). `done` is
    /// told once the file is complete (or failed), after the clip has ended.
    func follow(_ ring: LiveRing, from: UInt64, longest: Double?, limits: ClipLimits,
                rolled: @escaping @Sendable (_ at: UInt64) -> Void,
                done: @escaping @Sendable (MotionClip?, GpickError?) -> Void) {
        self.limits.withLock { $0 = limits }
        onRoll.withLock { $0 = rolled }
        state.withLock { $0.longest = longest.map { UInt64(max(0, $0) * 1e9) } }
        let messages = pipeline.bus.messages()
        Task { [self] in
            do throws(GStreamerError) {
                try await pipeline.setState(.playing)
            } catch {
                state.withLock { s in
                    s.ended = true
                    s.failure = GpickError(.runtime, "motion clip \(path): \(error.message)", detail: error.diagnostic)
                }
            }
            if !state.withLock({ $0.ended }) {
                ring.follow(from: from) { [self] entry -> LiveRing.Following in
                    if drain(adding: entry) { return .more }
                    // Rolled over: the ring keeps the keyframe the next clip starts with.
                    return state.withLock { $0.rolledAt }.map { .doneKeeping($0) } ?? .done
                }
            }
            ring.unpin(from)
            let outcome = await finish(messages)
            done(outcome.clip, outcome.error)
        }
    }

    /// Where the clip ends, as far as it is known (the motion's end and the after part): what a
    /// clip that goes on from this one's rollover inherits.
    var endAt: UInt64? { state.withLock { $0.endAt } }

    /// Motion started again before the clip's end: it goes on. False once the clip has ended
    /// (unless as long as it may be: then the clip that goes on from it inherits this).
    func goOn() -> Bool {
        state.withLock { s in
            guard !s.ended || s.rolledAt != nil else { return false }
            s.endAt = nil
            s.through = false
            return true
        }
    }

    /// Ends the clip with the first frame past running time `time` (the motion's end and the
    /// after part), once no start before it can still come. Frames waiting on the limit up to
    /// there are written now.
    func end(after time: UInt64) {
        state.withLock { s in if !s.ended || s.rolledAt != nil { s.endAt = time } }
        _ = drain(adding: nil)
    }

    /// Ends the clip with its frame at running time `time` (the newest the ring holds as the
    /// clips stop): what came before is written, whether or not the clip has begun to follow the
    /// ring yet, so a clip stopped as it opens still holds its seconds before. Nil: now, as it is.
    func stop(through time: UInt64?) {
        let now = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            guard let time else { return Self.ended(&s) }
            let end = min(s.endAt ?? time, time)
            if let last = s.last, last >= end { return Self.ended(&s) }
            s.endAt = end
            s.through = true
            return false
        }
        if now { input.endOfStream() } else { _ = drain(adding: nil, unlimited: true) }
    }

    private static func ended(_ s: inout State) -> Bool {
        s.ended = true
        s.pending.removeAll()
        return true
    }

    /// Writes the samples waiting (and `entry`, one from the ring) as far as the clip's end (once
    /// known) or its limits allow, ending the clip when it is reached. The ring's thread and
    /// `end`/`stop` both come here; `pushing` keeps their frames in order. False once the clip
    /// wants no more.
    private func drain(adding entry: LiveRing.Entry?, unlimited: Bool = false) -> Bool {
        // The watch's times, read before the clip's state: they only grow.
        let l = unlimited ? ClipLimits.none : limits.withLock { $0 }
        let (writable, decided) = (l.writable(), l.decided())
        return pushing.withLock { _ in
            // A rollover is decided only with a frame from the ring, under its lock: the ring
            // keeps the keyframe (`.doneKeeping`) before anyone can ask it for that keyframe.
            let (writes, end) = state.withLock { s in
                Self.release(&s, adding: entry, writable: writable, decided: decided, mayRoll: entry != nil)
            }
            for w in writes {
                guard let buffer = w.entry.sample.retimedBuffer(pts: w.pts, duration: w.entry.duration) else { continue }
                do throws(GStreamerError) {
                    if w.first, let caps = w.entry.sample.caps { input.setCaps(caps) }
                    try input.push(buffer)
                } catch {
                    state.withLock { s in
                        _ = Self.ended(&s)
                        s.failure = s.failure ?? GpickError(.runtime, "motion clip \(path): \(error.message)", detail: error.diagnostic)
                    }
                    input.endOfStream()
                    return false
                }
            }
            if end {
                // Told before the file ends, so the clip that goes on is asked for before this
                // one is reported written.
                if let at = state.withLock({ $0.rolledAt }) { onRoll.withLock { $0 }?(at) }
                input.endOfStream()
                return false
            }
            return !state.withLock { $0.ended }
        }
    }

    typealias Write = (entry: LiveRing.Entry, pts: UInt64, first: Bool)

    /// Takes from `pending` what may be written now; true as the second value when the clip
    /// ends with them. Without `mayRoll`, a keyframe the clip would end before waits.
    static func release(_ s: inout State, adding entry: LiveRing.Entry?, writable: UInt64?, decided: UInt64?,
                        mayRoll: Bool = true) -> ([Write], Bool) {
        guard !s.ended else { return ([], false) }
        if let entry {
            if s.first == nil {
                guard entry.keyframe else { return ([], false) }
                s.first = entry.time
            }
            s.pending.append(entry)
        }
        // Past the end, the clip ends once no start before the end can still be told (a stop
        // ends it regardless).
        let through = s.through
        let mayEnd = { (endAt: UInt64) in through || decided.map { $0 >= endAt } ?? true }
        if let endAt = s.endAt, let last = s.last, last >= endAt, mayEnd(endAt) { return ([], ended(&s)) }
        var writes: [Write] = []
        while let e = s.pending.first {
            if let endAt = s.endAt, e.time > endAt {
                guard mayEnd(endAt) else { break }
                return (writes, ended(&s))
            }
            if s.endAt == nil, let writable, e.time > writable { break }
            // As long as it may be: the clip ends before this keyframe, and the next begins with
            // it (a stop ends it where told instead). Within half a frame: a live camera's
            // frames are stamped by the clock as they come, not on an exact grid.
            let slack = (e.duration ?? 10_000_000) / 2
            if let longest = s.longest, let first = s.first, e.keyframe, !s.through, s.frames > 0, e.time + slack >= first + longest {
                guard mayRoll else { break }
                s.rolledAt = e.time
                return (writes, ended(&s))
            }
            s.pending.removeFirst()
            s.frames += 1
            s.last = e.time
            writes.append((e, e.time - (s.first ?? e.time), s.frames == 1))
            if s.through, let endAt = s.endAt, e.time >= endAt { return (writes, ended(&s)) }
        }
        return (writes, false)
    }

    /// Waits for the muxer to finish the file after the clip's end, then closes it.
    private func finish(_ messages: AsyncStream<BusMessage>) async -> (clip: MotionClip?, error: GpickError?) {
        var failure: GpickError? = state.withLock { $0.failure }
        if failure == nil { failure = await MuxerEnd.wait(messages, what: "motion clip", file: path, directory: directory) }
        _ = try? await pipeline.setState(.null)
        var st = stat()
        let bytes = fstat(fd, &st) == 0 ? Int64(st.st_size) : 0
        close(fd)
        let s = state.withLock { $0 }
        guard let first = s.first, let last = s.last, s.frames > 0 else {
            // Nothing reached it (the session stopped first): no empty file is left behind.
            unlink(path)
            return (nil, failure ?? GpickError(.runtime, "motion clip \(path): no frame reached it"))
        }
        let clip = MotionClip(path: path, number: number, frames: s.frames, first: Double(first) / 1e9, last: Double(last) / 1e9,
                              duration: Double(last - first) / 1e9, bytes: bytes)
        return (clip, failure)
    }
}
