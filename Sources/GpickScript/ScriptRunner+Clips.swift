import FoundationEssentials
import Glibc
import GpickBase
import GpickKit

/// `clips start NAME [pre D] [post D] [longest D] [in ZONE] [snap] [keep …]` / `clips stop`: one clip per
/// motion, from the pre-roll ring, as `gpick watch --record` writes them, while the script goes
/// on (serving, publishing, `on motion` blocks). Events as `gpick watch`'s: `clip-started`,
/// `file-written` (each clip, and its still), `clip-deleted`.
extension ScriptRunner {
    /// The clips under way: for which zone, from which line, how many written.
    struct Clipping: Sendable {
        let clips: MotionClips
        let zone: String?
        let line: Int
        let written: Tally
    }

    /// Clips written so far, counted where they are told.
    final class Tally: Sendable {
        let count = Locked(0)
    }

    func startClips(_ name: String, _ o: ClipOptions, session: CaptureSession, target: OutputPath, line: Int) async throws {
        if motion.clipping != nil { throw GpickError(.usage, "clips are already being written (clips stop first)") }
        var settings = MotionClips.Settings()
        (settings.pre, settings.post, settings.longest, settings.name, settings.snap, settings.retention) = (o.pre, o.post, o.longest, target.name, o.snap, o.retention)
        let emit = self.emit
        let written = Tally()
        let clips = try await MotionClips.start(in: session, directory: target.directory, settings: settings) { [weak self] e in
            switch e {
            case .started(let path, let number, let from, let continues):
                var fields: EventFields = ["path": path, "number": number, "from": (from * 1000).rounded() / 1000, "line": line]
                if let continues { fields["continues"] = continues }
                emit("clip-started", fields)
            case .written(let clip):
                var fields = clip.fields
                fields["line"] = line
                emit("file-written", fields)
                written.count.withLock { $0 += 1 }
            case .still(let path, let bytes, let number, let first):
                emit("file-written", ["path": path, "bytes": bytes, "number": number, "still": true, "motion-start": first, "line": line])
            case .deleted(let path):
                emit("clip-deleted", ["path": path, "line": line])
            case .failed(let path, let error):
                // The clip is lost, the script goes on (the next motion makes the next clip);
                // the run's status says one failed.
                emit("error", ["line": line, "path": path, "message": "line \(line): \(error.message)", "reason": error])
                Task { await self?.countFailure(error.kind) }
            }
        }
        motion.clipping = Clipping(clips: clips, zone: o.zone, line: line, written: written)
        do {
            try await watchForMotion()
            if let watch = motion.watch { clips.follow(watch) }
        } catch {
            motion.clipping = nil
            await clips.stop()
            throw error
        }
        emit("clips-started", ["path": target.path, "pre": o.pre, "post": o.post, "zone": o.zone ?? "any", "line": line])
    }

    /// Ends the clip under way where the frames are now and waits until it is written (`line`
    /// nil: the script ended with clips still being written).
    func stopClips(line: Int?) async throws {
        guard let c = motion.clipping else {
            if line != nil { throw GpickError(.usage, "no clips are being written (clips start NAME first)") }
            return
        }
        motion.clipping = nil
        await c.clips.stop()
        emit("clips-stopped", ["clips": c.written.count.withLock { $0 }, "line": line ?? c.line])
    }
}
