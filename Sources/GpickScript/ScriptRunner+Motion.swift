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
        // Invariant: touched only on the runner's actor, but for `seen` and `clips`, under their locks.
        var settings = MotionSettings()
        var watch: MotionWatch?
        let seen = Locked<[MotionEvent]>([])
        var handlers: [MotionHandler] = []
        var runs: [Task<Void, Never>] = []
        /// The watch's events, in order, to the runner: blocks start before a wait sees them.
        var feed: AsyncStream<MotionEvent>.Continuation?
        var feeding: Task<Void, Never>?
        /// `clips start`'s clips (ScriptRunner+Clips.swift), read by the watch's callback too:
        /// a start pins the pre-roll ring at once, not after a hop to the runner.
        let clips = Locked<Clipping?>(nil)
        var clipping: Clipping? {
            get { clips.withLock { $0 } }
            set { clips.withLock { $0 = newValue } }
        }
    }

    /// An `on motion` block: how often it has run, whether it runs now, when it may run again.
    struct MotionHandler {
        let line: Int
        let zone: String?
        let cooldown: Double
        let body: [ScriptStatement]
        var runs = 0
        var running = false
        var readyAt: ContinuousClock.Instant?
    }

    func addZone(_ name: String, _ area: MotionPolygon) async throws {
        motion.settings.zones.removeAll { $0.name == name }
        motion.settings.zones.append(MotionZone(name: name, area: area))
        await stopMotionWatch()
        if !motion.handlers.isEmpty || motion.clipping != nil { try await watchForMotion() }
    }

    func addMask(_ area: MotionPolygon) async throws {
        motion.settings.masks.append(area)
        await stopMotionWatch()
        if !motion.handlers.isEmpty || motion.clipping != nil { try await watchForMotion() }
    }

    /// Starts the watch if it is not running. Its events also come as the session's
    /// (motion-started, motion-ended); starts run the `on motion` blocks.
    func watchForMotion() async throws {
        let session = try await runningSession()
        guard motion.watch == nil else { return }
        let (events, feed) = AsyncStream<MotionEvent>.makeStream()
        let state = motion
        motion.watch = try MotionWatch.start(in: session, settings: motion.settings) { e in
            if let c = state.clipping, c.zone == nil || c.zone == e.zone { c.clips.motion(e) }
            feed.yield(e)
        }
        if let watch = motion.watch { motion.clipping?.clips.follow(watch) }
        motion.feed = feed
        motion.feeding = Task { [weak self] in
            for await e in events { await self?.motionSeen(e) }
        }
    }

    /// One event of the watch: the blocks it starts are under way before a `wait motion` sees it.
    private func motionSeen(_ e: MotionEvent) {
        if e.kind == .started { motionStarted(e) }
        motion.seen.withLock { $0.append(e) }
    }

    /// `on motion …`: from now on, each start of motion (in the zone) runs the block.
    func addHandler(line: Int, zone: String?, cooldown: Double, body: [ScriptStatement]) async throws {
        motion.handlers.append(MotionHandler(line: line, zone: zone, cooldown: cooldown, body: body))
        try await watchForMotion()
        emit("on-motion-armed", ["line": line, "zone": zone ?? "any", "cooldown": cooldown])
    }

    /// Motion started: each block it is for runs, unless it runs already or cools down.
    private func motionStarted(_ e: MotionEvent) {
        for i in motion.handlers.indices {
            let h = motion.handlers[i]
            guard h.zone == nil || h.zone == e.zone else { continue }
            if h.running || h.readyAt.map({ ContinuousClock.now < $0 }) == true {
                emit("on-motion-skipped", ["line": h.line, "zone": e.zone, "time": e.time,
                                           "reason": h.running ? "running" : "cooling down"])
                continue
            }
            motion.handlers[i].running = true
            motion.handlers[i].runs += 1
            let number = motion.handlers[i].runs
            let wall = Date().addingTimeInterval(-(e.latency ?? 0))
            motion.runs.append(Task { await self.runHandler(i, number: number, event: e, at: wall) })
        }
    }

    /// One run of a block: its lines in order, `%n` and `%t` filled in; a failing line is
    /// reported with its line number (the run's exit status says so) and ends this run.
    private func runHandler(_ i: Int, number: Int, event e: MotionEvent, at wall: Date) async {
        let h = motion.handlers[i]
        emit("on-motion", ["line": h.line, "zone": e.zone, "time": e.time, "number": number])
        var ok = true
        for s in h.body {
            if Task.isCancelled { break }
            if !(await execute(s.expanding(number: number, at: wall))) { ok = false; break }
        }
        // (Gone when the script ended meanwhile.)
        if motion.handlers.indices.contains(i) {
            motion.handlers[i].running = false
            motion.handlers[i].readyAt = ContinuousClock.now + .seconds(h.cooldown)
        }
        emit("on-motion-done", ["line": h.line, "number": number, "ok": ok])
    }

    /// The script is over: no block runs again; runs under way end (`interrupted`: at their next
    /// line, a recording they started finished by the session's stop).
    func stopHandlers(interrupted: Bool) async {
        motion.handlers.removeAll()
        let runs = motion.runs
        motion.runs.removeAll()
        if interrupted { for r in runs { r.cancel() } }
        for r in runs { await r.value }
    }

    func stopMotionWatch() async {
        guard let w = motion.watch else { return }
        motion.watch = nil
        await w.stop()
        motion.feed?.finish()
        await motion.feeding?.value
        (motion.feed, motion.feeding) = (nil, nil)
    }

    /// Waits for motion to start (in `zone`, or any) after this line began, and to last
    /// `lasting` seconds of stream time; fails past `timeout` seconds.
    func waitForMotion(zone: String?, lasting: Double, timeout: Double?, line: Int) async throws {
        try await watchForMotion()
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

extension ScriptStatement {
    /// The statement as one run of an `on motion` block runs it: `%n` the run's number, `%t` the
    /// local time motion started, `%%` a percent sign, in its file names (and an echo's text).
    func expanding(number: Int, at date: Date) -> ScriptStatement {
        let x = { (name: String) in MotionClips.name(name, number: number, at: date) }
        var s = self
        switch command {
        case .snap(let p): s.command = .snap(x(p))
        case .burst(let n, let p, let every): s.command = .burst(count: n, path: x(p), every: every)
        case .record(let d, let p): s.command = .record(duration: d, path: x(p))
        case .live(let p): s.command = .live(x(p))
        case .expect(let p, let check): s.command = .expect(path: x(p), check)
        case .echo(let text): s.command = .echo(x(text))
        default: break
        }
        return s
    }
}
