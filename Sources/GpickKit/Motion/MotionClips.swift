import FoundationEssentials
import Glibc
import GpickBase
import GstCore

/// One clip per motion event, each starting before the motion: the session's frames are encoded
/// into a ring as they come (`motion-ring`), and a clip is muxed from the ring's keyframe at or
/// before `pre` seconds ahead of the first moving frame, then written as it goes, frame by frame,
/// until `post` seconds after the last zone stopped moving. Motion that starts again within
/// those `post` seconds goes on in the same clip. Memory holds the ring (`pre` plus a GOP of
/// H.264), never a clip: a long event is on disk as it happens, and plays at every moment.
public final class MotionClips: Sendable {
    public struct Settings: Sendable {
        /// Seconds of picture before the first moving frame, and after the last.
        public var pre: Double = 3
        public var post: Double = 5
        /// The longest a clip may be, in seconds: motion that goes on longer goes on in a new
        /// clip, from the first keyframe past it (Motion's `movie_max_time`), with no frame lost
        /// or repeated between them. The clip's MP4 header space is reserved for this long.
        public var longest: Double = 600
        /// The clip's file name in its folder: `%t` the local time of the first moving frame
        /// (2026-11-29_14-05-30), `%n` the clip's number in this run (1, 2, …), `%%` a percent
        /// sign. A name taken already gets `-2`, `-3`… before its extension.
        public var name = "motion-%t.mp4"
        /// Also a JPEG of the motion's first moving frame (the frame at hand when the watch did
        /// not keep it), named as the clip (`.jpg`).
        public var snap = false
        /// Which clips stay, as a loop recording's parts: the oldest go first (with their
        /// stills), counting those an earlier run left under the same name; the newest stays.
        public var retention = PartRetention()
        public init() {}
    }

    /// What happens to clips, in order: each start, then its end or failure.
    public enum Event: Sendable {
        /// `continues`: the number of the clip this one goes on from (that one was as long as a
        /// clip may be), nil for a clip of a motion's own.
        case started(path: String, number: Int, from: Double, continues: Int?)
        case written(MotionClip)
        /// `motionStart`: the frame the motion began in; false: the frame at hand (the watch was
        /// too far behind the frames to keep it).
        case still(path: String, bytes: Int, number: Int, motionStart: Bool)
        case failed(path: String, GpickError)
        /// A clip, or its still, the retention no longer keeps, deleted.
        case deleted(path: String)
    }

    private let session: CaptureSession
    private let ring: LiveRing
    private let directory: String
    private let settings: Settings
    private let report: @Sendable (Event) -> Void
    private let commands: AsyncStream<Command>.Continuation
    private let driver: Locked<Task<Void, Never>?> = Locked(nil)
    private let encoder: StillEncoder?
    private let keeper: PartKeeper?

    private enum Command {
        case motion(MotionEvent)
        case finished(ClipStream, MotionClip?, GpickError?)
        /// The clip was as long as it may be: the next goes on from the keyframe at `at`.
        case rolled(ClipStream, at: UInt64)
        case stop(CheckedContinuation<Void, Never>)
    }

    private init(session: CaptureSession, ring: LiveRing, directory: String, settings: Settings, encoder: StillEncoder?,
                 report: @escaping @Sendable (Event) -> Void) {
        self.encoder = encoder
        keeper = settings.retention.keepsEverything ? nil
            : PartKeeper(settings.retention, folder: directory, earlier: ClipNames.existing(in: directory, pattern: settings.name)) { path in
                report(.deleted(path: path))
                // Its still (snap) goes with it.
                let still = path.deletingFilenameExtension + ".jpg"
                if unlink(still) == 0 { report(.deleted(path: still)) }
            }
        let (stream, commands) = AsyncStream<Command>.makeStream()
        self.session = session
        self.ring = ring
        self.directory = directory
        self.settings = settings
        self.report = report
        self.commands = commands
        let task = Task { [self] in await self.drive(stream) }
        driver.withLock { $0 = task }
    }

