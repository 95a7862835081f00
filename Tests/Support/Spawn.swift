import Foundation
import Testing
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// Runs a fixture-making program to its end with posix_spawn and waitpid, not Foundation's
/// Process: a CI run hung for good in `Process.waitUntilExit()` on an ffmpeg that had exited and
/// that nothing had reaped (a zombie), while other suites started and ended processes of their
/// own. Here the pid is ours alone to wait for. Its stdout goes to /dev/null or a pipe; its stderr
/// is kept for the failure message.
public enum Spawn {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
    }

    /// `background`: at a lower priority (see `Subprocess.background`).
    public static func run(_ exe: String, _ args: [String], keepStdout: Bool = false, background: Bool = false) throws -> Result {
        let (exe, args) = background ? Subprocess.background(exe, args) : (exe, args)
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard closeOnExecPipe(&err) else { throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
        defer { close(err[0]) }
        if keepStdout {
            guard closeOnExecPipe(&out) else { close(err[1]); throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
        }
        defer { if keepStdout { close(out[0]) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if keepStdout { posix_spawn_file_actions_adddup2(&actions, out[1], 1) }
        else { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        // Nothing else of this process's goes along: an inherited socket keeps a connection a
        // test has closed open (a web test then waits for a hang-up that never comes), and an
        // inherited pipe keeps its reader from ever seeing the end.
        InheritedDescriptors.closeAllButStandard(in: &actions)
        let argv = ([exe] + args).map { strdup($0) } + [nil]
        // GStreamer's registry as every child has it (see `TestEnvironment.child`).
        let envp = TestEnvironment.childEnvironment().map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        // A shell's signals, not this pool thread's blocked mask (it once left every gpick under
        // test deaf to SIGHUP and SIGTERM, and tmux servers alive after `kill-server`).
        let spawned = ShellSignals.withSpawnAttributes { posix_spawn(&pid, exe, &actions, &$0, argv, envp) }
        close(err[1])
        if keepStdout { close(out[1]) }
        guard spawned == 0 else { throw TestFailure("cannot start \(exe): \(String(cString: strerror(spawned)))") }
        // Both pipes are read to their end together (poll): a child blocked on a full stderr pipe
        // while this waited on its stdout would never end.
        let (stdout, stderr) = drain(keepStdout ? out[0] : -1, err[0])
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw TestFailure("waitpid \(exe): \(String(cString: strerror(errno)))") }
        }
        CPULog.child(usage, test: Test.current?.id.description, command: [exe] + args)
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: code, stdout: stdout, stderr: stderr)
    }

    /// pipe2(O_CLOEXEC) is not in Swift's Glibc module (it needs _GNU_SOURCE): pipe, then the flag
    /// at once, as PipeIO.pipe() does.
    private static func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC) }
        return true
    }

    private static func drain(_ outFD: Int32, _ errFD: Int32) -> (Data, Data) {
        var data = [Data(), Data()]
        var fds = [pollfd(fd: outFD, events: Int16(POLLIN), revents: 0), pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while fds.contains(where: { $0.fd >= 0 }) {
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in fds.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                if n > 0 { data[i].append(contentsOf: buffer[0..<n]) }
                else if n == 0 || errno != EINTR { fds[i].fd = -1 }
            }
        }
        return (data[0], data[1])
    }
}
