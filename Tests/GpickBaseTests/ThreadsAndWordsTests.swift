import Foundation
import GpickBase
import Testing

/// The waiting and the words every layer shares.
@Suite struct ThreadsAndWordsTests {
    @Test func aMonitorWakesItsWaiterOnTheChangeAndGivesUpAtTheDeadline() async throws {
        let m = Monitor(0)
        let woke = OffPool.start { () -> Int in m.wait(until: { $0 >= 3 }, deadline: .now + .seconds(30)) { $0 } }
        for _ in 0..<3 { m.withLock { $0 += 1 } }
        #expect(await woke.value() == 3)
        let started = ContinuousClock.now
        let late = m.wait(until: { $0 > 100 }, deadline: .now + .milliseconds(50)) { $0 }
        #expect(late == 3, "at the deadline the state is read as it is")
        #expect(ContinuousClock.now - started >= .milliseconds(50))
    }

    @Test func aSignalFiresOnceForEveryWaiter() async {
        let s = Signal()
        #expect(await s.wait(timeout: 0.05) == false)
        async let a = s.wait(timeout: 30)
        async let b = s.wait(timeout: 30)
        s.fire()
        s.fire()
        let (first, second) = await (a, b)
        #expect(first && second && s.isFired)
        #expect(await Signal.any([Signal(), s], timeout: 1))
    }

    /// A time limit holds even over work that never answers cancellation: a continuation that
    /// only a frame would resume (it once held a flip's wait for its camera for good). Here the
    /// frame never comes until the wait is over, so the wait can only have ended by its limit;
    /// no upper bound on the elapsed time is asserted, because in a full run the limit's timer
    /// waits its turn among hundreds of starting tests (10 s on an idle machine, 44 s in a CI
    /// run on a busy host).
    @Test func aTimeLimitEndsAWaitThatIgnoresCancellation() async throws {
        let frame = Signal()
        let waiting = Monitor<CheckedContinuation<Void, Never>?>(nil)
        let started = ContinuousClock.now
        await #expect(throws: CancellationError.self) {
            try await withTimeout(0.2) {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in waiting.withLock { $0 = c } }
                frame.fire()
            }
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200), "not before its limit")
        #expect(!frame.isFired, "the wait ended while its work was still held")
        // The work, left behind, still ends once its frame comes.
        // (Its task may not even have started yet in a busy run: wait for it to be held.)
        let held = await OffPool.run { waiting.wait(until: { $0 != nil }, deadline: .now + .seconds(30)) { $0 } }
        try #require(held != nil, "the work never started")
        held?.resume()
        #expect(await frame.wait(timeout: 30))
        // Within the limit the body's own answer, value or error, comes back.
        #expect(try await withTimeout(30) { 42 } == 42)
        await #expect(throws: GpickError.self) { try await withTimeout(30) { throw GpickError(.device, "no camera") } }
        // A caller cancelled is answered at once, too.
        let cancelled = Task { try await withTimeout(60) { try await Task.sleep(nanoseconds: 60_000_000_000) } }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    /// A teardown that never returns (a sink joining a thread that spins) is left behind at the
    /// limit, and goes on alone; one that ends in time says so. As above, the work is held until
    /// the limit has answered, so only the limit can have ended the wait.
    @Test func workOffThePoolWithinALimitIsLeftBehindWhenItOverruns() async {
        let release = Monitor(false)
        let ended = Signal()
        let started = ContinuousClock.now
        let inTime = await OffPool.run(within: 0.2) {
            release.wait(until: { $0 }) { _ in }
            ended.fire()
        }
        #expect(!inTime)
        #expect(ContinuousClock.now - started >= .milliseconds(200), "not before its limit")
        #expect(!ended.isFired)
        release.withLock { $0 = true }
        #expect(await ended.wait(timeout: 30), "the work goes on after the limit, and ends when it can")
        #expect(await OffPool.run(within: 30) {})
    }

    /// What a job's work captured is released before its waiter resumes: a session's stop once
    /// went on to exit the process while the off-pool thread still held the pipeline's last
    /// reference, and finalised it under exit's teardown. The capture here takes 50 ms to
    /// release: released after the waiter resumed, it would still be alive when checked.
    @Test func aJobsCapturesAreReleasedBeforeItsWaiterResumes() async {
        final class SlowToRelease: Sendable {
            let released: Signal
            init(_ released: Signal) { self.released = released }
            deinit {
                usleep(50_000)
                released.fire()
            }
        }
        for _ in 0..<3 {
            let released = Signal()
            let held = SlowToRelease(released)
            let job = OffPool.start { _ = held }
            _ = consume held
            await job.value()
            #expect(released.isFired, "the work's capture was still alive when its waiter resumed")
        }
    }

    @Test func offThePoolWorkKeepsItsTypedError() async {
        let r = await Result { () async throws(GpickError) -> Int in
            try await OffPool.run { () throws(GpickError) -> Int in throw GpickError(.device, "no camera") }
        }
        guard case .failure(let e) = r else { Issue.record("no error"); return }
        #expect(e.kind == .device && e.message == "no camera")
        #expect(await OffPool.run { 6 * 7 } == 42)
    }

    @Test func durationsAndSuggestions() {
        #expect(DurationText.parse("1.5s") == 1.5 && DurationText.parse("500ms") == 0.5 && DurationText.parse("2m") == 120)
        #expect(DurationText.parse("1h") == 3600 && DurationText.parse(" 3 ") == 3)
        #expect(DurationText.parse("-1s") == nil && DurationText.parse("soon") == nil && DurationText.parse("infs") == nil)
        #expect(DurationText.format(seconds: 2) == "2s" && DurationText.format(seconds: 0.5) == "0.5s")
        #expect(Suggest.closest(to: "recrod-mp4", in: ["record-mp4", "record-mkv", "session"]) == "record-mp4")
        #expect(Suggest.closest(to: "zzz", in: ["record-mp4", "session"]) == nil)
    }
}

extension Result where Failure == GpickError {
    init(_ body: () async throws(GpickError) -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
