import GpickBase
import GstCore

/// The end of a file a muxer writes after its input's end of stream: the pipeline's end of
/// stream, or its first error in the user's terms (a full disk names the folder and what was
/// being written). Live-photo clips, motion clips and timelapses wait for it the same way.
enum MuxerEnd {
    /// nil once the file is complete. `what` names the output ("motion clip", "timelapse");
    /// `file` is the path errors name, `directory` the folder a full disk is reported for.
    static func wait(_ messages: AsyncStream<BusMessage>, what: String, file: String, directory: String) async -> GpickError? {
        for await m in messages {
            if case .endOfStream = m { return nil }
            if case .error(let e) = m {
                return e.isNoSpaceLeft ? GpickError(.output, "no space left on device writing \(directory) (\(what))")
                                       : GpickError(.runtime, "\(what) \(file): \(e.description)", detail: e.diagnostic)
            }
        }
        return GpickError(.runtime, "\(what) \(file): the muxer stopped without finishing")
    }
}