    /// Arms the pre-roll ring on a running session; clips go into `directory` (which must exist
    /// and be writable). Feed it the session's motion with `motion(_:)`.
    public static func start(in session: CaptureSession, directory: String, settings: Settings,
                             report: @escaping @Sendable (Event) -> Void = { _ in }) async throws(GpickError) -> MotionClips {
        guard settings.pre >= 0, settings.post >= 0, settings.pre.isFinite, settings.post.isFinite else {
            throw GpickError(.usage, "a clip's seconds before and after the motion must be 0 or more")
        }
        guard settings.longest >= minimumLongest, settings.longest <= maximumLongest else {
            throw GpickError(.usage, "the longest a clip may be must be \(Int(minimumLongest))…\(Int(maximumLongest)) seconds (it was \(settings.longest))")
        }
        try ClipNames.check(settings.name)
        // Checked as the first clip would be: a folder that cannot take it fails now, not at the
        // first motion.
        _ = try OutputPath("\(directory)/probe.mp4")
        let file = try session.configuration.library.load("motion-ring")
        // About 0.13 bit a pixel (8 Mbit/s at 1080p30), what a camera's own H.264 spends.
        let f = session.format
        let bitrate = min(100_000_000, max(500_000, f.width * f.height * max(1, f.fps) / 8))
        let encoder = settings.snap ? try await StillEncoder.make(format: .jpeg, library: session.configuration.library) : nil
        // A second and a half more than --pre: the motion's start reaches the ring that much
        // later at most before its pin holds the frames (about 1.5 MB at 1080p).
        let ring = try await LiveRing.arm(in: session, seconds: settings.pre + 1.5, keyInterval: max(1, f.fps), file: file,
                                          values: ["bitrate": .int(Int64(bitrate))])
        return MotionClips(session: session, ring: ring, directory: directory, settings: settings, encoder: encoder, report: report)
    }

    /// A motion event from the session's `MotionWatch` (any zone). A start pins the ring where
    /// its clip would begin, at once: on a loaded machine the clip may open a while later, and
    /// the ring must not have let those frames go meanwhile.
    public func motion(_ e: MotionEvent) {
        if e.kind == .started {
            ring.pin(Self.clipStart(e, pre: settings.pre))
            unsettled.withLock { $0 += 1 }
        }
        commands.yield(.motion(e))
    }

    /// Starts told and not yet handed to the clip under way: until they are, it must not end.
    private let unsettled = Locked(0)

    static func clipStart(_ e: MotionEvent, pre: Double) -> UInt64 { UInt64(max(0, e.time - pre) * 1e9) }

    /// Bounds on `Settings.longest`: two of the ring's keyframe intervals (a second each), and a day.
    public static let minimumLongest = 2.0
    public static let maximumLongest = 86_400.0

    /// Holds the ring's frames `watch` has not compared yet, and `pre` before them: on a loaded
    /// machine the comparison falls behind the frames (seconds, in a full test run), and a
    /// start told that late still finds its seconds before. Until the first frame is compared
    /// the ring keeps all; a stopped (or gone) watch holds nothing. A later call replaces it.
    public func follow(_ watch: MotionWatch) {
        watching.withLock { $0 = WeakWatch(watch: watch) }
        ring.hold { [weak self] in self?.judged(minus: self?.settings.pre ?? 0) }
        if settings.snap { watch.keepStartFrames() }
    }

    private struct WeakWatch { weak var watch: MotionWatch? }
    private let watching = Locked(WeakWatch())

    /// The newest frame the watch judged, less `seconds` (ns): 0 before its first, nil with no
    /// watch or a stopped one.
    private func judged(minus seconds: Double) -> UInt64? {
        guard let watch = watching.withLock({ $0.watch }) else { return nil }
        guard let judged = watch.judgedTime else { return watch.isStopped ? nil : 0 }
        return UInt64(max(0, judged - seconds) * 1e9)
    }

