import Foundation
import GpickBase
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A child started with posix_spawn and reaped by a thread of its own, with the part of
/// Foundation's `Process` the tests use (`isRunning`, `terminationStatus`, …).
///
/// Foundation's `Process` learns that a child ended from a SIGCHLD source shared by every child
/// of the test process. Under a full run's load that source has missed an ending: a `time`
/// whose child had exited sat for 30 s as "running" (a zombie nobody reaped), and earlier a CI
/// run hung in `waitUntilExit()` on an ffmpeg in the same state. Here each pid is waited for by
/// its own blocking `waitpid`, as `Spawn` does for fixtures.
public final class ChildProcess: @unchecked Sendable {
    public let processIdentifier: Int32
    /// The arguments after the program, as `Process.arguments` has them.
    public let arguments: [String]?
    // Invariant: `status` is only touched under `ended`'s lock.
    private let ended = NSCondition()
    private var status: Int32?
    /// The program and the test that started it, for `CPULog`.
    private let program: String
    private let startedBy = Test.current?.id.description

    /// Starts `exe` with `args` and `environment`; `stdin`, `stdout` and `stderr` are the child's
    /// ends (dup2'd to 0, 1 and 2). Nothing else of this process's is inherited.
    init(_ exe: String, _ args: [String], environment: [String: String], stdin: Int32, stdout: Int32, stderr: Int32) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // As Foundation's Process does: an inherited socket or pipe end keeps a connection or a
        // pipe open after the test closed its own.
        InheritedDescriptors.closeAllButStandard(in: &actions)
        let argv = ([exe] + args).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        // A shell's signals, as in `Spawn`.
        let spawned = ShellSignals.withSpawnAttributes { posix_spawn(&pid, exe, &actions, &$0, argv, envp) }
        guard spawned == 0 else { throw TestFailure("cannot start \(exe): \(String(cString: strerror(spawned)))") }
        processIdentifier = pid
        arguments = args
        program = exe
        // Named, so a failure's thread list tells it from the cooperative pool's.
        if !detachThread(named: "test-reaper", { [self] in reap() }) { Thread.detachNewThread { [self] in reap() } }
    }

    /// Waits for the end without reaping it first (WNOWAIT): until `ended` has the status, the
    /// pid stays this child's, a zombie, so a signal sent under that lock never reaches a
    /// process that took the pid over. Pids here wrap at 32768 and a full run makes tens of
    /// thousands of processes and threads; a pid taken over by one of the test process's own
    /// threads would signal the whole test process.
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0 {
            guard errno == EINTR else { break }
        }
        var usage = rusage()
        ended.withLock {
            var raw: Int32 = 0
            while wait4(processIdentifier, &raw, 0, &usage) < 0 {
                guard errno == EINTR else { raw = 0x7f00; break }  // not ours to wait for: report 127
            }
            // An exit code, or 128 + the signal that ended it, as a shell reports it.
            status = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            ended.broadcast()
        }
        CPULog.child(usage, test: startedBy, command: [program] + (arguments ?? []))
    }

    public var isRunning: Bool { ended.withLock { status == nil } }

    /// The exit code, or 128 + the signal that ended it; 0 while it runs.
    public var terminationStatus: Int32 { ended.withLock { status ?? 0 } }

    /// Sends `sig` while the child runs (or is ended but not yet reaped); after that, nothing.
    public func signal(_ sig: Int32) {
        ended.withLock { if status == nil { _ = kill(processIdentifier, sig) } }
    }

    public func interrupt() { signal(SIGINT) }

    /// Blocks until the child has ended and been reaped.
    public func waitUntilExit() {
        ended.withLock { while status == nil { ended.wait() } }
    }
}
