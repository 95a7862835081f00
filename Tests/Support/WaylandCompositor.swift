import Foundation

/// A Wayland compositor for one test: weston's headless backend on a socket and XDG_RUNTIME_DIR
/// of the test's own. The pixman renderer draws real pixels, `--debug` lets weston-screenshooter
/// read them, and the protocol log (`--logger-scopes=proto`) says what each client asked for: a
/// window's title, and every buffer it handed over.
public final class WaylandCompositor {
    public let runtimeDir: String
    public let socket: String
    let log: String
    let process: Subprocess.Running

    /// What a client needs to use this compositor and nothing else (no X11 to fall back on).
    public var environment: [String: String] { ["WAYLAND_DISPLAY": socket, "XDG_RUNTIME_DIR": runtimeDir, "DISPLAY": ""] }

    /// `readsLate`: weston waits 600 ms before each read from a client (an LD_PRELOAD shim on
    /// `recvmsg`), as a compositor on a loaded machine may: a new window's first configure then
    /// comes later than waylandsink waits for it (100 ms). At 150 ms, a client itself starved
    /// beside a busy loop woke from that wait after the configure had come, and had its window.
    public init(width: Int = 640, height: Int = 480, readsLate: Bool = false) async throws {
        runtimeDir = TestEnvironment.tempDir("wayland")
        chmod(runtimeDir, 0o700)  // libwayland refuses a runtime dir others may enter
        socket = "gpick-test-\(UUID().uuidString.prefix(8))"
        log = "\(runtimeDir)/weston.log"
        var env = ["XDG_RUNTIME_DIR": runtimeDir, "WAYLAND_DISPLAY": "", "DISPLAY": ""]
        if readsLate { env["LD_PRELOAD"] = try await Self.lateReads(in: runtimeDir) }
        process = try Subprocess.start("/usr/bin/weston", [
            "--backend=headless-backend.so", "--socket=\(socket)", "--use-pixman", "--debug", "--idle-time=0",
            "--width=\(width)", "--height=\(height)", "--log=\(log)", "--logger-scopes=log,proto",
        ], env: env)
        // The compositor stands for the user's desktop, which does not share the machine with a
        // test suite's load (KWin raises its own priority for that): starved, weston
        // answers a new window's first configure later than waylandsink 1.22 waits (100 ms), and
        // the window dies before the preview under test shows anything. `readsLate` is how a
        // late compositor is tested. (Raising needs root or CAP_SYS_NICE; without, it stays.)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(process.process.processIdentifier), -10)
        // weston creates its socket once its backend and shell are loaded.
        let path = "\(runtimeDir)/\(socket)"
        let deadline = Date().addingTimeInterval(HangBound.seconds(20))
        while !FileManager.default.fileExists(atPath: path) {
            guard Date() < deadline, process.process.isRunning else {
                process.signal(SIGKILL)
                throw TestFailure("weston did not start: \(process.stderrSoFar.suffix(500)) \((try? String(contentsOfFile: log, encoding: .utf8))?.suffix(800) ?? "")")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    /// Builds the shim that delays every `recvmsg` by 600 ms; returns its path.
    static func lateReads(in dir: String) async throws -> String {
        let source = "\(dir)/late-reads.c", library = "\(dir)/late-reads.so"
        try """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <sys/socket.h>
            #include <time.h>
            ssize_t recvmsg(int fd, struct msghdr *m, int flags) {
                ssize_t (*real)(int, struct msghdr *, int) = dlsym(RTLD_NEXT, "recvmsg");
                struct timespec late = {0, 600000000};
                nanosleep(&late, NULL);
                return real(fd, m, flags);
            }
            """.write(toFile: source, atomically: false, encoding: .utf8)
        let r = try await Subprocess.run("/usr/bin/env", ["clang", "-shared", "-fPIC", "-O2", source, "-o", library, "-ldl"])
        guard r.status == 0 else { throw TestFailure("clang: \(r.stderr)") }
        return library
    }

    /// SIGKILL, as for Xvfb (a child of the test runner has SIGTERM blocked). Its shell clients
    /// end on their own when the connection goes.
    public func stop() { process.signal(SIGKILL) }

    /// The whole output as RGB (weston-screenshooter writes a PNG into its working directory).
    public func screenshot() async throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let dir = TestEnvironment.tempDir("screenshot")
        let r = try await Subprocess.run("/bin/sh", ["-c", "cd \"$0\" && exec /usr/bin/weston-screenshooter", dir],
                                         env: environment, timeout: 20)
        guard r.status == 0, let png = TestEnvironment.files(in: dir).first(where: { $0.hasSuffix(".png") }) else {
            throw TestFailure("weston-screenshooter: \(r.status) \(r.stderr)")
        }
        return try await Media.rgb("\(dir)/\(png)")
    }

    /// What the protocol log says about the one client with a desktop window (an xdg_toplevel;
    /// weston's own shell clients have none): its title, the buffers it attached, and the
    /// protocol error the compositor ended its connection with, if it did.
    public struct Window: Sendable {
        public var title: String?
        public var buffersAttached = 0
        public var protocolError: String?
    }

    public func window() -> Window? {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n")
        // "[time][proto] client 0x55… rq xdg_surface@14.get_toplevel(new id xdg_toplevel@15)"
        func client(_ line: Substring) -> Substring? {
            guard let r = line.range(of: "] client ") else { return nil }
            return line[r.upperBound...].split(separator: " ").first
        }
        guard let owner = lines.first(where: { $0.contains(".get_toplevel(") }).flatMap(client) else { return nil }
        var w = Window()
        for line in lines where client(line) == owner && line.contains(" rq ") {
            if line.contains(".attach(wl_buffer@") { w.buffersAttached += 1 }
            if let r = line.range(of: ".set_title(\"") { w.title = String(line[r.upperBound...].prefix { $0 != "\"" }) }
        }
        // "… client 0x55… ev wl_display@1.error(xdg_surface@14, 3, "xdg_surface has never been configured")"
        if let e = lines.first(where: { client($0) == owner && $0.contains(" ev wl_display@1.error(") }),
           let r = e.range(of: "wl_display@1.error(") {
            w.protocolError = String(e[r.upperBound...].dropLast())
        }
        return w
    }
}
