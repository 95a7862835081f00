import GpickBase
import GpickKit

/// `record start FILE split SECONDS [keep D] [keep-size S] [keep-free P%]` / `record stop`: a
/// loop recording, as `record --split` with its --keep options runs one (its parts listed in
/// parts.json, the oldest deleted by the rules, room kept on the disk), while the script goes on.
/// Each part is a `file-written` event as it is complete; deletions are `part-deleted`.
extension ScriptRunner {
    func startLooping(_ target: OutputPath, session: CaptureSession, partSeconds: Double, retention: PartRetention, line: Int) async throws {
        let emit = self.emit
        let loop = try await LoopRecording.start(in: session, to: target, settings: RecordingSettings(container: try Container(path: target)),
                                                 partSeconds: partSeconds, retention: retention) { event in
            switch event {
            case .partWritten(let r, let started):
                emit("file-written", ["path": r.path, "bytes": r.bytes, "frames": r.frames, "duration": r.duration,
                                      "started": RecordedPart.timeText(started), "line": line])
            case .partDeleted(let path):
                emit("part-deleted", ["path": path, "line": line])
            case .diskFull(let available):
                emit("disk-full", ["path": target.directory, "available": Int(available), "line": line])
            }
        }
        looping = (loop, line)
        emit("record-started", ["path": target.path, "line": line, "split": partSeconds])
    }

    /// Ends the loop recording with the part being written (`line` nil: the script ended with it
    /// still running; a failure is then an error event, not the run's).
    func stopLooping(line: Int?) async throws {
        guard let (loop, started) = looping else { return }
        looping = nil
        loop.requestStop()
        do {
            let result = try await loop.finished()
            emit("record-stopped", ["path": loop.output.path, "parts": result.parts.count, "frames": result.frames, "line": line ?? started])
        } catch {
            guard line == nil else { throw error }
            emit("error", ["line": started, "message": "line \(started): \(error.message)"])
        }
    }
}
