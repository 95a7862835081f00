import Foundation
import GpickTestSupport
import Testing

/// `gpick library …` runs the gpick-library executable installed beside gpick: the tests run it
/// from beside the gpick they test ($GPICK_BIN, else .build/debug), or from $GPICK_LIBRARY_BIN.
enum LibraryCLI {
    static var binary: String {
        if let b = ProcessInfo.processInfo.environment["GPICK_LIBRARY_BIN"] { return b }
        return (TestEnvironment.binary as NSString).deletingLastPathComponent + "/gpick-library"
    }

    /// Runs `gpick-library ARGS` with this test's own index.
    /// `background`: at a lower priority (see `Subprocess.background`).
    static func run(_ args: [String], data: String, timeout: Double = 30, background: Bool = false) async throws -> Subprocess.Result {
        let (exe, args) = background ? Subprocess.background(binary, args) : (binary, args)
        return try await Subprocess.run(exe, args, env: ["XDG_DATA_HOME": data], timeout: timeout)
    }

    static func start(_ args: [String], data: String) throws -> Subprocess.Running {
        try Subprocess.start(binary, args, env: ["XDG_DATA_HOME": data])
    }

    /// `library list --json`: the paths listed.
    static func listed(library: String, data: String) async throws -> [String] {
        let r = try await run(["library", "list", "--json", "--library", library], data: data)
        guard r.status == 0 else { throw TestFailure("library list failed: \(r.stderr)") }
        return events(r.stdout).filter { $0["event"] as? String == "asset" }.compactMap { $0["path"] as? String }
    }

    static func events(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

/// Files for the CLI's library tests, made once per test process.
struct LibraryCLIFixtures: Sendable {
    let dir: String
    static let shared = SharedFixture { try make() }
    static func get() async throws -> LibraryCLIFixtures { try await shared.value() }
    func path(_ name: String) -> String { "\(dir)/\(name)" }

    static func make() throws -> LibraryCLIFixtures {
        let dir = TestEnvironment.tempDir("library-cli-fixtures")
        func run(_ exe: String, _ args: [String]) throws {
            let r = try Subprocess.runSync(exe, args)
            guard r.status == 0 else { throw TestFailure("\(exe) \(args) failed: \(r.stderr)") }
        }
        try run("/usr/bin/gst-launch-1.0", ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=320,height=240", "!",
                                            "jpegenc", "!", "filesink", "location=\(dir)/plain.jpg"])
        try run("/usr/bin/exiftool", ["-q", "-o", "\(dir)/dated.jpg", "-DateTimeOriginal=2021:03:04 05:06:07", "\(dir)/plain.jpg"])
        try Data("just text\n".utf8).write(to: URL(fileURLWithPath: "\(dir)/text.jpg"))
        return LibraryCLIFixtures(dir: dir)
    }
}

/// One test's folders: the library, the sources, the index's XDG_DATA_HOME.
struct LibraryCLIWorld {
    let base: String
    var library: String { base + "/library" }
    var sources: String { base + "/sources" }
    var data: String { base + "/data" }

    init(_ name: String = #function) throws {
        base = TestEnvironment.tempDir(name)
        for d in [library, sources, data] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
    }

    /// A fixture copied into `folder` (the sources by default), its mtime kept; `extra` bytes
    /// after the JPEG's end make other content that reads as the same photo.
    @discardableResult
    func source(_ fixture: String, as name: String, extra: String = "", in folder: String? = nil, keepMtime: Bool = true) async throws -> String {
        let f = try await LibraryCLIFixtures.get()
        var data = try Data(contentsOf: URL(fileURLWithPath: f.path(fixture)))
        data.append(Data(extra.utf8))
        let path = (folder ?? sources) + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        if keepMtime {
            let attrs = try FileManager.default.attributesOfItem(atPath: f.path(fixture))
            try FileManager.default.setAttributes([.modificationDate: attrs[.modificationDate]!], ofItemAtPath: path)
        }
        return path
    }

    func importing(_ args: [String]) async throws -> Subprocess.Result {
        try await LibraryCLI.run(["library", "import", "--library", library] + args, data: data)
    }

    func libraryFiles() -> [String] { TestEnvironment.allFiles(under: library) }
}


extension LibraryCLI {
    static func sameBytes(_ a: String, _ b: String) async throws -> Bool {
        try await Subprocess.run("/usr/bin/cmp", ["-s", a, b]).status == 0
    }

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

@Suite struct LibraryImportTests {
    @Test func importsIntoYearAndMonthByteForByte() async throws {
        let w = try LibraryCLIWorld()
        let src = try await w.source("dated.jpg", as: "IMG_0001.JPG")
        let copy = w.base + "/original.jpg"
        try FileManager.default.copyItem(atPath: src, toPath: copy)
        let mtime = LibraryCLI.modified(src)
        let r = try await w.importing([src])
        #expect(r.status == 0, "\(r.stderr)")
        let target = w.library + "/2021/03/IMG_0001.JPG"
        #expect(r.stdoutLines == [target])
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(try await LibraryCLI.sameBytes(target, src))
        #expect(try await LibraryCLI.sameBytes(src, copy) && LibraryCLI.modified(src) == mtime, "the source is unchanged")
        #expect(LibraryCLI.modified(target) == mtime, "the copy keeps the mtime")
        #expect(try await LibraryCLI.listed(library: w.library, data: w.data) == [target])
    }

