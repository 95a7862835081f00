import FoundationEssentials
import GpickKit
import Glibc

/// A parsed script statement.
public struct ScriptStatement: Sendable, Equatable {
    public var line: Int
    public var command: ScriptCommand
    /// The text of the line, for error messages and echoing.
    public var text: String
}

public enum ScriptCommand: Sendable, Equatable {
    case source(String)
    /// `preview start [SINK]` / `preview stop`; no sink: the default for this terminal or display.
    case preview(start: Bool, sink: PreviewSink?)
    /// `serve start [NAME]` / `serve stop`: the session as an RTSP stream on 127.0.0.1.
    case serve(start: Bool, name: String?)
    /// `publish start URL` / `publish stop`: the session pushed to an SRT, RTMP or RTSP server.
    case publish(start: Bool, url: String?)
    case snap(String)
    case burst(count: Int, path: String, every: Int)
    case recordStart(String)
    /// `record start FILE split SECONDS [keep D] [keep-size S] [keep-free P%]`: a loop recording,
    /// as `record --split` makes one (parts, parts.json, retention, room on the disk).
    case recordLoop(path: String, partSeconds: Double, retention: PartRetention)
    case recordStop
    case record(duration: Double, path: String)
    /// `timelapse DURATION every INTERVAL FILE`: a frame every `every` for `duration`, as
    /// `gpick timelapse` takes them (played at 30 fps); the next line runs once it is written.
    case timelapse(duration: Double, every: Double, path: String)
    case wait(Double)
    /// `wait motion [in ZONE] [for DURATION] [timeout DURATION]`: until motion starts (in the zone)
    /// and has lasted `lasting`; past `timeout` the line fails.
    case waitMotion(zone: String?, lasting: Double, timeout: Double?)
    /// `zone NAME x1,y1 x2,y2 x3,y3 …`: a part of the frame motion is reported for.
    case zone(name: String, area: MotionPolygon)
    /// `mask x1,y1 x2,y2 x3,y3 …`: a part of the frame motion detection never looks at.
    case mask(MotionPolygon)
    /// `on motion [in ZONE] [cooldown DURATION]` … `end`: the lines between run each time motion
    /// starts (in the zone), one run at a time, and not again until `cooldown` after the last
    /// run ended; `%n` (the run's number) and `%t` (the local time motion started) in their
    /// file names. The script goes on meanwhile (a `wait` keeps it watching).
    case onMotion(zone: String?, cooldown: Double, body: [ScriptStatement])
    /// `clips start NAME [pre D] [post D] [longest D] [in ZONE] [snap] [keep D] [keep-size S] [keep-free P%]`:
    /// one clip per motion, from `pre` before its first moving frame (the pre-roll ring) to `post`
    /// after it stopped, as `gpick watch --record` writes them; `%t`/`%n` in NAME. `clips stop`.
    case clipsStart(name: String, clip: ClipOptions)
    case clipsStop
    /// `end`: closes an `on` block (the parser folds the lines between into it).
    case end
    case set(element: String, property: String, value: String)
    case flip
    case suspend
    case resume
    case live(String)
    /// Capture mode: `live` keeps the pre-roll ring armed, `photo` does not.
    case mode(live: Bool)
    case countdown(Int)
    case expect(path: String, Expectation)
    case echo(String)
}

/// `clips start`'s options after its name.
public struct ClipOptions: Sendable, Equatable {
    public var pre: Double = 3
    public var post: Double = 5
    /// The longest a clip may be (seconds): motion that goes on longer goes on in the next clip.
    public var longest: Double = 600
    public var zone: String?
    public var snap = false
    public var retention = PartRetention()
    public init() {}
}

/// What `expect` checks of an output file.
public enum Expectation: Sendable, Equatable {
    public enum Comparison: String, Sendable { case eq = "==", ge = ">=", le = "<=", gt = ">", lt = "<" }
    case frames(Comparison, Int)
    /// Duration within one frame (or the given tolerance in seconds).
    case duration(Double, tolerance: Double?)
    case size(Int, Int)
    /// Frame stamps: consecutive indices from `first` through `last` (either may be open).
    case stamps(first: Int?, last: Int?)
    case kind(String)
    case exists
}
