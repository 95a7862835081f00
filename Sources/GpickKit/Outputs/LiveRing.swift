import FoundationEssentials
import Glibc
import GstCore

/// The live-photo pre-roll: a branch that encodes as frames arrive (short GOPs, no B-frames) and
/// keeps the encoded samples in a ring pruned a whole GOP at a time, so a shutter at any moment
/// has its "before" part. Memory holds `keep` seconds plus one GOP of H.264 (≈ 2 MB at 1080p).
public final class LiveRing: SessionOutput {
    /// One encoded sample at its running time.
    struct Entry {
        let time: UInt64
        let duration: UInt64?
        let keyframe: Bool
        let sample: Sample
    }

    private weak let session: CaptureSession?
    private let library: PipelineLibrary
    private let branch: Branch
    private let keep: UInt64
    private let ring = Locked(Ring())

    /// The samples held, and who waits for them. Read and written only under `ring`'s lock;
    /// appsink callbacks only append and prune.
    private struct Ring: ~Copyable {
        var video: [Entry] = []
        var audio: [Entry] = []
        var waiters: [(id: Int, until: UInt64, continuation: CheckedContinuation<Void, Error>)] = []
        var nextWaiter = 0
        var failure: GpickError?
        /// Start times that captures in progress still need: pruning never passes the oldest.
        var pins: [UInt64] = []
        /// Clips written as they go: each is handed every new video sample, in order.
        var followers: [(id: Int, each: @Sendable (Entry) -> Following)] = []
        var nextFollower = 0
        /// A running time pruning never passes while it says one (`hold`).
        var hold: (@Sendable () -> UInt64?)?
    }

    var bin: Bin { branch.bin }

    /// Tallest clip the ring encodes (when the file has a `size` capsfilter).
    public static let maxClipHeight = 720

    /// Arms the ring on a running session, keeping at least `seconds` of pre-roll.
    /// `file` replaces the shipped `live-ring` (same taps: `video`, and `audio` with sound).
    public static func arm(in session: CaptureSession, seconds: Double, keyInterval: Int? = nil,
                           file custom: PipelineFile? = nil, values given: [String: Parameter.Value] = [:]) async throws(GpickError) -> LiveRing {
        if let f = session.failureReason { throw f }
        let graph = try session.graphForOutput()
        let file: PipelineFile
        if let custom { file = custom } else { file = try session.configuration.library.load("live-ring") }
        var values = given
        if let p = file.parameter("key-interval"), values["key-interval"] == nil {
            values["key-interval"] = try p.parse(String(keyInterval ?? max(1, session.format.fps / 2)))
        }
        let bin = try await PipelineBuilder.build(file, audio: session.hasAudio, values: values, asPipeline: false)
        if let size = bin.element(named: "size") {
            // The clip is at most `maxClipHeight` lines, like a phone's: the still keeps the full size.
            let f = session.format
            let h = min(f.height, maxClipHeight)
            let w = max(2, (f.width * h / f.height) & ~1)
            do {
                try size.set("caps", caps: try Caps("video/x-raw,format=I420,width=\(w),height=\(h),pixel-aspect-ratio=1/1"))
            } catch {
                throw GpickError(.pipeline, "\(file.path): size: \(error.message)")
            }
        }
        let branch = try Branch(bin: bin, name: session.allocateBranchName(file.name), audio: session.hasAudio)
        let ring = LiveRing(session: session, branch: branch, keep: UInt64(seconds * 1e9))
        do {
            let vsink = try AppSink(try bin.requireElement(named: file.tap("video")?.element ?? "vring"))
            vsink.setCallbacks(onSample: { [weak ring] s in ring?.append(s, video: true) })
            if session.hasAudio {
                let asink = try AppSink(try bin.requireElement(named: file.tap("audio")?.element ?? "aring"))
                asink.setCallbacks(onSample: { [weak ring] s in ring?.append(s, video: false) })
            }
        } catch {
            throw GpickError(.pipeline, "\(file.path): \(error.message)")
        }
        try await session.attach(ring, branch: branch, to: graph)
        return ring
    }

