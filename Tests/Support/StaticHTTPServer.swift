import Foundation

/// A real HTTP server on 127.0.0.1 (Python's http.server, a program of its own), serving the
/// files of one folder, for URL sources. Besides plain GETs (`/NAME`) it has routes that make a
/// client's behaviour visible:
/// - `/stall/NAME` sends the first 64 KiB, then waits (up to 10 s) for the client to hang up
///   before sending the rest: a client that needed the whole body would take 10 s;
/// - `/slow/NAME` trickles the body, 16 KiB every 5 ms;
/// - `/status/N` answers with HTTP status N;
/// - `/redirect/N/NAME` redirects to `/redirect/N-1/NAME`, and `/redirect/0/NAME` to `/NAME` (N+1 hops in all);
///   `/redirect/file/NAME` redirects to `file:///etc/NAME`;
/// - `/silent/NAME` reads the request and answers nothing (for up to 10 s).
/// It prints `GOT /PATH` as a request comes, and `SENT /PATH BYTES` once its response is over
/// (sent whole, or the client hung up): what really went out.
public final class StaticHTTPServer: @unchecked Sendable {
    // Invariant: immutable after init; `running` drains the child's output on its own threads.
    public let port: Int
    public let folder: String
    let running: Subprocess.Running

    public static let stallBytes = 64 << 10

    public init(folder: String) async throws {
        self.folder = folder
        running = try Subprocess.start("/usr/bin/python3", ["-u", "-c", Self.script, folder])
        let out = try await running.waitForOutput("PORT ", timeout: 20)
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }),
              let port = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) else {
            throw TestFailure("the test HTTP server printed no port: \(out)")
        }
        self.port = port
    }

    deinit { stop() }

    public func stop() {
        running.signal(SIGKILL)
        running.process.waitUntilExit()
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Requests of `path` received so far, and those whose response is over.
    public func started(_ path: String) -> Int { lines("GOT /\(path)") }
    public func finished(_ path: String) -> Int { lines("SENT /\(path) ", prefix: true) }

    private func lines(_ text: String, prefix: Bool = false) -> Int {
        running.stdoutSoFar.split(separator: "\n").filter { prefix ? $0.hasPrefix(text) : $0 == text }.count
    }

    /// The bytes sent for each request of `path` so far (waits up to `timeout` for at least one).
    public func sent(_ path: String, timeout: Double = 10) async throws -> [Int] {
        let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
        while true {
            let counts = running.stdoutSoFar.split(separator: "\n").compactMap { line -> Int? in
                let parts = line.split(separator: " ")
                guard parts.count == 3, parts[0] == "SENT", parts[1] == "/" + path else { return nil }
                return Int(parts[2])
            }
            if !counts.isEmpty || Date() > deadline { return counts }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    static let script = #"""
import os, sys, time, socket, select, threading
lock = threading.Lock()
def say(line):
    with lock:  # whole lines: the handlers run on threads of their own
        sys.stdout.write(line + "\n"); sys.stdout.flush()
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
root = sys.argv[1]
STALL = 64 * 1024
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def log_message(self, *a): pass
    def do_GET(self):
        say("GOT %s" % self.path)
        path = self.path
        mode = None
        for m in ("stall", "slow"):
            if path.startswith("/" + m + "/"):
                mode, path = m, path[len(m) + 1:]
        if path.startswith("/redirect/"):
            hops, rest = path[len("/redirect/"):].split("/", 1)
            target = "file:///etc/" + rest if hops == "file" else ("/" + rest if hops == "0" else "/redirect/%d/%s" % (int(hops) - 1, rest))
            self.send_response(302); self.send_header("Location", target); self.send_header("Content-Length", "0"); self.end_headers()
            say("SENT %s 0" % self.path); return
        if path.startswith("/silent/"):
            select.select([self.connection], [], [], 10)
            say("SENT %s 0" % self.path); return
        if path.startswith("/status/"):
            self.send_response(int(path[8:])); self.send_header("Content-Length", "0"); self.end_headers()
            say("SENT %s 0" % self.path); return
        name = os.path.basename(path)
        full = os.path.join(root, name)
        if not name or not os.path.isfile(full):
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers()
            say("SENT %s 0" % self.path); return
        data = open(full, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        sent = 0
        try:
            if mode == "stall":
                # Counted as it leaves: a client that has read enough may hang up mid-way.
                first = memoryview(data[:STALL])
                while sent < len(first):
                    sent += self.connection.send(first[sent:])
                r, _, _ = select.select([self.connection], [], [], 10)
                if r and not self.connection.recv(1, socket.MSG_PEEK):
                    raise BrokenPipeError()
            step = 16384 if mode == "slow" else 65536
            while sent < len(data):
                self.wfile.write(data[sent:sent + step]); self.wfile.flush(); sent += len(data[sent:sent + step])
                if mode == "slow": time.sleep(0.005)
        except OSError:
            pass  # the client hung up
        say("SENT %s %d" % (self.path, sent))
server = ThreadingHTTPServer(("127.0.0.1", 0), H)
server.daemon_threads = True
print("PORT %d" % server.server_address[1], flush=True)
server.serve_forever()
"""#
}
