import GpickCLI
import GpickKit

extension Events {
    /// A session's event, as the library spells it; notices and warnings also reach stderr
    /// without --json.
    func sessionEvent(_ e: SessionEvent) {
        switch e {
        case .notice(let m): notice(m)
        case .warning(let m, let detail): warning(m, detail: detail)
        case .sourceChosen(let c) where !json:
            // Which camera `auto` chose, and why, with --verbose.
            if Console.verbose { Console.notice("using \(c.source): \(c.reason)") }
        default:
            let r = e.record
            emit(r.name, r.fields)
        }
    }
}
