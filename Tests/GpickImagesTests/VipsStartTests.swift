import CGLib
import Foundation
import Glibc
@testable import GpickImages
import GpickTestSupport
import Testing

/// libvips as gpick starts it: only the modules of the loaders it allows are in the process, each
/// once a file needs it, and gpick's prefix for libvips is no VIPSHOME the programs gpick runs
/// could inherit.
struct VipsStartTests {
    @Test func onlyTheAllowedLoadersModulesAreLoaded() throws {
        try Vips.start()
        // Whichever tests of this process came first, both are needed now.
        Vips.loadModules(forHead: [0, 0, 0, 0x1C] + Array("ftypheic".utf8))
        Vips.loadModules(forHead: [0xFF, 0x0A, 0xFA])
        // Read, not stat'ed: /proc files say they are empty.
        let maps = String(decoding: try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() ?? Data(), as: UTF8.self)
        let modules = Set(maps.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.contains("/vips-modules-") else { return nil }
            return String(path.split(separator: "/").last ?? "")
        })
        #expect(modules == ["vips-heif.so", "vips-jxl.so"], "\(modules)")
        #expect(ProcessInfo.processInfo.environment["VIPSHOME"] != "/dev/null")
    }

    /// The first bytes that decide which module a file may need, as the modules' loaders check
    /// them. (`StartupTests` shows which modules a JPEG's, a HEIC's or a JPEG XL's command opens.)
    @Test func aFilesFirstBytesNameTheModuleItNeeds() {
        typealias M = Vips.Module
        let box = { (brand: String) in [0, 0, 0, 0x18] + Array("ftyp\(brand)".utf8) }
        #expect(M.needed(byHead: box("heic")) == [.heif])
        #expect(M.needed(byHead: box("avif")) == [.heif])
        #expect(M.needed(byHead: box("mif1")) == [.heif])
        #expect(M.needed(byHead: [0xFF, 0x0A, 0xFA, 0x7F]) == [.jxl])
        #expect(M.needed(byHead: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == [.jxl])
        #expect(M.needed(byHead: [0xFF, 0xD8, 0xFF, 0xE1, 0, 0x10, 0x45, 0x78, 0x69, 0x66, 0, 0]) == [])
        #expect(M.needed(byHead: [0x89] + Array("PNG\r\n".utf8)) == [])
        #expect(M.needed(byHead: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)) == [])
        // Cut short: too little to be either.
        #expect(M.needed(byHead: [0, 0, 0, 0x18, 0x66, 0x74]) == [])
        #expect(M.needed(byHead: [0xFF]) == [])
        #expect(M.needed(byHead: []) == [])
    }
}

/// A program started while libvips starts, by any thread of the process (a test's, the picker's
/// browser), inherits the environment of that moment. gpick once set VIPSHOME for libvips' start
/// and removed it after: a gpick-library started meanwhile took it for the user's own, loaded no
/// module and called every HEIF, AVIF and JPEG XL "truncated or damaged" (a few runs in ten of
/// the real-file tests). This starts one at that very moment, from libvips' own first message
/// as it starts, and it must read a HEIF.
///
/// That needs a process in which libvips has not started: this test binary again, running only
/// this test (as Go's os/exec tests run their helper process).
struct VipsStartEnvironmentTests {
    static let role = "GPICK_TEST_VIPS_START"

    @Test func aProgramStartedWhileLibvipsStartsReadsHEIF() async throws {
        let env = ProcessInfo.processInfo.environment
        if let heif = env[Self.role] { return try await Self.startWatched(heif: heif) }
        let dir = TestEnvironment.tempDir()
        let heif = dir + "/black.heic"
        let made = try await Subprocess.run("/usr/bin/vips", ["black", heif, "64", "48", "--bands", "3"])
        try #require(made.status == 0, "\(made.stderr)")
        let me = try #require(try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        // Without the VIPSHOME libvips set in this process as it started here: as a user starts it.
        let r = try await Subprocess.run("/usr/bin/env", ["-u", "VIPSHOME", me, "--testing-library", "swift-testing",
                                                         "--filter", "VipsStartEnvironmentTests"], env: [Self.role: heif], timeout: 120)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        // Swift Testing's report: this one test ran there, and passed.
        let report = r.stdout + r.stderr
        #expect(report.contains("Test run with 1 test") && report.contains("passed"), "\(report)")
    }

    /// The helper process's part: libvips starts while its first message starts gpick-library.
    static func startWatched(heif: String) async throws {
        let out = (heif as NSString).deletingLastPathComponent + "/thumb.png"
        let library = TestEnvironment.debugBuild + "/gpick-library"
        StartWatch.argv = [library, "thumb", heif, "-o", out].map { (s: String) -> UnsafeMutablePointer<CChar>? in strdup(s) } + [nil]
        let id = g_log_set_handler("VIPS", G_LOG_LEVEL_INFO, { _, _, _, _ in StartWatch.seen() }, nil)
        try Vips.start()
        g_log_remove_handler("VIPS", id)
        let child = StartWatch.child
        try #require(child > 0, "libvips had started already, or said nothing as it started: nothing was watched")
        let (waited, status) = await Subprocess.inBackground { () -> (pid_t, Int32) in
            var status: Int32 = 0
            return (waitpid(child, &status, 0), status)
        }
        try #require(waited == child)
        // Exit 0, not a signal: the HEIF was read (it was exit 65, "truncated or damaged").
        let how = status & 0x7f == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
        #expect(status == 0, "gpick-library thumb, started as libvips started, ended with \(how)")
        #expect(FileManager.default.fileExists(atPath: out))
    }
}

/// What the helper process saw as libvips started (written on that thread, read after).
private enum StartWatch {
    nonisolated(unsafe) static var argv: [UnsafeMutablePointer<CChar>?] = []
    nonisolated(unsafe) static var child: pid_t = 0

    static func seen() {
        guard child == 0 else { return }
        var pid: pid_t = 0
        guard let path = argv.first ?? nil else { return }
        child = posix_spawn(&pid, path, nil, nil, argv, environ) == 0 ? pid : -1
    }
}
