import FoundationEssentials
import GstCore

/// Which frames and audio samples go into a recording, decided on streaming threads (probes:
/// no state changes, and blocking only where the audio waits in its own queue).
extension MovieRecording {
    /// Where audio leaves the branch's `audio` queue.
    var audioQueueOut: Pad? { branch.audioEntry == nil ? nil : branch.bin.element(named: "audio")?.staticPad("src") }

    /// Frames are counted where they enter the branch, inside the push: a frame the tee probe
    /// passed can still miss the branch if a stop from another thread unlinks it first. Audio is
    /// trimmed to the video's span where it leaves the branch's queue: live audio can reach the
    /// tee before the first frame fixes the file's zero (always by up to a buffer, on a loaded
    /// machine by several), and waits there until it does.
    func installProbes() {
        branch.videoEntry.addProbe(.buffer) { [weak self] info in
            guard let self, let pts = info.buffer?.pts else { return .ok }
            self.state.withLock { s in
                s.frames += 1
                s.lastPTS = pts
            }
            return .ok
        }
        audioQueueOut?.addProbe(.buffer) { [weak self] info in self?.audioProbe(info) ?? .ok }
    }

    func videoProbe(_ info: ProbeInfo) -> ProbeReturn {
        guard let pts = info.buffer?.pts else { return .ok }
        enum Verdict { case pass, drop, end }
        var first = false
        let verdict = state.withLock { s -> Verdict in
            if s.triggered || s.held { return .drop }
            if s.t0 == nil, let startAt = s.startAt, pts < startAt { return .drop }
            // The probe is on the tee's pad before that pad is linked to the branch: a frame
            // pushed in between never reaches the file, and must not be taken as its first
            // (the file would start with a gap, its start a frame it never had).
            if s.t0 == nil, Pad(info.pad, transfer: .none).peer == nil { return .drop }
            if s.t0 == nil {
                first = true
                // The first frame is the file's 0, whenever the branch was added (even before
                // play, the first frame's running time is not 0: it is late by the pipeline's
                // start-up). Audio shares the offset, applied where it leaves its queue, and
                // waits until now.
                s.t0 = pts
                branch.videoTeePad?.setOffset(-Int64(pts))
                audioQueueOut?.setOffset(-Int64(pts))
            }
            if let max = s.maxFrames, s.frames >= max {
                DebugLog.log(.debug, nil, "\(branchName) (\(output.name)): ends after \(max) frames, all its duration or its header space holds")
                s.endTime = pts
                return .end
            }
            if let stopAt = s.stopAt, pts >= stopAt { s.endTime = pts; return .end }
            return .pass
        }
        if first {
            DebugLog.log(.debug, nil, "\(branchName) (\(output.name)): first frame at \(pts) ns")
            started.fire()
        }
        switch verdict {
        case .pass: return .ok
        case .drop: return .drop
        case .end:
            DebugLog.log(.debug, nil, "\(branchName) (\(output.name)): ends before the frame at \(pts) ns, after \(framesTaken) frames")
            trigger()
            return .drop
        }
    }

    /// Audio entering the branch (tee thread): a part's audio before its start never queues,
    /// and the audio input ends once audio has reached the end the video fixed.
    func audioEntryProbe(_ info: ProbeInfo) -> ProbeReturn {
        guard let buf = info.buffer, let pts = buf.pts else { return .ok }
        let end = pts + (buf.duration ?? 0)
        let verdict = state.withLock { s -> (drop: Bool, stop: Bool) in
            if s.t0 == nil, let startAt = s.startAt, end <= startAt { return (true, false) }
            s.audioEnd = max(s.audioEnd ?? 0, end)
            return (false, s.awaitingAudio && s.endTime.map { end >= $0 } == true)
        }
        if verdict.drop { return .drop }
        if verdict.stop { endAudioIfAwaited() }
        return .ok
    }

    /// Audio follows the video's span exactly (queue thread): buffers outside [t0, end) are
    /// dropped and the ones straddling either edge are cut at the sample (S16LE stereo, fixed by
    /// the session caps). Until the first frame fixes t0, audio waits here, in its own queue; a
    /// track that starts after the first frame begins with silence from it.
    func audioProbe(_ info: ProbeInfo) -> ProbeReturn {
        guard let buf = info.buffer, var pts = buf.pts else { return .ok }
        let (t0, triggered, end, first) = state.wait(until: { $0.t0 != nil || $0.triggered }) { s in
            let start = s.t0 ?? 0
            // Until the video fixes the end, a requested stop or the frame budget bounds the
            // audio: live sources push a buffer at its end time, so audio around the cut passes first.
            let planned = s.maxFrames.map { start + UInt64($0) * frameDuration }
            defer { if s.t0 != nil { s.audioStarted = true } }
            return (s.t0, s.triggered, s.endTime ?? s.stopAt ?? planned, !s.audioStarted)
        }
        guard let t0 else { return .drop }
        var dur = buf.duration ?? 0
        if pts + dur <= t0 { return .drop }
        if let end, pts >= end { return .drop }
        if triggered && end == nil { return .drop }
        let bytesPerFrame = 4, rate: UInt64 = 48000
        // A microphone (or the test tone) that starts after the first frame: silence from the
        // first frame on, so both tracks span the same time, in sync.
        if first, pts > t0, let w = info.writableBuffer() {
            w.prependZeros(Int((pts - t0) * rate / 1_000_000_000) * bytesPerFrame)
            dur += pts - t0
            pts = t0
            w.setPTS(pts)
            w.setDuration(dur)
        }
        let startCut = pts < t0 ? t0 - pts : 0
        let endCut = end.map { pts + dur > $0 ? pts + dur - $0 : 0 } ?? 0
        guard (startCut > 0 || endCut > 0), dur > 0, let w = info.writableBuffer() else { return .ok }
        let frames = w.size / bytesPerFrame
        let skip = Int((Double(startCut) / Double(dur) * Double(frames)).rounded())
        let keep = max(0, frames - skip - Int((Double(endCut) / Double(dur) * Double(frames)).rounded()))
        if keep == 0 { return .drop }
        w.resize(offset: skip * bytesPerFrame, size: keep * bytesPerFrame)
        w.setPTS(pts + startCut)
        w.setDuration(dur - startCut - endCut)
        return .ok
    }
}