    /// How far a clip under way may be written before its end is known: while motion goes on,
    /// its last moving frame is less than `endAfter` before the newest frame judged, so the clip
    /// holds at least up to that plus `post`. Frames beyond wait in the clip, so a late end
    /// (a loaded machine) does not leave seconds more in it. Nil: no watch, no limit.
    private func writableUntil() -> UInt64? {
        let endAfter = watching.withLock { $0.watch?.endAfter } ?? 0
        return judged(minus: endAfter - settings.post)
    }

    /// How far every start of motion has reached the clips (ns): a clip goes past its end only
    /// once a start before that end would have kept it going. On a loaded machine the watch
    /// tells a start seconds after its frame, when the ring may hold the clip's end already.
    /// Nil: no watch, no limit.
    private func decidedThrough() -> UInt64? {
        guard let watch = watching.withLock({ $0.watch }) else { return nil }
        guard let told = watch.startsToldThrough else { return watch.isStopped ? nil : 0 }
        // Read after the watch's time: a start told by then is counted already.
        guard unsettled.withLock({ $0 }) == 0 else { return 0 }
        return UInt64(max(0, told) * 1e9)
    }

    /// Ends the clip under way with the newest frame the ring holds (its seconds before are in it
    /// even when it had only just opened), waits until every clip is written and the retention's
    /// deletions are done, and removes the ring.
    public func stop() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            if case .terminated = commands.yield(.stop(c)) { c.resume() }
        }
        await driver.withLock { $0 }?.value
        await ring.disarm()
        await encoder?.close()
        await keeper?.settle()
    }

    /// The motion's first moving frame (kept by the watch this follows), else the frame at hand,
    /// as a JPEG beside the clip (written whole or not at all).
    private func still(for clip: ClipStream, motion e: MotionEvent) async throws {
        guard let encoder else { return }
        let name = (clip.path.split(separator: "/").last.map(String.init) ?? clip.path).deletingFilenameExtension + ".jpg"
        let target = try OutputPath("\(directory)/\(name)")
        var frame = watching.withLock { $0.watch }?.startFrame(of: e)
        let first = frame != nil
        if frame == nil { for try await f in session.nextFrames(1) { frame = f } }
        guard let frame else { return }
        let bytes = try await encoder.encode(frame, camera: session.camera)
        try await AtomicWrite.store(bytes, to: target)
        report(.still(path: target.path, bytes: bytes.count, number: clip.number, motionStart: first))
    }

    /// Opens clip `number` (named for the wall time `at`) and has it follow the ring from `from`,
    /// whose pin it takes off; opening failed, the pin is taken off here.
    private func open(number: Int, at wall: Date, from: UInt64) async throws(GpickError) -> ClipStream {
        let clip: ClipStream
        do {
            clip = try await ClipStream.open(in: directory, name: ClipNames.expand(settings.name, number: number, at: wall),
                                             number: number, longest: settings.longest, library: session.configuration.library)
        } catch {
            ring.unpin(from)
            throw error
        }
        let limits = ClipLimits(writable: { [weak self] in self?.writableUntil() }, decided: { [weak self] in self?.decidedThrough() })
        clip.follow(ring, from: from, longest: settings.longest, limits: limits,
                    rolled: { [commands = self.commands] at in commands.yield(.rolled(clip, at: at)) },
                    done: { [commands = self.commands] written, error in commands.yield(.finished(clip, written, error)) })
        return clip
    }

    // MARK: - The one place that decides

    private func drive(_ commands: AsyncStream<Command>) async {
        var moving: Set<String> = []
        var current: ClipStream?
        var writing: [ObjectIdentifier: ClipStream] = [:]
        var number = 0
        var stopping: CheckedContinuation<Void, Never>?
        var stoppedThrough: UInt64?
        for await command in commands {
            switch command {
            case .motion(let e) where e.kind == .started:
                moving.insert(e.zone)
                // The pin from `motion(_:)` goes once the clip follows the ring, or here when
                // no clip opens.
                let from = Self.clipStart(e, pre: settings.pre)
                let wentOn = current?.goOn() == true
                // Told to the clip under way, or there is none to go on (it has ended).
                unsettled.withLock { $0 -= 1 }
                if wentOn { ring.unpin(from); continue }
                guard stopping == nil else { ring.unpin(from); continue }
                number += 1
                let wall = Date().addingTimeInterval(-(e.latency ?? 0))
                do {
                    let clip = try await open(number: number, at: wall, from: from)
                    current = clip
                    writing[ObjectIdentifier(clip)] = clip
                    report(.started(path: clip.path, number: number, from: e.time, continues: nil))
                    if settings.snap { try await still(for: clip, motion: e) }
                } catch {
                    report(.failed(path: directory, (error as? GpickError) ?? session.failureReason
                        ?? GpickError(.runtime, "motion clip in \(directory): \(error)")))
                }
            case .rolled(let previous, let at):
                // The clip under way was as long as it may be; motion told to it meanwhile (an
                // end, or a start again) is in its end, which this one takes on. Stopping, it
                // goes on to where the stop said.
                guard current === previous || stopping != nil else { ring.unpin(at); continue }
                number += 1
                let newest = ring.span?.last ?? at
                let wall = Date().addingTimeInterval(-Double(newest > at ? newest - at : 0) / 1e9)
                do throws(GpickError) {
                    let clip = try await open(number: number, at: wall, from: at)
                    if stopping != nil {
                        clip.stop(through: stoppedThrough)
                    } else {
                        if let end = previous.endAt { clip.end(after: end) }
                        current = clip
                    }
                    writing[ObjectIdentifier(clip)] = clip
                    report(.started(path: clip.path, number: number, from: Double(at) / 1e9, continues: previous.number))
                } catch {
                    if current === previous { current = nil }
                    report(.failed(path: directory, error))
                }
            case .motion(let e):
                moving.remove(e.zone)
                if moving.isEmpty { current?.end(after: UInt64(max(0, e.time + settings.post) * 1e9)) }
            case .finished(let clip, let written, let error):
                writing[ObjectIdentifier(clip)] = nil
                if current === clip { current = nil }
                if let error { report(.failed(path: clip.path, error)) } else if let written {
                    report(.written(written))
                    keeper?.written(path: written.path, bytes: written.bytes)
                }
                if writing.isEmpty, let s = stopping { s.resume(); return }
            case .stop(let c):
                stopping = c
                stoppedThrough = ring.span?.last
                current?.stop(through: stoppedThrough)
                current = nil
                if writing.isEmpty { c.resume(); return }
            }
        }
    }
}

