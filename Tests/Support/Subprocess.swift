import Foundation
import GpickBase

/// Runs the real binary (or a tool) as a child process.
public struct Subprocess {
    /// What every thread of `pid` is doing: from /proc at once (its name, the kernel function it
    /// waits in, the syscall and the kernel stack), then gdb's `thread apply all bt` (frames only;
    /// skipped where gdb is not installed, or cannot attach within a minute: a large debug
    /// binary's symbols take long to load on a busy machine). At most 8000 characters.
    public static func stacks(of pid: Int32) -> String {
        var text = kernelStates(of: pid)
        let gdb = "/usr/bin/gdb"
        if FileManager.default.isExecutableFile(atPath: gdb), let null = FileHandle(forUpdatingAtPath: "/dev/null") {
            defer { try? null.close() }
            // No init files, no debuginfod queries (no network here), no auto-loaded scripts.
            let args = ["-nx", "-q", "-batch", "-iex", "set debuginfod enabled off", "-iex", "set auto-load off",
                        "-p", String(pid), "-ex", "thread apply all bt 16"]
            let out = PipeIO.pipe()
            let p = try? ChildProcess(gdb, args, environment: ProcessInfo.processInfo.environment, stdin: null.fileDescriptor,
                                      stdout: out.fileHandleForWriting.fileDescriptor, stderr: null.fileDescriptor)
            try? out.fileHandleForWriting.close()
            if let p {
                let killer = DispatchWorkItem { p.signal(SIGKILL) }
                DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: killer)
                let data = out.fileHandleForReading.readDataToEndOfFile()
                p.waitUntilExit()
                killer.cancel()
                let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
                    .filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") }
                text += lines.isEmpty ? "gdb: no stacks\n" : lines.joined(separator: "\n")
            }
            try? out.fileHandleForReading.close()
        }
        return String(text.prefix(8000))
    }

    /// Per thread: `TID NAME wchan=FUNCTION syscall=NR` and the kernel stack's first frames.
    public static func kernelStates(of pid: Int32) -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.sorted() ?? []
        var text = ""
        for tid in tasks {
            func read(_ name: String) -> String {
                ((try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/\(name)", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let syscall = read("syscall").split(separator: " ").first.map(String.init) ?? "?"
            let stack = read("stack").split(separator: "\n").prefix(4).map { $0.split(separator: " ").last.map(String.init) ?? "" }
            text += "\(tid) \(read("comm")) wchan=\(read("wchan")) syscall=\(syscall) [\(stack.joined(separator: " < "))]\n"
        }
        return text
    }

    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
        public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
        /// The JSON objects printed on stdout, one a line (`--json`'s events).
        public var events: [[String: Any]] { Subprocess.jsonObjects(stdout) }
    }

    /// Each line of `text` that is a JSON object.
    public static func jsonObjects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// `exe ARGS` run at nice 10, for bulk work: fixtures, and the hundreds of runs over
    /// mutated files. On 2 cores, a test that waits on a browser or on a clock then gets the CPU
    /// first, and the bulk fills the rest; at the same priority, those chains took several times
    /// their own time in a full run, and set its length.
    public static func background(_ exe: String, _ args: [String]) -> (String, [String]) {
        ("/usr/bin/nice", ["-n", "10", exe] + args)
    }

    /// `work` on a thread of its own at nice 10: bulk work inside this process (pixel checks over
    /// many renders), for the reason `background(_:_:)` gives.
    public static func inBackground<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await OffPool.run { () -> T in
            // Who 0: the calling thread alone (Linux keeps nice per thread), a fresh one per job.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            defer { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 0) }
            return work()
        }
    }

    /// Runs `gpick ARGS` to completion without blocking the cooperative pool.
    public static func gpick(_ args: [String], env: [String: String] = [:], timeout: Double = 60, stdin: String? = nil,
                             background: Bool = false) async throws -> Result {
        let (exe, args) = background ? Self.background(TestEnvironment.binary, args) : (TestEnvironment.binary, args)
        let p = try start(exe, args, env: env, stdinPipe: stdin != nil)
        if let stdin { p.send(stdin); p.closeInput() }
        return try await p.wait(timeout: timeout)
    }

    public static func run(_ exe: String, _ args: [String], env: [String: String] = [:], timeout: Double = 60) async throws -> Result {
        let p = try start(exe, args, env: env)
        return try await p.wait(timeout: timeout)
    }

    /// Blocking, for synchronous helpers: waited for by pid (see Spawn), not Foundation's Process.
    public static func runSync(_ exe: String, _ args: [String]) throws -> Result {
        let r = try Spawn.run(exe, args, keepStdout: true)
        return Result(status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self), stderr: String(decoding: r.stderr, as: UTF8.self))
    }

    public static func start(_ exe: String, _ args: [String], env: [String: String] = [:], stdinPipe: Bool = false) throws -> Running {
        var e = ProcessInfo.processInfo.environment
        for (k, v) in TestEnvironment.child(env) { e[k] = v }
        let out = PipeIO.pipe(), err = PipeIO.pipe()
        let input = stdinPipe ? PipeIO.pipe() : nil
        let null = stdinPipe ? nil : FileHandle(forReadingAtPath: "/dev/null")
        defer { try? null?.close() }
        let p: ChildProcess
        do {
            p = try ChildProcess(exe, args, environment: e,
                                 stdin: input?.fileHandleForReading.fileDescriptor ?? null?.fileDescriptor ?? -1,
                                 stdout: out.fileHandleForWriting.fileDescriptor, stderr: err.fileHandleForWriting.fileDescriptor)
        } catch {
            for h in [out.fileHandleForReading, out.fileHandleForWriting, err.fileHandleForReading, err.fileHandleForWriting] { try? h.close() }
            try? input?.fileHandleForReading.close()
            try? input?.fileHandleForWriting.close()
            throw error
        }
        // The child's ends are the child's: the readers here see the end once it (and whatever
        // it started) closes them.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        try? input?.fileHandleForReading.close()
        let running = Running(process: p, out: out, err: err, input: input)
        running.startReading()
        return running
    }

    /// A running child: its output is drained continuously so it never blocks on a full pipe.
    public final class Running: @unchecked Sendable {
        // Invariant: `outData`/`errData` only touched under `lock`.
        public let process: ChildProcess
        let out: Pipe, err: Pipe, input: Pipe?
        private let lock = NSLock()
        private var outData = Data(), errData = Data()
        private var readersLeft = 0

        init(process: ChildProcess, out: Pipe, err: Pipe, input: Pipe?) {
            self.process = process
            self.out = out
            self.err = err
            self.input = input
        }

        /// Writes to the child's stdin (when started with `stdinPipe`).
        public func send(_ text: String) { if let input { PipeIO.write(Data(text.utf8), to: input.fileHandleForWriting) } }
        public func closeInput() { try? input?.fileHandleForWriting.close() }

        /// The child's open file descriptors.
        public var openFDs: Int { TestEnvironment.files(in: "/proc/\(process.processIdentifier)/fd").count }

        func startReading() {
            for (pipe, isOut) in [(out, true), (err, false)] {
                lock.withLock { readersLeft += 1 }
                // Its own thread: reading blocks. Named, so a failure's thread list tells it
                // from the cooperative pool's.
                let read: @Sendable () -> Void = {
                    while true {
                        let d = PipeIO.readSome(pipe.fileHandleForReading)
                        if d.isEmpty { break }
                        self.lock.withLock { if isOut { self.outData.append(d) } else { self.errData.append(d) } }
                    }
                    self.lock.withLock { self.readersLeft -= 1 }
                }
                if !detachThread(named: "test-pipe-read", read) { Thread.detachNewThread(read) }
            }
        }

        public var pid: Int32 { process.processIdentifier }
        public var isRunning: Bool { process.isRunning }

        /// What the child has printed on stdout so far.
        public var stdoutSoFar: String { lock.withLock { String(decoding: outData, as: UTF8.self) } }
        /// The JSON objects printed on stdout so far, one a line.
        public var eventsSoFar: [[String: Any]] { Subprocess.jsonObjects(stdoutSoFar) }

        /// What the child has printed on stderr so far.
        public var stderrSoFar: String { lock.withLock { String(decoding: errData, as: UTF8.self) } }

        /// Its stdout and stderr past byte offsets: for a child that answers request after
        /// request, read without decoding all it said before.
        public func output(stdoutFrom: Int, stderrFrom: Int) -> (stdout: Data, stderr: Data) {
            lock.withLock {
                (outData.count > stdoutFrom ? Data(outData[(outData.startIndex + stdoutFrom)...]) : Data(),
                 errData.count > stderrFrom ? Data(errData[(errData.startIndex + stderrFrom)...]) : Data())
            }
        }

        /// Waits until the child's stdout (or with `stderr: true`, its stderr) contains `text`
        /// (an event line, a URL).
        @discardableResult
        public func waitForOutput(_ text: String, stderr: Bool = false, timeout: Double = 20) async throws -> String {
            let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
            while true {
                let out = stderr ? stderrSoFar : stdoutSoFar
                if out.contains(text) { return out }
                guard process.isRunning, Date() < deadline else {
                    throw TestFailure("no \"\(text)\" in the output of \(process.arguments ?? []): \(out.suffix(500)) \(lock.withLock { String(decoding: errData, as: UTF8.self) })")
                }
                try await Task.sleep(nanoseconds: 10_000_000)
            }
        }

        /// Waits until `path` exists (e.g. a recording appears at its first bytes).
        public func waitForFile(_ path: String, timeout: Double = 20) async throws {
            let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
            while !FileManager.default.fileExists(atPath: path) {
                guard process.isRunning, Date() < deadline else { throw TestFailure("\(path) did not appear") }
                try await Task.sleep(nanoseconds: 10_000_000)
            }
        }
        /// Signals the child while it runs (once reaped, its pid may be another process's).
        public func signal(_ sig: Int32) { process.signal(sig) }

        public func wait(timeout: Double) async throws -> Result {
            let timeout = HangBound.seconds(timeout)
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning {
                if Date() > deadline {
                    // What a hang looked like, for whoever reads the failure: the threads' stacks
                    // (where gdb is installed) and what the process had said.
                    let stacks = Subprocess.stacks(of: process.processIdentifier)
                    process.interrupt()
                    process.signal(SIGKILL)
                    let said = lock.withLock { String(decoding: errData.suffix(1000), as: UTF8.self) }
                    throw TestFailure("\(process.arguments ?? []) did not finish within \(timeout) s; its stderr: \(said)"
                                      + (stacks.isEmpty ? "" : "\nits threads:\n" + stacks))
                }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            // Its output to the end, waited for here rather than on a thread of the cooperative
            // pool: a child's child may hold the pipes a while after it ended.
            while lock.withLock({ readersLeft > 0 }) {
                if Date() > deadline {
                    throw TestFailure("\(process.arguments ?? []) ended, but its stdout or stderr stayed open for \(timeout) s (a child of its own?)")
                }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            return collect()
        }

        func collect() -> Result {
            lock.withLock {
                Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
            }
        }
    }
}
