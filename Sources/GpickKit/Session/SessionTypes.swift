import FoundationEssentials
import Glibc
import GstCore

/// The size and rate every output of a session sees.
public struct SessionFormat: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int
    public init(width: Int = 1280, height: Int = 720, fps: Int = 30) {
        self.width = width
        self.height = height
        self.fps = fps
    }
    public var frameDuration: UInt64 { 1_000_000_000 / UInt64(max(fps, 1)) }
    /// Whole frames in `seconds` (at least one): how long recordings and their parts are.
    public func frames(in seconds: Double) -> Int { max(1, Int((seconds * Double(fps)).rounded())) }

    /// Checks the numbers before anything starts.
    public func validate() throws(GpickError) {
        for (name, v) in [("width", width), ("height", height)] {
            guard v > 0 else { throw GpickError(.usage, "\(name) \(v) must be a positive number of pixels") }
            guard v <= 8192 else { throw GpickError(.usage, "\(name) \(v) is above the maximum of 8192") }
            guard v >= 16 else { throw GpickError(.usage, "\(name) \(v) is below the minimum of 16") }
            guard v % 2 == 0 else { throw GpickError(.usage, "\(name) \(v) must be even (H.264 and JPEG 4:2:0 need even sizes)") }
        }
        guard (1...240).contains(fps) else { throw GpickError(.usage, "fps \(fps) must be 1…240") }
    }
}

/// What a session is made of. Like AVFoundation's session configuration: set it, then start.
public struct SessionConfiguration: Sendable {
    /// The back camera (the one a session starts with unless `position` says otherwise).
    public var source: SourceSpec = .auto
    /// The front camera; nil picks one: for a test back camera, a test source with another pattern
    /// and stamp id 2; for a real camera, the next camera found.
    public var front: SourceSpec?
    /// The position the session starts at.
    public var position: CameraPosition = .back
    /// The front camera's picture is mirrored left-right (as phones show selfies).
    public var mirrorFront = false
    public var audio: AudioSpec = .none
    public var format = SessionFormat()
    /// Deliver the camera's own size and rate where gpick chooses its mode (a V4L2, PipeWire or
    /// libcamera camera whose modes are known): with
    /// nothing asked, its largest mode up to 1920x1080 that keeps 30 fps; with `mode`, that mode.
    /// `format` is then what the other sources deliver. Decided as the first camera opens, and
    /// kept through flips and reconnections.
    public var formatFromCamera = false
    /// A V4L2 camera's mode chosen by hand (`--mode`); nil: gpick chooses it from the modes the
    /// camera advertises, for `format` (`ModeChoice`).
    public var mode: ModeRequest?
    /// A V4L2 camera's controls, set as it is opened (`--control exposure-time=200`): checked
    /// against the controls it has first, so one it refuses sets nothing.
    public var controls: [ControlSetting] = []
    /// Controls remembered per V4L2 camera, set as it opens before `controls`; with
    /// `saveControls`, `controls` are remembered for it too (`--save-controls`).
    public var controlMemory: ControlMemory?
    public var saveControls = false
    public var library = PipelineLibrary()
    /// Frames dropped after start before anything is delivered; nil = 0 for test and file sources,
    /// 10 for cameras (exposure and white balance settle).
    public var warmupFrames: Int?
    /// How long a source may take to deliver its first frame.
    public var startTimeout: Double = 15
    /// How long a camera that was live may send nothing before it counts as lost (PipeWire says
    /// nothing when a node goes away; a camera's longest exposure is well under this).
    public var stallTimeout: Double = 2
    /// How long a PipeWire camera opened while the session runs (a flip, a resume, a reopening)
    /// may send no first frame, while it is still there, before it is opened again: a stream
    /// that connected as the session manager suspended or re-routed the node is never linked.
    /// (A V4L2 or libcamera camera has the start timeout for that; the first camera too.)
    public var silentStartTimeout: Double = 5
    /// A pipeline file (with values) used instead of the built-in one: `gpick run` of a source,
    /// audio-source or session file.
    public var sourceFile: PipelineBuilder.Part?
    public var audioFile: PipelineBuilder.Part?
    public var sessionFile: PipelineBuilder.Part?
    /// Frames only: the camera's stage is the whole pipeline and its frames go straight to stills
    /// and bursts (`gpick snap`). No feed, tees or switch, so one pipeline less to build and no
    /// hop between pipelines before the first still; flips, recordings and previews are not
    /// available.
    public var framesOnly = false
    /// How much a frame subscriber that falls behind (a burst slower than the camera) may hold
    /// before delivery waits for it (at most 60 frames): memory stays bounded.
    public var lagMemoryLimit = 64 << 20
    public init() {}
}

