import FoundationEssentials
import GstCore

/// An output attached to a running session: a recording, a preview, the live-photo ring. The
/// session knows outputs only through this protocol: it routes the errors of their bins to them
/// and tells them what happens to the camera. Outputs hold what they need of the session (their
/// branch, with the graph while attached) and at most a weak reference to it.
protocol SessionOutput: AnyObject, Sendable {
    /// The output's bin: an error whose source sits inside it is the output's.
    var bin: Bin { get }
    /// One of its elements failed, told on the posting thread: record it, nothing more (an EOS
    /// racing behind must not finish the output as a success).
    func elementFailedSync(_ error: GStreamerError, source: SourceSpec)
    /// The same error, told afterwards from the bus task: act on it.
    func elementFailed(_ error: GStreamerError, source: SourceSpec)
    /// The camera stopped after the frame at output time `last`: it ran out, or failed (`error`).
    func sourceStopped(after last: UInt64?, error: GpickError?)
    /// The session failed.
    func sessionFailed(_ error: GpickError)
    /// The session is stopping: finish first (a recording writes its index).
    func finishBeforeStop() async
}

extension SessionOutput {
    func elementFailedSync(_ error: GStreamerError, source: SourceSpec) {}
    func sourceStopped(after last: UInt64?, error: GpickError?) {}
    func sessionFailed(_ error: GpickError) {}
    func finishBeforeStop() async {}
}

/// The registry of outputs.
extension CaptureSession {
    func register(_ output: any SessionOutput) {
        state.withLock { $0.outputs[ObjectIdentifier(output)] = output }
    }

    func unregister(_ output: any SessionOutput) {
        state.withLock { _ = $0.outputs.removeValue(forKey: ObjectIdentifier(output)) }
    }

    /// Registers `output` and attaches its branch (video only) to the running graph. When the
    /// attach fails the output leaves again and the branch is detached; anything else it holds is
    /// the caller's to undo.
    func attach(_ output: any SessionOutput, branch: Branch, to graph: Graph) async throws(GpickError) {
        register(output)
        do throws(GpickError) {
            try await branch.attach(to: graph, videoProbe: nil, audioProbe: nil)
        } catch {
            unregister(output)
            await branch.detach()
            throw error
        }
    }

    /// A unique name for an output's bin ("recording-3"): names show in --verbose paths.
    func allocateBranchName(_ prefix: String) -> String {
        state.withLock { s in
            defer { s.nextBranch += 1 }
            return "\(prefix)-\(s.nextBranch)"
        }
    }

    /// The running graph an output attaches to.
    func graphForOutput() throws(GpickError) -> Graph {
        try requireFullSession("an output branch")
        guard let graph, graph.videoTee != nil else { throw GpickError(.runtime, "the session is not running") }
        return graph
    }
}
