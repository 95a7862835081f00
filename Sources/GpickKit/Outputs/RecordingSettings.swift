import FoundationEssentials
import Glibc
import GstCore

/// Movie containers gpick records, each backed by a pipeline file `record-<container>`.
public enum Container: String, Sendable, CaseIterable {
    case mp4, mkv, webm

    public init(path: OutputPath) throws(GpickError) {
        guard let c = Container(rawValue: path.pathExtension) else {
            throw GpickError(.usage, "unknown movie extension \".\(path.pathExtension)\" in \(path.name) (use .mp4, .mkv or .webm)")
        }
        self = c
    }

    public var pipelineName: String { "record-\(rawValue)" }
}

public struct RecordingSettings: Sendable {
    public var container: Container
    /// Stop after exactly this many seconds of frames; nil records until `requestStop()`.
    public var duration: Double?
    /// Target video bitrate in kbit/s (constant quality when nil).
    public var bitrate: Int?
    /// Extra pipeline-file parameters (`--set name=value`).
    public var values: [String: String] = [:]
    /// A branch file to use instead of `record-<container>` (`gpick run`).
    public var pipelineFile: PipelineFile?
    /// Output-time bounds of one part of a split recording: its first frame is the first at or
    /// after `startAt`, its last the last before `stopAt`. Parts meet without a gap or overlap.
    var startAt: UInt64?
    var stopAt: UInt64?
    /// The part takes no frame until its split recording hands over to it (`begin(at:)`);
    /// `startAt` is then where its audio may start.
    var heldUntilHandoff = false
    /// A split recording's part length, in seconds: what a part's header space must hold.
    var partSeconds: Double?

    /// The header space (MP4's reserved index, in seconds of recording) each file needs: the
    /// duration +10 % and at least 5 s; a split recording's part +10 % and at least 30 s, since
    /// a part keeps the frames until the next one begins, which on a loaded machine can be
    /// seconds after its boundary, and a part whose header space is full ends there whether or
    /// not the next is ready (30 s of index is about 15 KB at 30 fps). Nil when open-ended.
    var headerSeconds: Double? {
        if let d = duration { return d + max(5, d / 10) }
        return partSeconds.map { $0 + max(30, $0 / 10) }
    }
    public init(container: Container, duration: Double? = nil, bitrate: Int? = nil) {
        self.container = container
        self.duration = duration
        self.bitrate = bitrate
    }
}

public struct RecordingResult: Sendable, Codable {
    public var path: String
    public var frames: Int
    public var duration: Double
    public var bytes: Int64
    /// Set when the source failed and the recording was finalised with what it had.
    public var sourceError: String?
    /// A split recording's part: where its first frame is in the whole recording, in seconds.
    public var start: Double?
}

/// A recording branch on a running session: tee → queue → encoder → muxer → our own fd.

extension RecordingSettings {
    /// The typed parameter values for `file`: bitrate, header reserve sized to the duration,
    /// the key-frame interval, then the `--set` values.
    func parameterValues(for file: PipelineFile, fps: Int) throws(GpickError) -> [String: Parameter.Value] {
        var values: [String: Parameter.Value] = [:]
        func set(_ name: String, _ text: String) throws(GpickError) {
            guard let p = file.parameter(name) else {
                let hint = Suggest.closest(to: name, in: file.parameters.map(\.name)).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw GpickError(.usage, "\(file.name) has no parameter \"\(name)\"\(hint)")
            }
            values[name] = try p.parse(text)
        }
        if let b = bitrate {
            if file.parameter("bitrate-bps") != nil {
                try set("bitrate-bps", String(b * 1000))
            } else {
                try set("bitrate", String(b))
                if file.parameter("rate-control") != nil { try set("rate-control", "cbr") }
            }
        }
        if let needed = headerSeconds, file.parameter("reserve") != nil {
            // Header space sized to the recording instead of the 1 h default.
            try set("reserve", "\(needed)s")
        }
        if file.parameter("key-interval") != nil, self.values["key-interval"] == nil {
            try set("key-interval", String(fps * 2))
        }
        for (k, v) in self.values.sorted(by: { $0.key < $1.key }) { try set(k, v) }
        // Less header space than the recording needs fills before its end: mp4mux then fails the
        // whole recording ("not enough free reserved header space"), or a part ends before its
        // boundary and the recording with it. Refused here, before anything runs.
        if self.values["reserve"] != nil, let needed = headerSeconds, case .duration(let r)? = values["reserve"], r < needed {
            throw GpickError(.usage, cFormat("reserve %g s is less than this recording needs (%g s)", r, needed)
                             + ": \(file.name)'s header space would fill before the end; leave reserve out, it is sized to the recording")
        }
        return values
    }
}
