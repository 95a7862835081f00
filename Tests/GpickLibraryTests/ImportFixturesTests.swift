import Foundation
import GpickBase
import GpickFormats
import GpickLibrary
import GpickTestSupport
import Synchronization
import Testing

/// Real files for the import and watch tests, made once per test process by GStreamer and
/// exiftool (in parallel), then copied by each test into its own folders.
struct ImportFixtures: Sendable {
    let dir: String

    static let shared = SharedFixture { try ImportFixtures.make() }
    static func get() async throws -> ImportFixtures { try await shared.value() }

    static let liveUUID = "5C1F0A2B-3D4E-4F60-8172-93A4B5C6D7E8"
    /// Taken at 2021-03-04 05:06:07 (EXIF DateTimeOriginal, no offset: local time).
    static let exifDate = "2021:03:04 05:06:07"

    func path(_ name: String) -> String { "\(dir)/\(name)" }
    func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }

    static func make() throws -> ImportFixtures {
        let dir = "/tmp/gpick-import-fixtures-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func p(_ n: String) -> String { "\(dir)/\(n)" }
        let gst = "/usr/bin/gst-launch-1.0"
        try runAll([
            (gst, ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=320,height=240", "!", "jpegenc", "!",
                   "filesink", "location=\(p("plain.jpg"))"]),
            (gst, ["-q", "videotestsrc", "pattern=ball", "num-buffers=5", "!", "video/x-raw,width=160,height=120,framerate=10/1", "!",
                   "jpegenc", "!", "qtmux", "!", "filesink", "location=\(p("q.mov"))"]),
        ])
        try runAll([("/usr/bin/exiftool", ["-q", "-o", p("dated.jpg"), "-DateTimeOriginal=\(exifDate)", p("plain.jpg")])])
        // An Apple live pair: the still's MakerNote and the movie's QuickTime key share the UUID.
        // The still has no date (its mtime is 2020-06-15); the movie's is another month.
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: p("plain.jpg"))))
        try Data(try AppleMakerNote.insert(uuid: liveUUID, into: plain)).write(to: URL(fileURLWithPath: p("live.jpg")))
        let mov = [UInt8](try Data(contentsOf: URL(fileURLWithPath: p("q.mov"))))
        try Data(try AppleLivePhoto.patch(mov: mov, uuid: liveUUID, stillTime: 0.2)).write(to: URL(fileURLWithPath: p("live.mov")))
        try ImportKit.setMtime(p("live.jpg"), unix: ImportKit.localUnix(2020, 6, 15))
        try Data("hello, not a photo\n".utf8).write(to: URL(fileURLWithPath: p("text.jpg")))
        atexit { try? FileManager.default.removeItem(atPath: ImportFixtures.removeAtExit.withLock { $0 }) }
        removeAtExit.withLock { $0 = dir }
        return ImportFixtures(dir: dir)
    }

    static let removeAtExit = Mutex("")

    static func runAll(_ commands: [(String, [String])]) throws {
        try MediaFixtures.runAll(commands)
    }
}

// MARK: - Helpers the import and watch tests share

/// One test's world: a library folder, a folder of sources, its own index.
struct ImportWorld {
    let base: String
    var library: String { base + "/library" }
    var sources: String { base + "/sources" }
    var data: String { base + "/data" }
    var indexPath: String { data + "/gpick/library.sqlite" }

    init(_ name: String = #function) throws {
        base = TestEnvironment.tempDir(name)
        for d in [library, sources, data] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        // Canonical, as the index stores paths.
    }

    var roots: MediaRoots { MediaRoots(paths: [library]) }
    func index() throws -> LibraryIndex { try LibraryIndex.open(path: indexPath) }

    /// Copies a fixture into the sources (optionally with a byte appended after the JPEG's end,
    /// which makes other content that still reads as the same photo).
    @discardableResult
    func source(_ fixture: String, as name: String? = nil, variant: UInt8? = nil, in folder: String? = nil, keepMtime: Bool = true) async throws -> String {
        let f = try await ImportFixtures.get()
        var data = try f.bytes(fixture)
        if let variant { data.append(variant) }
        let path = (folder ?? sources) + "/" + (name ?? fixture)
        try data.write(to: URL(fileURLWithPath: path))
        guard keepMtime else { return path }
        var st = stat()
        stat(f.path(fixture), &st)
        try ImportKit.setMtime(path, unix: Int64(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec))
        return path
    }

    func libraryFiles() -> [String] { TestEnvironment.allFiles(under: library) }
}

/// Helpers of the import and watch tests (a namespace: other suites share this module).
enum ImportKit {
    static func setMtime(_ path: String, unix: Int64, nanoseconds: Int = 0) throws {
        var times = [timespec(tv_sec: Int(unix), tv_nsec: nanoseconds), timespec(tv_sec: Int(unix), tv_nsec: nanoseconds)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw TestFailure("cannot set the mtime of \(path)") }
    }

    /// Unix seconds of a local date at noon.
    static func localUnix(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month - 1)
        t.tm_mday = Int32(day)
        t.tm_hour = 12
        t.tm_isdst = -1
        return Int64(mktime(&t))
    }

    /// `YYYY/MM` of a unix time in local time, as import files it.
    static func monthFolder(_ unix: Int64) -> String {
        var t = time_t(unix)
        var parts = tm()
        localtime_r(&t, &parts)
        return String(format: "%04d/%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1)
    }

    static func fileBytes(_ path: String) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: path)) }

    static func mtimeNs(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }

    static func inode(_ path: String) -> UInt64? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(st.st_ino) : nil
    }
}

@Suite struct ContentHashTests {
    @Test func sha256MatchesSha256sum() async throws {
        let f = try await ImportFixtures.get()
        let ours = try ContentHash.sha256(path: f.path("dated.jpg"))
        let theirs = try await Subprocess.run("/usr/bin/sha256sum", [f.path("dated.jpg")])
        #expect(ours == String(theirs.stdout.prefix(64)))
        // Larger than one chunk, and empty.
        let big = TestEnvironment.tempDir() + "/big.bin"
        try Data((0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: big))
        let bigSum = try await Subprocess.run("/usr/bin/sha256sum", [big])
        #expect(try ContentHash.sha256(path: big) == String(bigSum.stdout.prefix(64)))
        let empty = TestEnvironment.tempDir() + "/empty"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        #expect(try ContentHash.sha256(path: empty) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(throws: GpickError.self) { try ContentHash.sha256(path: empty + ".missing") }
    }
}
