import FoundationEssentials
import Glibc
import GstCore
import Synchronization

/// An output branch on a running session: a bin whose `video` (and `audio`) queues are fed from
/// the session's tees through request pads. Adding and removing follows the design notes:
/// add, sync state, link; to end, unlink at an idle moment and send EOS into the branch.
/// While attached it holds the session's graph (pipeline and tees): what it needs, and no
/// reference to the session itself.
final class Branch: Sendable {
    let bin: Bin
    let name: String
    let videoEntry: Pad
    let audioEntry: Pad?
    private let attached = Locked<Attachment?>(nil)
    /// Attaching and detaching take turns: a detach between the attach's steps would leave a
    /// tee pad linked to a bin out of the pipeline, or bring a stopped bin to the pipeline's
    /// state. A branch detached first is never attached. (Held across both, so the tee pads are
    /// read from `attached`, which streaming threads may take while a detach waits for them.)
    private let detached = Mutex(false)

    /// Where the branch is linked, while it is.
    private struct Attachment: Sendable {
        let graph: CaptureSession.Graph
        var videoTeePad: Pad?
        var audioTeePad: Pad?
    }

    /// Wraps a bin built from a branch file; `audio` asks for its `audio` entry too.
    init(bin: Bin, name: String, audio: Bool) throws(GpickError) {
        self.bin = bin
        self.name = name
        bin.setName(name)
        do throws(GStreamerError) {
            guard let vq = bin.element(named: "video")?.staticPad("sink") else {
                throw GStreamerError(domain: .core, code: 0, message: "the branch has no element named \"video\"")
            }
            videoEntry = try bin.addGhostPad(named: "video", target: try Self.isolated(vq, in: bin, name: "video-entry"))
            if audio {
                guard let aq = bin.element(named: "audio")?.staticPad("sink") else {
                    throw GStreamerError(domain: .core, code: 0, message: "the branch has no element named \"audio\"")
                }
                audioEntry = try bin.addGhostPad(named: "audio", target: try Self.isolated(aq, in: bin, name: "audio-entry"))
            } else {
                audioEntry = nil
            }
        } catch {
            throw GpickError(.pipeline, "\(name): \(error.message)")
        }
    }

    /// The pad the tee feeds instead of `queue`: an errorignore before it, so that a branch whose
    /// sink fails (a full disk, a server gone) returns no flow error to the tee, which would pass
    /// it up to the camera and stop the whole session (every output, and the stream) before the
    /// branch is cut off. The failure itself still comes as the element's error message, which
    /// the session gives to the output. Without errorignore (gstreamer1.0-plugins-bad), `queue`.
    private static func isolated(_ queue: Pad, in bin: Bin, name: String) throws(GStreamerError) -> Pad {
        guard let guardElement = try? Element.make("errorignore", name: name) else { return queue }
        try? guardElement.set("ignore-error", true)
        try? guardElement.set("ignore-notlinked", true)
        try bin.add(guardElement)
        guard let out = guardElement.staticPad("src"), let entry = guardElement.staticPad("sink") else { return queue }
        try out.link(to: queue)
        return entry
    }

    var videoTeePad: Pad? { attached.withLock { $0?.videoTeePad } }
    var audioTeePad: Pad? { attached.withLock { $0?.audioTeePad } }
    /// The session's pipeline, while attached.
    var pipeline: Pipeline? { attached.withLock { $0?.graph.pipeline } }

    /// Adds the bin to the session's pipeline, brings it to the pipeline's state and links it to
    /// the tees. Probes go on the tee pads before linking, so they see the first buffer. Off the
    /// pool, and never beside `detachBlocking` (see `detached`).
    func attach(to graph: CaptureSession.Graph,
                videoProbe: (@Sendable (ProbeInfo) -> ProbeReturn)?,
                audioProbe: (@Sendable (ProbeInfo) -> ProbeReturn)?) async throws(GpickError) {
        try await OffPool.run { () throws(GpickError) in
            try self.detached.withLock { detached throws(GpickError) in
                // Stopped before it was attached (the session or the recording ended first).
                if detached { throw GpickError(.runtime, "\(self.name) was stopped before it started") }
                try self.attachBlocking(to: graph, videoProbe: videoProbe, audioProbe: audioProbe)
            }
        }
    }

    @available(*, noasync, message: "it waits for the bin's state change: await attach(to:)")
    private func attachBlocking(to graph: CaptureSession.Graph,
                                videoProbe: (@Sendable (ProbeInfo) -> ProbeReturn)?,
                                audioProbe: (@Sendable (ProbeInfo) -> ProbeReturn)?) throws(GpickError) {
        guard let videoTee = graph.videoTee else { throw GpickError(.runtime, "the session is not running") }
        do throws(GStreamerError) {
            try graph.pipeline.add(bin)
            attached.withLock { $0 = Attachment(graph: graph) }
            try bin.syncStateWithParent()
        } catch {
            throw GpickError(.pipeline, "\(name): \(error.message)")
        }
        guard let vpad = videoTee.requestPad("src_%u") else { throw GpickError(.runtime, "cannot branch the video tee") }
        attached.withLock { $0?.videoTeePad = vpad }
        var apad: Pad?
        if audioEntry != nil {
            guard let p = graph.audioTee?.requestPad("src_%u") else { throw GpickError(.runtime, "cannot branch the audio tee") }
            apad = p
            attached.withLock { $0?.audioTeePad = p }
        }
        do throws(GStreamerError) {
            if let videoProbe { vpad.addProbe(.buffer, videoProbe) }
            if let apad, let audioEntry {
                if let audioProbe { apad.addProbe(.buffer, audioProbe) }
                try apad.link(to: audioEntry)
            }
            try vpad.link(to: videoEntry)
        } catch {
            throw GpickError(.pipeline, "\(name): \(error.message)")
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

    /// Cuts the branch off the tees without EOS (it failed, or ended empty: nothing downstream
    /// is worth draining), and returns once every pad is unlinked (or after a second, if the tee
    /// never goes idle). Before the bin is stopped: see `MovieRecording.finalizeOnceCut`.
    func cutInputAndWait() async {
        await withTaskGroup(of: Void.self) { group in
            for pad in [videoTeePad, audioTeePad].compactMap({ $0 }) {
                group.addTask {
                    let done = Signal()
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

    /// Stops the bin and removes it from the session's pipeline, off the cooperative pool. A bin
    /// that has not stopped after `CaptureSession.teardownLimit` is left to finish on its own.
    func detach() async {
        _ = await OffPool.run(within: CaptureSession.teardownLimit) { self.detachBlocking() }
    }

    /// `detach` on a thread that may block (it waits for the bin's streaming threads).
    @available(*, noasync, message: "it waits for streaming threads: await detach()")
    func detachBlocking() {
        detached.withLock { detached in
            detached = true
            guard let a = attached.withLock({ s -> Attachment? in defer { s = nil }; return s }) else {
                _ = try? bin.setState(.null)
                return
            }
            a.graph.pipeline.removeStopped(bin)
            if let pad = a.videoTeePad { a.graph.videoTee?.releaseRequestPad(pad) }
            if let pad = a.audioTeePad { a.graph.audioTee?.releaseRequestPad(pad) }
        }
    }
}