    private init(session: CaptureSession, branch: Branch, keep: UInt64) {
        self.session = session
        self.library = session.configuration.library
        self.branch = branch
        self.keep = keep
    }

    private func append(_ sample: Sample, video isVideo: Bool) {
        guard let time = sample.runningTime, let buffer = sample.buffer else { return }
        let entry = Entry(time: time, duration: buffer.duration, keyframe: isVideo ? buffer.isKeyframe : true, sample: sample)
        let ready = ring.withLock { r -> [CheckedContinuation<Void, Error>] in
            guard isVideo else { r.audio.append(entry); return [] }
            r.video.append(entry)
            let followers = r.followers
            r.followers = []
            for f in followers {
                switch f.each(entry) {
                case .more: r.followers.append(f)
                case .done: break
                case .doneKeeping(let time): r.pins.append(time)
                }
            }
            Self.prune(&r, newest: time, keep: keep)
            let ready = r.waiters.filter { $0.until <= time }.map(\.continuation)
            r.waiters.removeAll { $0.until <= time }
            return ready
        }
        for w in ready { w.resume() }
    }

    /// Drops whole GOPs from the front while the GOP after them still starts early enough to
    /// cover `keep` before the newest frame. Audio follows the video's first entry.
    private static func prune(_ r: inout Ring, newest: UInt64, keep: UInt64) {
        var horizon = newest > keep ? newest - keep : 0
        if let pinned = r.pins.min() { horizon = min(horizon, pinned) }
        if let held = r.hold?() { horizon = min(horizon, held) }
        while let second = r.video.dropFirst().firstIndex(where: \.keyframe), r.video[second].time <= horizon {
            r.video.removeFirst(second)
        }
        if let first = r.video.first?.time {
            r.audio.removeAll { $0.time + ($0.duration ?? 0) < first }
        }
    }

    /// Running time of the oldest video sample held (nil while empty).
    var oldestVideoTime: UInt64? { ring.withLock { $0.video.first?.time } }

    /// Keeps everything from the running time `from` says on, for as long as it says one (nil:
    /// no hold); nil instead of a closure ends it. Asked under the ring's lock at each frame.
    func hold(_ from: (@Sendable () -> UInt64?)?) { ring.withLock { $0.hold = from } }

    /// Keeps everything from `time` on until `unpin` (a capture waiting for its "after" part).
    func pin(_ time: UInt64) { ring.withLock { $0.pins.append(time) } }
    func unpin(_ time: UInt64) {
        ring.withLock { r in if let i = r.pins.firstIndex(of: time) { r.pins.remove(at: i) } }
    }

    /// What a follower wants after a sample: more, no more, or no more and the ring to keep
    /// everything from a time on (a pin, taken off with `unpin`), asked for in the same lock.
    enum Following { case more, done, doneKeeping(UInt64) }

    /// Hands `each` the video held from the last keyframe at or before running time `from` (the
    /// first keyframe held, when the ring does not reach back that far), then every sample as it
    /// arrives, in order and under the ring's lock (so nothing is missed or handed twice), until
    /// `each` wants no more. `each` must not wait. Returns the running time it starts at, nil
    /// when the ring holds no keyframe yet (it then starts with the first that comes).
    @discardableResult
    func follow(from: UInt64, _ each: @escaping @Sendable (Entry) -> Following) -> UInt64? {
        ring.withLock { r -> UInt64? in
            let start = r.video.lastIndex { $0.keyframe && $0.time <= from } ?? r.video.firstIndex(where: \.keyframe)
            if let start {
                for e in r.video[start...] {
                    switch each(e) {
                    case .more: continue
                    case .done: return r.video[start].time
                    case .doneKeeping(let time):
                        r.pins.append(time)
                        return r.video[start].time
                    }
                }
            }
            r.followers.append((r.nextFollower, each))
            r.nextFollower += 1
            return start.map { r.video[$0].time }
        }
    }

    /// Frames held now.
    public var frameCount: Int { ring.withLock { $0.video.count } }

