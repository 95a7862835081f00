import FoundationEssentials
import GpickBase
import GpickKit

/// `zone NAME POINTS…`, `mask POINTS…` and `wait motion [in ZONE] [for D] [timeout D]`: motion
/// detection on the session's frames (`MotionWatch`), started by the first `wait motion` and
/// started again when a zone or a mask changes. Its starts and ends are events of their own
/// (`motion-started`, `motion-ended`), as in `gpick watch`.
extension ScriptRunner {
    /// The watch, its settings, and what it has seen (in order).
    final class MotionState: @unchecked Sendable {
        // Invariant: touched only on the runner's actor, but for `seen`, under its lock.
        var settings = MotionSettings()
        var watch: MotionWatch?
        let seen = Locked<[MotionEvent]>([])
    }

    func addZone(_ name: String, _ area: MotionPolygon) async {
        motion.settings.zones.removeAll { $0.name == name }
        motion.settings.zones.append(MotionZone(name: name, area: area))
        await stopMotionWatch()
    }

    func addMask(_ area: MotionPolygon) async {
        motion.settings.masks.append(area)
        await stopMotionWatch()
    }

    func stopMotionWatch() async {
        guard let w = motion.watch else { return }
        motion.watch = nil
        await w.stop()
    }

    /// Waits for motion to start (in `zone`, or any) after this line began, and to last
    /// `lasting` seconds of stream time; fails past `timeout` seconds.
    func waitForMotion(zone: String?, lasting: Double, timeout: Double?, line: Int) async throws {
        let session = try await runningSession()
        if motion.watch == nil {
            // Its events also come as the session's (motion-started, motion-ended).
            let state = motion
            motion.watch = try MotionWatch.start(in: session, settings: motion.settings) { e in
                state.seen.withLock { $0.append(e) }
            }
        }
        let from = motion.seen.withLock { $0.count }
        let started = ContinuousClock.now
        while true {
            let events = motion.seen.withLock { Array($0.dropFirst(from)) }
            let mine = events.filter { zone == nil || $0.zone == zone }
            if let start = mine.last(where: { $0.kind == .started }) {
                let ended = mine.contains { $0.kind == .ended && $0.time >= start.time }
                let now = motion.watch?.lastFrameTime ?? start.time
                if !ended, now - start.time >= lasting {
                    emit("motion", ["zone": start.zone, "time": start.time, "line": line])
                    return
                }
            }
            if let timeout, ContinuousClock.now - started > .seconds(timeout) {
                throw GpickError(.runtime, "no motion\(zone.map { " in \($0)" } ?? "")\(lasting > 0 ? cFormat(" lasting %g s", lasting) : "") within \(cFormat("%g", timeout)) s")
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}
