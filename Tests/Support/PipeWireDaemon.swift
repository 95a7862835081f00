import Foundation
import GpickBase
import Testing

/// A private PipeWire for one test, with a camera node and no hardware: a session D-Bus,
/// `pipewire` and `wireplumber` in a runtime directory of its own, and PipeWire's
/// `videotestsrc` SPA node exported as "Test Camera" (node name `testcam`). Every process is
/// a child of the test and is stopped by `stop()`.
public final class PipeWireDaemon: @unchecked Sendable {
    // Invariant: every stored property is set in init and never changed.
    public static let cameraNode = "testcam"
    public static let cameraName = "Test Camera"

    /// The environment that points gpick (or pw-cli) at this daemon.
    public let env: [String: String]
    let processes: [Subprocess.Running]

    static let config = """
        context.objects = [
          { factory = spa-node-factory
            args = { factory.name = videotestsrc library.name = videotestsrc/libspa-videotestsrc
                     node.name = \(cameraNode) node.description = "\(cameraName)" media.class = Video/Source object.export = true } }
        ]

        """

    /// Starts the daemons and waits until the camera node is listed. Without `linking`,
    /// WirePlumber's policy is off: it still admits clients, but links no stream to the camera
    /// (the test does, with `link`), as a session manager that is slow or re-routing would.
    public static func start(linking: Bool = true) async throws -> PipeWireDaemon {
        let dir = TestEnvironment.tempDir("pipewire")
        let runtime = "\(dir)/run", confd = "\(dir)/config/pipewire/pipewire.conf.d"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(atPath: confd, withIntermediateDirectories: true)
        try config.write(toFile: "\(confd)/testcam.conf", atomically: false, encoding: .utf8)
        if !linking {
            let policy = "\(dir)/config/wireplumber/policy.lua.d"
            try FileManager.default.createDirectory(atPath: policy, withIntermediateDirectories: true)
            try "default_policy.enabled = false\n".write(toFile: "\(policy)/20-no-linking.lua", atomically: false, encoding: .utf8)
        }
        let bus = "unix:path=\(runtime)/bus"
        let env = ["XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": "\(dir)/config", "DBUS_SESSION_BUS_ADDRESS": bus]
        var started: [Subprocess.Running] = []
        do {
            started.append(try Subprocess.start("/usr/bin/dbus-daemon", ["--session", "--address=\(bus)", "--nofork", "--nopidfile"], env: env))
            try await waitFor("the session bus", timeout: 10) { FileManager.default.fileExists(atPath: "\(runtime)/bus") }
            started.append(try Subprocess.start("/usr/bin/pipewire", [], env: env))
            try await waitFor("pipewire", timeout: 10) { FileManager.default.fileExists(atPath: "\(runtime)/pipewire-0") }
            started.append(try Subprocess.start("/usr/bin/wireplumber", [], env: env))
            let daemon = PipeWireDaemon(env: env, processes: started)
            let deadline = Date().addingTimeInterval(HangBound.seconds(15))
            while try await daemon.nodeID(cameraNode) == nil {
                guard Date() < deadline else { throw TestFailure("PipeWire did not list \(cameraNode) within 15 s") }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            return daemon
        } catch {
            await stop(started)
            throw error
        }
    }

    init(env: [String: String], processes: [Subprocess.Running]) {
        self.env = env
        self.processes = processes
    }

    /// Runs `body` with a daemon, and stops it however the body ends.
    ///
    /// The camera itself can kill the daemon: PipeWire 0.3.65's videotestsrc node writes a
    /// frame's status through its port's IO area from its timer, without checking that the
    /// area is still there, and a consumer that disconnects clears it from another thread
    /// (`make_buffer`, a write to address 0; seen in dmesg twice in a day of full runs, once
    /// failing CI).
    ///
    /// The same node can also stop for good while the daemon lives: live, it turns its frame
    /// timer off when it finds no free buffer (its consumer late by more than its buffers: a
    /// loaded machine; stopping gpick for 1.5 s does it every time) and logs "out of buffers".
    /// Only a Start after a Pause turns the timer on again (`impl_node_send_command`: a Start
    /// to a started node does nothing), and the node is not paused while it stays linked.
    ///
    /// What the body records then is about the test camera, not gpick: issues recorded after
    /// the daemon died of SIGSEGV, or after the camera stopped so, are known issues, and the
    /// body runs once more on a new daemon, where every issue counts. Issues recorded before
    /// either always count.
    public static func with<T>(linking: Bool = true, _ body: (PipeWireDaemon) async throws -> T) async throws -> T {
        let daemon = try await start(linking: linking)
        let excused = Locked(false)
        var outcome: Result<T, Error>?
        try await withKnownIssue("PipeWire's videotestsrc camera crashed the daemon or stopped (PipeWire 0.3.65)", isIntermittent: true) {
            do { outcome = .success(try await body(daemon)) } catch { outcome = .failure(error) }
            await daemon.stop()
            // An error the crash explains is recorded here, as a known issue; any other is
            // thrown to the test below, as usual.
            if daemon.cameraFailed, case .failure(let error) = outcome { throw error }
        } matching: { _ in
            guard daemon.cameraFailed else { return false }
            excused.withLock { $0 = true }
            return true
        }
        guard excused.withLock({ $0 }) else { return try outcome!.get() }
        let again = try await start(linking: linking)
        do {
            let r = try await body(again)
            await again.stop()
            return r
        } catch {
            await again.stop()
            throw error
        }
    }

    /// Whether the test camera failed by itself (see `with`): the daemon died of SIGSEGV, or
    /// the node stopped sending when it ran out of buffers.
    public var cameraFailed: Bool { cameraCrashed || log.contains("out of buffers") }

    /// What the pipewire daemon has printed (its warnings and errors), for a failure's message.
    public var log: String { processes[1].stderrSoFar }

    /// Whether the pipewire daemon died of SIGSEGV (see `with`).
    public var cameraCrashed: Bool {
        let daemon = processes[1]  // dbus-daemon, pipewire, wireplumber: as `start` starts them
        return !daemon.isRunning && daemon.process.terminationStatus == 128 + SIGSEGV
    }

    /// The id of the node named `name`, if PipeWire lists it.
    public func nodeID(_ name: String) async throws -> Int? {
        let r = try await Subprocess.run("/usr/bin/pw-cli", ["ls", "Node"], env: env, timeout: 10)
        var id: Int?
        for line in r.stdoutLines {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("id "), let n = Int(t.dropFirst(3).prefix { $0.isNumber }) { id = n }
            if t == "node.name = \"\(name)\"" { return id }
        }
        return nil
    }

    /// The state PipeWire reports for the node named `name` ("running" while a stream reads
    /// it, "idle" or "suspended" when none does), as `pw-dump` shows it; nil when not listed.
    public func nodeState(_ name: String) async throws -> String? {
        let r = try await Subprocess.run("/usr/bin/pw-dump", [], env: env, timeout: 10)
        guard r.status == 0, let objects = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] else {
            throw TestFailure("pw-dump: \(r.stderr)")
        }
        for object in objects where object["type"] as? String == "PipeWire:Interface:Node" {
            let info = object["info"] as? [String: Any]
            if (info?["props"] as? [String: Any])?["node.name"] as? String == name { return info?["state"] as? String }
        }
        return nil
    }

