import GpickBase

/// A recording without a set length (a script's `record start`, `gpick run`'s recordings): one
/// file until it is stopped. MP4's robust muxing indexes its file in header space reserved for
/// a set time (the `reserve` parameter, an hour unless set), and a file whose space is full
/// could only stop; this one goes on in NAME-002.mp4, NAME-003.mp4, … instead, each a whole
/// file, every frame in one of them (SplitRecording's continuing parts). Matroska and WebM have
/// no such bound: one file.
public enum OpenRecording: Sendable {
    case one(MovieRecording)
    case files(SplitRecording)

    public static func start(in session: CaptureSession, to output: OutputPath,
                             settings: RecordingSettings) async throws(GpickError) -> OpenRecording {
        guard settings.duration == nil, let span = try MovieRecording.fileSpan(of: settings, in: session) else {
            return .one(try await MovieRecording.start(in: session, to: output, settings: settings))
        }
        // Each file as long as the span, its header space sized to that with room to spare.
        var files = settings
        files.values["reserve"] = nil
        return .files(try await SplitRecording.start(in: session, to: output, settings: files, partSeconds: span, names: .continuing))
    }

    /// The first file's name: the one asked for.
    public var output: OutputPath {
        switch self {
        case .one(let r): r.output
        case .files(let s): s.output
        }
    }

    /// Frames and bytes in all its files so far.
    public var progress: (frames: Int, bytes: Int64) {
        switch self {
        case .one(let r): r.progress
        case .files(let s): s.progress
        }
    }

    /// Ends it now: the file being written keeps every frame up to this moment.
    public func requestStop() {
        switch self {
        case .one(let r): r.requestStop()
        case .files(let s): s.requestStop()
        }
    }

    /// Its files in order: one, unless it went on past a file's span.
    public func finished() async throws(GpickError) -> [RecordingResult] {
        switch self {
        case .one(let r): [try await r.finished()]
        case .files(let s): try await s.finished().parts
        }
    }
}
