import Dispatch
import FoundationEssentials
import Glibc
import GstCore

/// An output branch on a running session: a bin whose `video` (and `audio`) queues are fed from
/// the session's tees through request pads. Adding and removing follows the design notes:
/// add, sync state, link; to end, unlink at an idle moment and send EOS into the branch.
///
/// `@unchecked Sendable` invariant: pads are set once in `attach` (before any streaming callback
/// can see them) and cleared only in `detach`, which runs on the session's control queue.
final class Branch: @unchecked Sendable {
    let bin: Bin
    let name: String
    let videoEntry: Pad
    let audioEntry: Pad?
    private(set) var videoTeePad: Pad?
    private(set) var audioTeePad: Pad?

    /// Wraps a bin built from a branch file; `audio` asks for its `audio` entry too.
    init(bin: Bin, name: String, audio: Bool) throws(GpickError) {
        self.bin = bin
        self.name = name
        bin.setName(name)
        do {
            guard let vq = bin.element(named: "video")?.staticPad("sink") else {
                throw GpickError(.pipeline, "\(name): the branch has no element named \"video\"")
            }
            videoEntry = try bin.addGhostPad(named: "video", target: vq)
            if audio {
                guard let aq = bin.element(named: "audio")?.staticPad("sink") else {
                    throw GpickError(.pipeline, "\(name): the branch has no element named \"audio\"")
                }
                audioEntry = try bin.addGhostPad(named: "audio", target: aq)
            } else {
                audioEntry = nil
            }
        } catch let e as GpickError {
            throw e
        } catch {
            throw GpickError(.pipeline, "\(name): \(error)")
        }
    }

    /// Adds the bin to the pipeline, brings it to the pipeline's state and links it to the tees.
    /// Probes go on the tee pads before linking, so they see the first buffer.
    func attach(to session: CaptureSession,
                videoProbe: (@Sendable (ProbeInfo) -> ProbeReturn)?,
                audioProbe: (@Sendable (ProbeInfo) -> ProbeReturn)?) throws(GpickError) {
        try session.requireFullSession("an output branch")
        guard let pipeline = session.pipeline, let videoTee = session.videoTee else {
            throw GpickError(.runtime, "the session is not running")
        }
        do {
            try pipeline.add(bin)
            try bin.syncStateWithParent()
            guard let vpad = videoTee.requestPad("src_%u") else { throw GpickError(.runtime, "cannot branch the video tee") }
            videoTeePad = vpad
            if let videoProbe { vpad.addProbe(.buffer, videoProbe) }
            if let audioEntry, let audioTee = session.audioTee {
                guard let apad = audioTee.requestPad("src_%u") else { throw GpickError(.runtime, "cannot branch the audio tee") }
                audioTeePad = apad
                if let audioProbe { apad.addProbe(.buffer, audioProbe) }
                try apad.link(to: audioEntry)
            }
            try vpad.link(to: videoEntry)
        } catch let e as GpickError {
            throw e
        } catch {
            throw GpickError(.pipeline, "\(name): \(error)")
        }
    }

    /// Ends the branch's video input: at an idle moment of the tee pad, unlink it and send EOS
    /// into the branch. Once audio ends too, the branch drains (encoders flush, muxers write
    /// their index).
    func endVideoInput() { end(videoTeePad, videoEntry) }

    /// Ends the branch's audio input the same way (audio may reach its end after the video).
    func endAudioInput() { end(audioTeePad, audioEntry) }

    private func end(_ pad: Pad?, _ entry: Pad?) {
        guard let pad, let entry else { return }
        pad.addProbe(.idle) { _ in
            pad.unlink(entry)
            entry.sendEvent(.endOfStream())
            return .remove
        }
    }

    /// Cuts the branch off the tees without EOS (it failed; nothing downstream is worth draining).
    func cutInput() {
        for pad in [videoTeePad, audioTeePad].compactMap({ $0 }) {
            pad.addProbe(.idle) { info in
                let p = Pad(info.pad, transfer: .none)
                if let peer = p.peer { p.unlink(peer) }
                return .remove
            }
        }
    }

    /// Cuts the branch off like `cutInput` and returns once every pad is unlinked (or after a
    /// second, if the tee never goes idle).
    func cutInputAndWait() async {
        let pads = [videoTeePad, audioTeePad].compactMap { $0 }
        await withTaskGroup(of: Void.self) { group in
            for pad in pads {
                group.addTask {
                    let done = OneShot()
                    pad.addProbe(.idle) { info in
                        let p = Pad(info.pad, transfer: .none)
                        if let peer = p.peer { p.unlink(peer) }
                        done.fire()
                        return .remove
                    }
                    await done.wait(timeout: 1)
                }
            }
        }
    }

    /// Stops the bin and removes it (control queue or start-up only, never a streaming thread).
    func detach(from session: CaptureSession) {
        _ = try? bin.setState(.null)
        session.pipeline?.remove(bin)
        if let pad = videoTeePad { session.videoTee?.releaseRequestPad(pad) }
        if let pad = audioTeePad { session.audioTee?.releaseRequestPad(pad) }
        videoTeePad = nil
        audioTeePad = nil
    }
}

/// A one-time signal from any thread to one async waiter.
///
/// `@unchecked Sendable` invariant: `fired` and `waiter` are guarded by `lock`.
final class OneShot: @unchecked Sendable {
    private let lock = Lock()
    private var fired = false
    private var waiter: CheckedContinuation<Void, Never>?

    func fire() {
        let w = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard !fired else { return nil }
            fired = true
            defer { waiter = nil }
            return waiter
        }
        w?.resume()
    }

    /// Waits for `fire()`, or `timeout` seconds.
    func wait(timeout: Double) async {
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in fire() }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = lock.withLock { () -> Bool in
                if fired { return true }
                waiter = c
                return false
            }
            if now { c.resume() }
        }
    }
}