    /// Waits until `nodeState(name)` satisfies `condition`; the last state seen, whether or not.
    /// A `pw-dump` that fails (a loaded machine can starve it past its own timeout) is asked
    /// again; only one that never answers before the deadline is an error.
    @discardableResult
    public func waitForNode(_ name: String, seconds: Double = 10, _ condition: (String?) -> Bool) async throws -> String? {
        let deadline = Date().addingTimeInterval(HangBound.seconds(seconds))
        var state: String?
        var answered = false
        var lastError: Error?
        var first = true
        repeat {
            if !first { try await Task.sleep(nanoseconds: 100_000_000) }
            first = false
            do {
                state = try await nodeState(name)
                answered = true
                if condition(state) { return state }
            } catch {
                lastError = error
            }
        } while Date() < deadline
        if !answered, let lastError { throw lastError }
        return state
    }

    /// Makes the camera node again, as plugging its camera back in would (it outlives pw-cli).
    public func recreateCamera() async throws {
        let r = try await Subprocess.run("/usr/bin/pw-cli", ["create-node", "spa-node-factory",
                                                             "factory.name=videotestsrc library.name=videotestsrc/libspa-videotestsrc node.name=\(Self.cameraNode) "
                                                             + "node.description=\"\(Self.cameraName)\" media.class=Video/Source object.linger=true"],
                                         env: env, timeout: 10)
        guard r.status == 0 else { throw TestFailure("pw-cli create-node: \(r.stdout) \(r.stderr)") }
        let deadline = Date().addingTimeInterval(HangBound.seconds(15))
        while try await nodeID(Self.cameraNode) == nil {
            guard Date() < deadline else { throw TestFailure("PipeWire did not list \(Self.cameraNode) again within 15 s") }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Destroys a node, as unplugging its camera would.
    public func destroy(node name: String) async throws {
        guard let id = try await nodeID(name) else { throw TestFailure("no node \(name) to destroy") }
        let r = try await Subprocess.run("/usr/bin/pw-cli", ["destroy", "\(id)"], env: env, timeout: 10)
        guard r.status == 0 else { throw TestFailure("pw-cli destroy \(id): \(r.stderr)") }
    }

    /// Destroys every link out of the node named `name`, as a session manager does when it
    /// re-routes: the streams reading it are left connected to nothing, and told nothing.
    /// Returns how many links there were.
    @discardableResult
    public func unlink(node name: String) async throws -> Int {
        guard let node = try await nodeID(name) else { throw TestFailure("no node \(name) to unlink") }
        let r = try await Subprocess.run("/usr/bin/pw-cli", ["ls", "Link"], env: env, timeout: 10)
        var id: Int?, links: [Int] = []
        for line in r.stdoutLines {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("id "), let n = Int(t.dropFirst(3).prefix { $0.isNumber }) { id = n }
            if t == "link.output.node = \"\(node)\"", let id { links.append(id) }
        }
        for link in links {
            let d = try await Subprocess.run("/usr/bin/pw-cli", ["destroy", "\(link)"], env: env, timeout: 10)
            guard d.status == 0 else { throw TestFailure("pw-cli destroy \(link): \(d.stderr)") }
        }
        return links.count
    }

    /// The ids of the input ports whose names start with `prefix` ("gpick:" for gpick's
    /// streams), as `pw-link` lists them.
    public func inputPorts(_ prefix: String) async throws -> [Int] {
        let r = try await Subprocess.run("/usr/bin/pw-link", ["-I", "-i"], env: env, timeout: 10)
        return r.stdoutLines.compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[1].hasPrefix(prefix) else { return nil }
            return Int(parts[0])
        }
    }

    /// The ids of the input ports whose names start with `prefix` that nothing is linked to,
    /// as `pw-link` lists them. Ask each time rather than remember which ids were linked:
    /// PipeWire gives a new stream's port the id of the port just destroyed (gpick's streams
    /// all had port 39), so an id linked a moment ago can be a new, unlinked port by now.
    public func unlinkedInputPorts(_ prefix: String) async throws -> [Int] {
        let r = try await Subprocess.run("/usr/bin/pw-link", ["-I", "-l", "-i"], env: env, timeout: 10)
        // A port's line ("  39 gpick:in_0"), then a line per link into it ("  41   |<-   31 testcam:out_0").
        var unlinked: [Int] = [], port: Int?
        for line in r.stdoutLines {
            if line.contains("|<-") {
                if let port { unlinked.removeAll { $0 == port } }
                continue
            }
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            port = parts.count == 2 && parts[1].hasPrefix(prefix) ? Int(parts[0]) : nil
            if let port { unlinked.append(port) }
        }
        return unlinked
    }

    /// Links (or with `unlink`, unlinks) the camera's output port to the input port `port`.
    public func link(cameraTo port: Int, unlink: Bool = false) async throws {
        let r = try await Subprocess.run("/usr/bin/pw-link", (unlink ? ["-d"] : []) + ["\(Self.cameraNode):out_0", "\(port)"], env: env, timeout: 10)
        guard r.status == 0 else { throw TestFailure("pw-link\(unlink ? " -d" : "") \(Self.cameraNode):out_0 \(port): \(r.stderr)") }
    }

    public func stop() async { await Self.stop(processes) }

    /// Stops the processes, newest first, and waits for each (no process is left behind), on
    /// timers: other suites share this cooperative pool. wireplumber and dbus-daemon started
    /// from the test runner keep running after SIGTERM (they inherit its blocked signals) and
    /// hold no state worth a clean exit: SIGKILL after a short grace.
    static func stop(_ processes: [Subprocess.Running]) async {
        for p in processes.reversed() where p.process.isRunning {
            p.signal(SIGTERM)
            for _ in 0..<30 where p.process.isRunning { try? await Task.sleep(nanoseconds: 10_000_000) }
            if p.process.isRunning { p.signal(SIGKILL) }
            while p.process.isRunning { try? await Task.sleep(nanoseconds: 10_000_000) }
        }
    }

    static func waitFor(_ what: String, timeout: Double, _ ready: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
        while !ready() {
            guard Date() < deadline else { throw TestFailure("\(what) did not start within \(Int(timeout)) s") }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}
