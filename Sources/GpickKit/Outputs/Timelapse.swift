import FoundationEssentials
import Glibc
import GpickBase
import GstCore

/// A timelapse of a running session (pipeline file `timelapse`): a frame every `every` seconds,
/// encoded as it is taken and timed at `fps`, so 8 hours at one frame in 10 s play in 96 s at 30
/// fps. One frame is held at a time, so memory stays flat however long it runs, and the file's
/// index is rewritten after every frame, so it plays at every moment (Ctrl-C, a kill, a power
/// cut) with every frame but the newest: MP4 writes a frame once the next one's time is known.
/// Frames are taken on the monotonic clock: a late frame does not shift the next ones.
public final class Timelapse: Sendable {
    public struct Settings: Sendable {
        /// Seconds between two frames taken.
        public var every: Double = 10
        /// Seconds to run; nil: until stopped.
        public var duration: Double?
        /// Frames a second when it plays.
        public var fps = 30
        public init() {}

        /// Frames a run of `duration` takes: one at its start, then one every `every`.
        public var frames: Int? { duration.map { Int(($0 / every).rounded(.down)) } }
    }

    /// A frame is taken and handed to the encoder: its number (from 1) and when it was taken
    /// (stream time, s). It enters the file when the next one is taken, or at the end.
    public struct Frame: Sendable {
        public var number: Int
        public var time: Double
    }

    public struct Result: Sendable {
        public var path: String
        public var frames: Int
        /// Seconds it plays.
        public var duration: Double
    }

    private let session: CaptureSession
    private let target: OutputPath
    private let settings: Settings
    private let pipeline: Pipeline
    private let input: AppSrc
    private let fd: Int32
    private let state = Locked(State())
    private let done: Locked<Task<Result, any Error>?> = Locked(nil)

    private struct State {
        var stopRequested = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private init(session: CaptureSession, target: OutputPath, settings: Settings, pipeline: Pipeline, input: AppSrc, fd: Int32) {
        self.session = session
        self.target = target
        self.settings = settings
        self.pipeline = pipeline
        self.input = input
        self.fd = fd
    }

    /// Starts taking frames from `session` into `target` (written in place: it plays as it grows).
    public static func start(in session: CaptureSession, to target: OutputPath, settings: Settings,
                             onFrame: @escaping @Sendable (Frame) -> Void = { _ in }) async throws(GpickError) -> Timelapse {
        guard settings.every > 0, settings.every.isFinite else { throw GpickError(.usage, "a timelapse's interval must be more than 0 s") }
        guard (1...240).contains(settings.fps) else { throw GpickError(.usage, "a timelapse plays at 1…240 frames a second") }
        let file = try session.configuration.library.load("timelapse")
        let fd = open(target.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw errno == ENOSPC ? GpickError(.output, "no space left on device writing \(target.directory) (timelapse)")
                                  : GpickError(.output, "cannot write \(target.path): \(String(cString: strerror(errno)))")
        }
        let frame = 1 / Double(settings.fps)
        do throws(GpickError) {
            let bin = try await PipelineBuilder.build(file, audio: false, values: ["update": .duration(frame)],
                                                      outputs: ["output": .int(Int64(fd))], asPipeline: true)
            guard let pipeline = bin as? Pipeline else { throw GpickError(.runtime, "\(file.path) did not build a pipeline") }
            let input: AppSrc
            do throws(GStreamerError) {
                input = try AppSrc(try pipeline.requireElement(named: file.tap("input")?.element ?? "vin"))
            } catch {
                throw GpickError(.pipeline, "\(file.path): \(error.message)")
            }
            let t = Timelapse(session: session, target: target, settings: settings, pipeline: pipeline, input: input, fd: fd)
            t.done.withLock { $0 = Task { try await t.run(onFrame) } }
            return t
        } catch {
            close(fd)
            unlink(target.path)
            throw error
        }
    }

    /// Ends it after the frame being taken, if any.
    public func requestStop() {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.stopRequested = true
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }

    /// Waits until it has ended (its time is up, or `requestStop`) and the file is complete.
    public func finished() async throws(GpickError) -> Result {
        guard let task = done.withLock({ $0 }) else { throw GpickError(.runtime, "the timelapse did not start") }
        do { return try await task.value } catch let e as GpickError { throw e } catch {
            throw GpickError(.runtime, "timelapse \(target.path): \(error)")
        }
    }

    private func run(_ onFrame: @Sendable (Frame) -> Void) async throws -> Result {
        let messages = pipeline.bus.messages()
        do throws(GStreamerError) { try await pipeline.setState(.playing) } catch {
            close(fd)
            throw GpickError(.runtime, "timelapse \(target.path): \(error.message)", detail: error.diagnostic)
        }
        let frameTime = UInt64(1e9 / Double(settings.fps))
        let start = ContinuousClock.now
        var taken = 0
        var failure: GpickError?
        while settings.frames.map({ taken < $0 }) ?? true, !state.withLock({ $0.stopRequested }) {
            // The next frame's moment, on the monotonic clock from the first.
            let due = start + .seconds(settings.every * Double(taken))
            if ContinuousClock.now < due { await sleep(until: due) }
            if state.withLock({ $0.stopRequested }) { break }
            var got: Sample?
            do {
                for try await frame in session.nextFrames(1) { got = frame }
            } catch {
                failure = session.failureReason ?? GpickError(.runtime, "timelapse: \(error)")
                break
            }
            guard let frame = got, let buffer = frame.retimedBuffer(pts: UInt64(taken) * frameTime, duration: frameTime) else {
                failure = session.failureReason ?? GpickError(.runtime, "timelapse: the session sent no frame")
                break
            }
            if taken == 0 {
                // The session's frames as they are, at the playback rate.
                guard let caps = frame.caps, let format = caps.string("format"), let w = caps.int("width"), let h = caps.int("height"),
                      let playback = try? Caps("video/x-raw,format=\(format),width=\(w),height=\(h),framerate=\(settings.fps)/1,pixel-aspect-ratio=1/1") else {
                    failure = GpickError(.runtime, "timelapse: the session's frames are not raw video")
                    break
                }
                input.setCaps(playback)
            }
            do throws(GStreamerError) { try input.push(buffer) } catch {
                failure = GpickError(.runtime, "timelapse \(target.path): \(error.message)", detail: error.diagnostic)
                break
            }
            taken += 1
            onFrame(Frame(number: taken, time: Double(frame.buffer?.pts ?? 0) / 1e9))
        }
        input.endOfStream()
        if failure == nil { failure = await MuxerEnd.wait(messages, what: "timelapse", file: target.path, directory: target.directory) }
        _ = try? await pipeline.setState(.null)
        fsync(fd)
        close(fd)
        if let failure { throw failure }
        return Result(path: target.path, frames: taken, duration: Double(taken) / Double(settings.fps))
    }

    /// Sleeps until `due` or a stop request, whichever comes first.
    private func sleep(until due: ContinuousClock.Instant) async {
        let timer = Task { [weak self] in
            try? await Task.sleep(until: due, clock: .continuous)
            self?.wake()
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.stopRequested || ContinuousClock.now >= due { return true }
                s.waiter = c
                return false
            }
            if now { c.resume() }
        }
        timer.cancel()
    }

    private func wake() {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }
}
