import Foundation

/// A child that stays up and answers requests one at a time (exiftool in `-stay_open` mode, the
/// headless browser's page host): started when first needed, and started anew after it hangs or
/// dies. Starting it is what costs; each request only writes to its stdin and reads its answer.
actor RequestHost {
    /// How much of the child's stdout and stderr earlier answers took, in bytes.
    struct Taken: Sendable {
        var stdout = 0
        var stderr = 0
    }

    private let name: String
    private let start: @Sendable () throws -> Subprocess.Running
    private var host: Subprocess.Running?
    private var taken = Taken()
    /// A request is under way: the actor is reentrant at its awaits, requests are not.
    private var busy = false

    /// `name` is what a hang is reported as; `start` starts the child.
    init(_ name: String, start: @escaping @Sendable () throws -> Subprocess.Running) {
        self.name = name
        self.start = start
    }

    /// Sends `request` and waits for its answer: `answer` looks at what the child printed since
    /// the last answer and, once it is all there, returns it with the bytes it took. `timeout` is
    /// a hang bound; `what` names the request in the failure.
    func ask<T: Sendable>(_ request: String, what: String, timeout: Double,
                          answer: @Sendable (_ stdout: Data, _ stderr: Data) -> (T, Taken)?) async throws -> T {
        while busy { try await Task.sleep(for: .milliseconds(5)) }
        busy = true
        defer { busy = false }
        let host = try running()
        host.send(request)
        let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
        while true {
            let (out, err) = host.output(stdoutFrom: taken.stdout, stderrFrom: taken.stderr)
            if let (value, took) = answer(out, err) {
                taken.stdout += took.stdout
                taken.stderr += took.stderr
                return value
            }
            guard host.isRunning, Date() < deadline else {
                // Hung or dead: the next request starts a new one.
                host.signal(SIGKILL)
                self.host = nil
                throw TestFailure("\(name) gave no answer to \(what) within \(HangBound.seconds(timeout)) s: \(String(decoding: err.suffix(800), as: UTF8.self))")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func running() throws -> Subprocess.Running {
        if let host, host.isRunning { return host }
        let started = try start()
        host = started
        taken = Taken()
        return started
    }
}
