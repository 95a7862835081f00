import FoundationEssentials
import Glibc
import GpickBase
import GpickCLI

/// Runs a program to its end, reading its stdout line by line. posix_spawn, not fork: it is safe
/// beside GStreamer's threads and copies no page tables. Blocking: call it off the cooperative pool.
enum ChildProcess {
    enum End: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Runs `path ARGS` with this process's environment, stdin from /dev/null and stderr shared
    /// (its error lines are the user's), and calls `line` with each line of its stdout as it
    /// comes. `cannotStart` words posix_spawn's errno.
    static func run(_ path: String, _ arguments: [String], cannotStart: (Int32) -> GpickError,
                    line: (String) -> Void) throws(GpickError) -> End {
        var ends: [Int32] = [-1, -1]
        try sys("create a pipe for", path, kind: .runtime) { pipe(&ends) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        var readOpen = true
        defer { if readOpen { close(readEnd) } }
        // Neither end may leak into a child another thread spawns meanwhile (pipe2 is GNU-only).
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        // The user's stderr, not the /dev/null that keeps libraries' text off it; the child keeps
        // its own libraries quiet (or not: the verbosity is in its environment).
        if Console.errorDescriptor != 2 { posix_spawn_file_actions_adddup2(&actions, Console.errorDescriptor, 2) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // GStreamer's and GLib's descriptors are not all close-on-exec: none reaches the child.
        InheritedDescriptors.closeAllButStandard(in: &actions)

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        // `environ` itself is shared mutable state to Swift 6: the same variables, copied.
        let envp: [UnsafeMutablePointer<CChar>?] = Console.childEnvironment(ProcessInfo.processInfo.environment).map { strdup("\($0)=\($1)") } + [nil]
        defer { for a in argv + envp { free(a) } }
        var pid: pid_t = 0
        // `record` ignores SIGINT and SIGTERM (it ends on them gracefully): the child gets a
        // shell's signals instead, so Ctrl-C still stops it.
        let spawned = ShellSignals.withSpawnAttributes { posix_spawn(&pid, path, &actions, &$0, argv, envp) }
        close(writeEnd)  // the child holds its own copy: EOF comes when it exits
        guard spawned == 0 else { throw cannotStart(spawned) }

        // Read to EOF before waiting, so a child with much to say never blocks on a full pipe.
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var readFailure: GpickError?
        reading: while true {
            let n: Int32
            do throws(GpickError) {
                n = try sys("read the output of", path, kind: .runtime) {
                    Int32(truncatingIfNeeded: chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) })
                }
            } catch {
                readFailure = error
                break reading
            }
            if n == 0 { break reading }
            pending += chunk[..<Int(n)]
            while let newline = pending.firstIndex(of: 10) {
                line(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
        close(readEnd)  // a child still writing (after a read failure) gets EPIPE, not a hang
        readOpen = false

        var status: Int32 = 0
        try sys("wait for", path, kind: .runtime) { waitpid(pid, &status, 0) }
        if let readFailure { throw readFailure }
        // WIFEXITED and friends are macros Swift cannot import.
        let stopSignal = status & 0x7f
        return stopSignal == 0 ? .exited((status >> 8) & 0xff) : .signalled(stopSignal)
    }
}
