import GpickCLI
import GpickKit

extension Events {
    /// A session's event, as the library spells it; notices, warnings and reconnects also reach
    /// stderr without --json.
    func sessionEvent(_ e: SessionEvent) {
        switch e {
        case .notice(let m): notice(m)
        case .warning(let m, let detail): warning(m, detail: detail)
        case .sourceChosen(let c) where !json:
            // Which camera `auto` chose, and why, with --verbose.
            if Console.verbose { Console.notice("using \(c.source): \(c.reason)") }
        case .cameraMode(_, let spec, let c) where !json:
            // The camera's mode, and why where it matters, with --verbose.
            if Console.verbose { Console.notice("\(spec) runs at \(c.mode)\(c.reason.isEmpty ? "" : " (\(c.reason))")") }
        case .framesDropped(_, let spec, let total, let problem) where !json:
            // Damaged frames a camera sent, with --verbose (the camera goes on without them).
            if Console.verbose { Console.notice("\(spec): \(total) damaged frame\(total == 1 ? "" : "s") dropped (the last \(problem.rawValue))") }
        case .cameraControls(_, let spec, let set) where !json:
            // What was set on the camera, with --verbose.
            if Console.verbose { Console.notice("\(spec): set " + set.map { "\($0.asked)=\($0.value) (\($0.control.name))" }.joined(separator: ", ")) }
        case .reconnecting(_, let why) where !json:
            // A recording goes on with a gap: the user hears of it, as of any notice.
            Console.notice("\(why); opening it again")
        default:
            let r = e.record
            emit(r.name, r.fields)
        }
    }
}

extension JSONFields {
    /// The camera's mode added, when gpick chose it (a V4L2 camera): `started` events name it.
    func mode(of session: CaptureSession) -> JSONFields {
        guard let m = session.cameraMode else { return self }
        return merging(["mode": "\(m)"]) { a, _ in a }
    }
}