/// A clip written: where, how many frames, and the stream times (s) of its first and last.
public struct MotionClip: Sendable, Equatable {
    public var path: String
    public var number: Int
    public var frames: Int
    public var first: Double
    public var last: Double
    public var duration: Double
    /// The file's size once complete.
    public var bytes: Int64

    public var fields: EventFields {
        let round = { (v: Double) in (v * 1000).rounded() / 1000 }
        return ["path": path, "number": number, "frames": frames, "first": round(first), "last": round(last),
                "duration": round(duration), "bytes": bytes]
    }
}

extension MotionClips {
    /// Refuses a clip name that could not name a file in the clips' folder.
    public static func checkName(_ pattern: String) throws(GpickError) { try ClipNames.check(pattern) }
}

extension MotionClips {
    /// A name with `%t` (the local time `date`: 2026-11-29_14-05-30), `%n` (`number`) and `%%`
    /// filled in, as clips are named; scripts' `on motion` blocks name their files so.
    public static func name(_ pattern: String, number: Int, at date: Date) -> String {
        ClipNames.expand(pattern, number: number, at: date)
    }

    /// Refuses a percent sign followed by anything but t, n or %.
    public static func checkPercentSigns(_ pattern: String) throws(GpickError) { try ClipNames.checkPercents(pattern) }
}