    /// Running time of the oldest and newest frame held.
    public var span: (first: UInt64, last: UInt64)? {
        ring.withLock { r in r.video.first.flatMap { f in r.video.last.map { (f.time, $0.time) } } }
    }

    /// Waits until a frame at or after running time `t` is in the ring. Cancellable, so a
    /// timeout around it ends it.
    func waitUntil(_ t: UInt64) async throws {
        let id = ring.withLock { r -> Int in defer { r.nextWaiter += 1 }; return r.nextWaiter }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                let now = ring.withLock { r -> Result<Void, Error>? in
                    if let failure = r.failure { return .failure(failure) }
                    if let last = r.video.last, last.time >= t { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    r.waiters.append((id, t, c))
                    return nil
                }
                if let now { c.resume(with: now) }
            }
        } onCancel: {
            let c = ring.withLock { r -> CheckedContinuation<Void, Error>? in
                guard let i = r.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return r.waiters.remove(at: i).continuation
            }
            c?.resume(throwing: CancellationError())
        }
    }

    /// Waits until the ring holds `seconds` of frames (the one-shot `gpick live` fires then, so its
    /// clip is complete).
    public func waitForPreroll(_ seconds: Double) async throws(GpickError) {
        do {
            try await withTimeout(seconds + 15) {
                try await self.waitUntil(0)
                let first = self.span?.first ?? 0
                try await self.waitUntil(first + UInt64(seconds * 1e9))
            }
        } catch let e as GpickError {
            throw e
        } catch {
            throw session?.failureReason ?? GpickError(.runtime, "the live-photo ring did not fill \(seconds) s in time")
        }
    }

    /// The clip: video from the last keyframe at or before `from` (or the first one held, when the
    /// ring has not filled yet) through `to`, and the audio over the same span.
    func clip(from: UInt64, to: UInt64) -> (video: [Entry], audio: [Entry]) {
        ring.withLock { r in
            let startIndex = r.video.lastIndex { $0.keyframe && $0.time <= from } ?? r.video.firstIndex { $0.keyframe } ?? 0
            let v = r.video[startIndex...].filter { $0.time <= to }
            guard let start = v.first?.time, let end = v.last.map({ $0.time + ($0.duration ?? 0) }) else { return ([], []) }
            let a = r.audio.filter { $0.time >= start && $0.time < end }
            return (Array(v), a)
        }
    }

    /// Writes everything the ring holds (from its first keyframe) as one MP4 through `file`
    /// (`gpick run live-clip`).
    public func writeAll(to target: OutputPath, file: PipelineFile? = nil) async throws(GpickError) -> (frames: Int, duration: Double) {
        let (v, a) = clip(from: 0, to: UInt64.max)
        guard let start = v.first?.time else { throw GpickError(.runtime, "the live-photo ring holds no video yet") }
        let c = try await ClipWriter.write(video: v, audio: a, start: start, scratch: target.sibling(".\(target.name).clip"),
                                           library: library, file: file)
        try await AtomicWrite.store(c.bytes, to: target)
        return (c.frames, c.duration)
    }

    /// Fails waiters and removes the branch.
    public func disarm() async {
        fail(GpickError(.runtime, "the live-photo ring was disarmed"))
        session?.unregister(self)
        // Unlinked first: a branch stopped while still linked would answer the tee with FLUSHING.
        await branch.cutInputAndWait()
        await branch.detach()
    }

    func fail(_ e: GpickError) {
        let ws = ring.withLock { r -> [CheckedContinuation<Void, Error>] in
            if r.failure == nil { r.failure = e }
            defer { r.waiters.removeAll() }
            return r.waiters.map(\.continuation)
        }
        for w in ws { w.resume(throwing: e) }
    }

    func sessionFailed(_ error: GpickError) { fail(error) }

    func sourceStopped(after last: UInt64?, error: GpickError?) {
        if let error { fail(error) }
    }

    func elementFailed(_ error: GStreamerError, source: SourceSpec) {
        fail(ErrorInterpreter.describe(error, source: source))
    }

    /// The session is stopping: its outputs leave first.
    func finishBeforeStop() async { await disarm() }
}