/// Something that happened in a session, for event streams and JSON output.
public enum SessionEvent: Sendable {
    case notice(String)
    /// `--source auto` chose this camera (or the test source), for this reason.
    case sourceChosen(CameraChoice)
    /// A GStreamer warning: its message, and with its debug text for --verbose.
    case warning(String, detail: String?)
    case sourceFailed(GpickError)
    /// The camera stopped delivering but is still there: it is opened again (why, in words).
    case reconnecting(SourceSpec, String)
    /// The session switched to this camera (asked at this running time, ns); outputs see the
    /// placeholder until it delivers.
    case switching(CameraPosition, SourceSpec, UInt64?)
    /// The camera at this position delivers frames (after start, a flip or a resume).
    case sourceLive(CameraPosition)
    case suspended
    /// The first blurred placeholder frame went out (output running time in ns).
    case placeholder(UInt64)
    /// The mode a camera was opened in (chosen from the modes it advertises), and why.
    case cameraMode(CameraPosition, SourceSpec, ModeChoice.Chosen)
    /// The camera's frames dropped so far, damaged on their way (an MJPEG frame cut short,
    /// without its end marker…), and the last reason; said at most once a second.
    case framesDropped(CameraPosition, SourceSpec, Int, JPEGFrameCheck.Problem)
    /// The controls set on a camera as it was opened (automatic modes first).
    case cameraControls(CameraPosition, SourceSpec, [ResolvedControl])
    /// Motion started or ended in a zone (a `MotionWatch` is running).
    case motion(MotionEvent)
}

/// An event record's fields: JSON values, typed when the code is compiled.
public typealias EventFields = JSONFields

extension SessionEvent {
    /// The event as every report spells it (`--json` lines, script events): a name and fields.
    public var record: (name: String, fields: EventFields) {
        switch self {
        case .notice(let m): ("notice", ["message": m])
        case .sourceChosen(let c):
            ("source-chosen", ["source": "\(c.source)", "kind": c.kind.rawValue, "name": c.name ?? "", "reason": c.reason])
        case .warning(let m, _): ("warning", ["message": m])
        case .sourceFailed(let err): ("source-failed", ["message": err.message])
        case .reconnecting(let spec, let why): ("reconnecting", ["source": "\(spec)", "reason": why])
        case .switching(let p, let spec, let at):
            ("switching", ["position": p.rawValue, "source": "\(spec)", "time": at.map { Double($0) / 1e9 } ?? -1])
        case .sourceLive(let p): ("source-live", ["position": p.rawValue])
        case .suspended: ("suspended", [:])
        case .placeholder(let t): ("placeholder", ["time": Double(t) / 1e9])
        case .cameraMode(let p, let spec, let c):
            ("camera-mode", ["position": p.rawValue, "source": "\(spec)", "mode": "\(c.mode)", "format": c.mode.format.fourcc,
                             "width": c.mode.width, "height": c.mode.height, "framerate": c.mode.framerate, "reason": c.reason])
        case .framesDropped(let p, let spec, let total, let problem):
            ("frames-dropped", ["position": p.rawValue, "source": "\(spec)", "dropped": total, "reason": problem.rawValue])
        case .cameraControls(let p, let spec, let set):
            ("camera-controls", ["position": p.rawValue, "source": "\(spec)",
                                 "controls": set.map { JSONValue(fields: ["name": $0.asked, "control": $0.control.name, "value": Int($0.value)]) }])
        case .motion(let m):
            ("motion-\(m.kind.rawValue)", m.fields)
        }
    }
}

/// The newest camera frame a session holds (one frame; no copy: it shares the buffer).
public struct RetainedFrame: Sendable {
    public let sample: Sample
    /// Running time of the frame on the session's timeline (ns).
    public let time: UInt64?
    /// The frame stamp, when the camera is the test source.
    public let stamp: FrameStamp?
    init(_ sample: Sample) {
        self.sample = sample
        time = sample.buffer?.pts
        stamp = sample.withVideoFrame { FrameStamp.read(from: $0) } ?? nil
    }
}

/// What the session's camera is doing.
public enum SourceState: Sendable, Equatable {
    case starting, live, suspended
    case failed(String)
}

/// Which camera of a session: like a phone, a session has a back and a front position.
public enum CameraPosition: String, Sendable, CaseIterable {
    case back, front
    public var other: CameraPosition { self == .back ? .front : .back }
}
