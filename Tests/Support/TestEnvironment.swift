import CTestHeap
import Foundation
import GpickKit
import GstCore

/// Where things are, for tests: the repository, the built binary, the pipeline files.
public enum TestEnvironment {
    public static let repoRoot: String = {
        // Resolved: Tests/TSan's package reaches this file through a link.
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The gpick the tests start: GPICK_BIN when set (another build's, e.g. the release one
    /// `make install` installs), else the debug build's.
    public static var binary: String {
        ProcessInfo.processInfo.environment["GPICK_BIN"] ?? debugBuild + "/gpick"
    }

    /// The debug build's folder: its gpick, and the test tools built with the tests (gpick-soak).
    public static var debugBuild: String { "\(repoRoot)/.build/debug" }

    public static var library: PipelineLibrary { PipelineLibrary(override: "\(repoRoot)/pipelines") }

    /// A fresh directory for one test.
    public static func tempDir(_ name: String = #function) -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let dir = "/tmp/gpick-tests/\(safe)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A copy of the gpick binary at `path` (a hard link where the file system allows it), for
    /// tests of gpick alone in a folder. Copied by cp, not in this process: a child another test
    /// starts meanwhile would inherit the copy's open write end, and running the copy would fail
    /// with "text file busy".
    public static func placeBinary(at path: String) throws {
        guard link(binary, path) != 0 else { return }
        let copied = try Subprocess.runSync("/bin/cp", [binary, path])
        guard copied.status == 0 else { throw TestFailure("cp \(binary) \(path): \(copied.stderr)") }
    }

    public static func files(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// Every file under `dir`, hidden ones too (a leftover temp file must show), relative and sorted.
    public static func allFiles(under dir: String) -> [String] {
        let e = FileManager.default.enumerator(atPath: dir)
        var out: [String] = []
        while let p = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + p, isDirectory: &isDir), !isDir.boolValue { out.append(p) }
        }
        return out.sorted()
    }

    /// Polls `condition` until it holds or `timeout` passes: tests never sleep a fixed time.
    public static func eventually(_ timeout: Double = 5, _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
        while Date() < deadline {
            if try condition() { return true }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return try condition()
    }

    /// Open file descriptors of this process.
    /// GStreamer's registry where this process has it: a new XDG_CACHE_HOME would otherwise cost
    /// every child a plugin scan (~0.6 s).
    public static let gstRegistry: String = {
        let env = ProcessInfo.processInfo.environment
        if let given = env["GST_REGISTRY"] { return given }
        let cache = env["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory() + "/.cache"
        var u = utsname()
        uname(&u)
        let machine = withUnsafeBytes(of: &u.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(cache)/gstreamer-1.0/registry.\(machine).bin"
    }()

    /// `env` for a child process, with the registry above unless it names one of its own.
    ///
    /// Every child reads that registry and never rewrites it (GST_REGISTRY_UPDATE=no); this
    /// process brings it up to date first, once, under the environment every child inherits.
    /// - A child with a HOME or cache of its own would otherwise rebuild the registry there (a
    ///   scan of every plugin, 2 s idle and over 10 s on a busy machine); a picker's video
    ///   thumbnail waited for it.
    /// - Some plugins' entries depend on HOME (libvisual's looks in ~/.libvisual): a child that
    ///   validated the registry under its own HOME found it changed and rewrote it, the next
    ///   child under the real HOME did the same, and a full run spent about a hundred plugin
    ///   scans on that.
    /// - Children under the real HOME validated it themselves: with a registry out of date at
    ///   the start of a run (new plugins, a new HOME), those started in the first seconds each
    ///   scanned every plugin side by side, and in a CI run a video thumbnail's GStreamer start
    ///   took about 20 s of its child's time before its 10 s decode limit even began.
    public static func child(_ env: [String: String]) -> [String: String] {
        var env = env
        // A child that crashes leaves the Swift runtime's report of every thread's stack (the
        // debug build has its symbols) in one folder: gpick keeps libraries' text, and so the
        // report, off stderr, and a crash seen once in a loaded run is otherwise a single line.
        if env["SWIFT_BACKTRACE"] == nil {
            env["SWIFT_BACKTRACE"] = "enable=yes,interactive=no,output-to=\(crashReports)"
        }
        guard env["GST_REGISTRY"] == nil else { return env }
        _ = registryCurrent
        return env.merging(["GST_REGISTRY": gstRegistry, "GST_REGISTRY_UPDATE": "no"]) { $1 }
    }

    /// Where children's crash reports go (see `child`): one file per crash, named for the
    /// program and its pid.
    public static let crashReports: String = {
        let dir = "/tmp/gpick-tests/crash-reports"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// This process's environment with `child(env)`'s over it, as `NAME=value` lines.
    public static func childEnvironment(_ env: [String: String] = [:]) -> [String] {
        var e = ProcessInfo.processInfo.environment
        for (k, v) in child(env) { e[k] = v }
        return e.map { "\($0.key)=\($0.value)" }
    }

    /// GStreamer's initialisation in this process, which validates (and if needed rewrites) the
    /// registry at `gstRegistry`.
    private static let registryCurrent: Void = { try? Gst.initialize() }()

    public static func openFDs() -> Int { files(in: "/proc/self/fd").count }

    /// What each open fd points at (for leak reports).
    public static func fdTargets() -> [String] {
        files(in: "/proc/self/fd").compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
    }

    /// Resident memory of this process in KiB.
    /// KiB malloc has handed out and not had back, the whole process's: a leak grows it, and
    /// what another test frees comes off it (RSS keeps what malloc holds free, and glibc, once
    /// a large block is freed, serves later large ones from arenas it does not give back).
    public static func heapInUseKiB() -> Int { Int(gpick_test_heap_in_use() / 1024) }

    public static func rssKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }
}

/// A small tmpfs mounted for a test (disk full, read-only); needs root, as CI has.
public final class TmpfsMount {
    public let path: String
    public init(sizeKiB: Int, readOnly: Bool = false) throws {
        path = TestEnvironment.tempDir("tmpfs")
        let opts = "size=\(sizeKiB)k" + (readOnly ? ",ro" : "")
        let r = try Subprocess.runSync("/bin/mount", ["-t", "tmpfs", "-o", opts, "tmpfs", path])
        guard r.status == 0 else { throw TestFailure("mount tmpfs failed (tests run as root in CI): \(r.stderr)") }
    }
    public func unmount() { _ = try? Subprocess.runSync("/bin/umount", [path]) }
    deinit { unmount() }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// How long a test waits before it calls a process, a page or a condition hung. These bounds
/// catch hangs; they never measure speed (the bench does), so they are generous, and every wait
/// of the support code (`Subprocess`, `eventually`, the browser drivers) reads them here:
/// `GPICK_TEST_HANG_SCALE=3` triples all of them on a slower machine (a Raspberry Pi, a
/// sanitizer build) without touching a test.
public enum HangBound {
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["GPICK_TEST_HANG_SCALE"], let v = Double(text), v >= 1 else { return 1 }
        return v
    }()

    public static func seconds(_ s: Double) -> Double { s * scale }
}