    @Test func alreadyInTheLibraryWritesNothing() async throws {
        let w = try LibraryCLIWorld()
        let src = try await w.source("dated.jpg", as: "a.jpg")
        #expect(try await w.importing([src]).status == 0)
        let files = w.libraryFiles()
        let again = try await w.source("dated.jpg", as: "renamed.jpg")
        let r = try await w.importing([again])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(r.stderrLines == ["gpick: already in the library: \(w.library)/2021/03/a.jpg"])
        #expect(w.libraryFiles() == files)
        // The same as an event.
        let j = try await w.importing(["--json", again])
        #expect(j.status == 0)
        let dup = LibraryCLI.events(j.stdout).first { $0["event"] as? String == "duplicate" }
        #expect(dup?["path"] as? String == "\(w.library)/2021/03/a.jpg" && dup?["source"] as? String == again)
        let finished = LibraryCLI.events(j.stdout).first { $0["event"] as? String == "finished" }
        #expect(finished?["duplicates"] as? Int == 1 && finished?["imported"] as? Int == 0)
    }

    @Test func nameClashAndLiteralNames() async throws {
        let w = try LibraryCLIWorld()
        #expect(try await w.importing([try await w.source("dated.jpg", as: "%s%n.jpg")]).status == 0)
        try FileManager.default.createDirectory(atPath: w.sources + "/other", withIntermediateDirectories: true)
        let other = try await w.source("dated.jpg", as: "%s%n.jpg", extra: "other", in: w.sources + "/other")
        let r = try await w.importing([other])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == ["\(w.library)/2021/03/%s%n (1).jpg"])
        #expect(w.libraryFiles() == ["2021/03/%s%n (1).jpg", "2021/03/%s%n.jpg"])
        #expect(try await LibraryCLI.sameBytes("\(w.library)/2021/03/%s%n (1).jpg", other))
    }

    @Test func moveRemovesTheSourceOnceImported() async throws {
        let w = try LibraryCLIWorld()
        let src = try await w.source("dated.jpg", as: "m.jpg")
        let copy = w.base + "/original.jpg"
        try FileManager.default.copyItem(atPath: src, toPath: copy)
        let r = try await w.importing(["--move", "--json", src])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: src))
        let imported = LibraryCLI.events(r.stdout).first { $0["event"] as? String == "imported" }
        #expect(imported?["moved"] as? Bool == true && imported?["path"] as? String == "\(w.library)/2021/03/m.jpg")
        #expect(try await LibraryCLI.sameBytes("\(w.library)/2021/03/m.jpg", copy))
        // The event names the asset as `library list` does: a script follows the import by id.
        let listed = try await LibraryCLI.run(["library", "list", "--library", w.library, "--json"], data: w.data)
        let asset = LibraryCLI.events(listed.stdout).first { $0["event"] as? String == "asset" }
        #expect(asset?["path"] as? String == "\(w.library)/2021/03/m.jpg")
        #expect((imported?["id"] as? Int).map { $0 > 0 } == true && imported?["id"] as? Int == asset?["id"] as? Int, "\(r.stdout) \(listed.stdout)")
    }

    @Test func badFilesOneLineEachAndTheGoodOneImported() async throws {
        let w = try LibraryCLIWorld()
        let missing = w.sources + "/missing.jpg"
        let text = try await w.source("text.jpg", as: "notes.jpg")
        let good = try await w.source("dated.jpg", as: "good.jpg")
        let r = try await w.importing([missing, text, good])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stdoutLines == ["\(w.library)/2021/03/good.jpg"])
        #expect(r.stderrLines.count == 2, "\(r.stderr)")
        #expect(r.stderrLines.first == "gpick: error: no such file: \(missing)")
        #expect(r.stderrLines.last?.hasPrefix("gpick: error: \(text) is not a photo or video") == true)
        #expect(w.libraryFiles() == ["2021/03/good.jpg"])
        #expect(try await LibraryCLI.listed(library: w.library, data: w.data) == ["\(w.library)/2021/03/good.jpg"])
    }

    @Test func noFileIsAUsageError() async throws {
        let w = try LibraryCLIWorld()
        let r = try await w.importing([])
        #expect(r.status == 64)
        #expect(r.stderrLines.count == 1, "\(r.stderr)")
    }
}
