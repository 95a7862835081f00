import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A process the test did not start itself, known from the pid it wrote to a file: a browser a
/// script started, a plugin scanner GStreamer started. It is known by its pid and its start
/// time (field 22 of /proc/PID/stat), so once it has ended its pid is never signalled: pids here
/// wrap at 32768, a full run makes tens of thousands of processes and threads, and a pid taken
/// over by one of the test process's threads would signal the whole test process.
public struct ForeignProcess: Sendable {
    public let pid: pid_t
    private let startTime: Substring

    /// The process whose pid `file` holds, if the file is there and that process runs.
    public init?(pidFile file: String) {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0,
              let fields = Self.stat(pid), fields[0] != "Z" else { return nil }
        self.pid = pid
        startTime = fields[19]
    }

    /// Still the same process, and not yet ended.
    public var isRunning: Bool {
        guard let fields = Self.stat(pid) else { return false }
        return fields[19] == startTime && fields[0] != "Z"
    }

    /// Sends `sig` if it still runs. Between the check and the signal the process would have to
    /// end and its pid go round all 32768 others: not within a few microseconds.
    public func signal(_ sig: Int32 = SIGKILL) {
        if isRunning { _ = kill(pid, sig) }
    }

    /// /proc/PID/stat's fields after the command's name (which may hold spaces and parentheses):
    /// the state first, the start time at index 19.
    private static func stat(_ pid: pid_t) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? fields : nil
    }
}
