import Foundation
import GpickBase
import GpickTestSupport
import Testing

/// `gpick library scan|list` as a user runs them: through gpick, which hands over to
/// gpick-library; permissions checked as an ordinary user (setpriv), since tests run as root.
@Suite struct LibraryScanCLITests {
    /// A tree readable by everyone, and a data home for the index.
    struct Tree {
        let dir = TestEnvironment.tempDir("library")
        var root: String { dir + "/Pictures" }
        var env: [String: String] { ["XDG_DATA_HOME": dir + "/data", "HOME": dir] }

        init(_ files: [String: String]) async throws {
            let fx = try await MediaFixtures.get()
            for (name, fixture) in files {
                let target = root + "/" + name
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: fx.path(fixture), toPath: target)
            }
            for d in [dir, dir + "/data"] {
                try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            }
            _ = try Subprocess.runSync("/bin/chmod", ["-R", "a+rwX", dir])
            _ = try Subprocess.runSync("/bin/chmod", ["a+rx", "/tmp/gpick-tests"])
        }

        /// Every file's bytes (all of them: Data's hash reads only the first 80) and mtime, to
        /// prove nothing was changed.
        func state() throws -> [String: String] {
            var out: [String: String] = [:]
            for case let name as String in FileManager.default.enumerator(atPath: root)! {
                let p = root + "/" + name
                guard isDirectory(p) == false, let data = FileManager.default.contents(atPath: p) else { continue }
                let mtime = (try FileManager.default.attributesOfItem(atPath: p)[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                out[name] = "\(data.base64EncodedString()) \(mtime)"
            }
            return out
        }
    }

    /// gpick as the unprivileged user nobody.
    static func asNobody(_ args: [String], env: [String: String]) async throws -> Subprocess.Result {
        try await Subprocess.run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
                                                      "/usr/bin/env"] + env.map { "\($0)=\($1)" } + [TestEnvironment.binary] + args)
    }

    @Test func scanThenListWithoutChangingAnyFile() async throws {
        let tree = try await Tree(["a.jpg": "a.jpg", "DCIM/IMG_0001.JPG": "apple.jpg", "DCIM/clip.MOV": "keys.mov",
                             "b.MP.jpg": "google.jpg", "v.mp4": "v.mp4"])
        let before = try tree.state()
        let scan = try await Subprocess.gpick(["library", "scan", "--library", tree.root, "--json"], env: tree.env)
        #expect(scan.status == 0, "\(scan.stderr)")
        let finished = try #require(scan.stdoutLines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(finished["event"] as? String == "finished")
        #expect(finished["found"] as? Int == 5 && finished["added"] as? Int == 5 && finished["live-pairs"] as? Int == 1)

        let list = try await Subprocess.gpick(["library", "list", "--library", tree.root, "--json"], env: tree.env)
        #expect(list.status == 0, "\(list.stderr)")
        let assets = list.events
            .filter { $0["event"] as? String == "asset" }
        #expect(assets.count == 4, "the pair's movie is part of its photo")
        let apple = try #require(assets.first { ($0["path"] as? String)?.hasSuffix("IMG_0001.JPG") == true })
        #expect(apple["subtypes"] as? [String] == ["live"])
        #expect(apple["paired-movie"] as? String == tree.root + "/DCIM/clip.MOV")
        let motion = try #require(assets.first { ($0["path"] as? String)?.hasSuffix("b.MP.jpg") == true })
        #expect((motion["motion-photo"] as? [String: Any])?["kind"] as? String == "google")

        let live = try await Subprocess.gpick(["library", "list", "--library", tree.root, "--kind", "live"], env: tree.env)
        #expect(live.stdoutLines.count == 2, "\(live.stdout)")
        #expect(live.stdoutLines.allSatisfy { $0.split(separator: "\t").count == 6 })
        #expect(try tree.state() == before, "scan and list changed a file")
    }

    @Test func anUnreadableRootIsOneLineAndAnUnreadableFileIsIndexedWithTheReason() async throws {
        let tree = try await Tree(["ok.jpg": "a.jpg", "private.jpg": "a.jpg"])
        let locked = tree.dir + "/Locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        _ = try Subprocess.runSync("/bin/chmod", ["000", locked, tree.root + "/private.jpg"])
        let r = try await Self.asNobody(["library", "scan", "--library", tree.root, "--library", locked], env: tree.env)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderrLines
        #expect(lines.filter { $0.contains(locked) }.count == 1, "\(r.stderr)")
        #expect(lines.contains { $0.contains(locked) && $0.contains("permission denied") }, "\(r.stderr)")
        #expect(lines.contains { $0.contains("private.jpg") && $0.contains("permission denied") }, "\(r.stderr)")

        let list = try await Self.asNobody(["library", "list", "--library", tree.root, "--unreadable"], env: tree.env)
        let row = list.stdoutLines.first { $0.hasSuffix("/private.jpg") } ?? ""
        #expect(row.contains("unreadable: ") && row.contains("permission denied"), "\(list.stdout)")
    }

    @Test func aLockedIndexGetsAClearMessage() async throws {
        let tree = try await Tree(["a.jpg": "a.jpg"])
        let first = try await Subprocess.gpick(["library", "scan", "--library", tree.root], env: tree.env)
        #expect(first.status == 0, "\(first.stderr)")
        // Another process holds the write lock.
        let sqlite = try Subprocess.start("/usr/bin/sqlite3", [tree.dir + "/data/gpick/library.sqlite"], stdinPipe: true)
        sqlite.send("BEGIN EXCLUSIVE;\nSELECT 'locked';\n")
        _ = try await sqlite.waitForOutput("locked")
        try FileManager.default.copyItem(atPath: try await MediaFixtures.get().path("a.jpg"), toPath: tree.root + "/b.jpg")
        let r = try await Subprocess.gpick(["library", "scan", "--library", tree.root], env: tree.env, timeout: 20)
        sqlite.closeInput()
        _ = try await sqlite.wait(timeout: 10)
        #expect(r.status != 0)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("locked by another process"), "\(r.stderr)")
        #expect(r.stderr.contains(tree.dir + "/data/gpick/library.sqlite"))
        // Nothing lost: the next scan works and finds both.
        let again = try await Subprocess.gpick(["library", "scan", "--library", tree.root, "--json"], env: tree.env)
        #expect(again.status == 0 && again.stdout.contains("\"found\":2"), "\(again.stderr)")
    }

    /// Reliability check 30, a damaged index: scan and list say so in one line, naming the file and
    /// the way out; `scan --rebuild` builds it anew, keeping the damaged file aside as it was.
    @Test func aDamagedIndexIsNamedAndRebuiltOnRequest() async throws {
        let tree = try await Tree(["a.jpg": "a.jpg", "DCIM/IMG_0001.JPG": "apple.jpg"])
        let index = tree.dir + "/data/gpick/library.sqlite"
        #expect(try await Subprocess.gpick(["library", "scan", "--library", tree.root], env: tree.env).status == 0)
        // Everything in the file itself (no WAL), then its header overwritten.
        let checkpoint = try await Subprocess.run("/usr/bin/sqlite3", [index, "PRAGMA wal_checkpoint(TRUNCATE);"])
        #expect(checkpoint.status == 0, "\(checkpoint.stderr)")
        let handle = try #require(FileHandle(forWritingAtPath: index))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 100))
        try handle.close()
        let damaged = try Data(contentsOf: URL(fileURLWithPath: index))
        for args in [["library", "scan", "--library", tree.root], ["library", "list", "--library", tree.root]] {
            let r = try await Subprocess.gpick(args, env: tree.env)
            #expect(r.status == 65, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderrLines.count == 1 && r.stderr.contains("\(index) is damaged") && r.stderr.contains("--rebuild"), "\(args): \(r.stderr)")
        }
        let rebuilt = try await Subprocess.gpick(["library", "scan", "--library", tree.root, "--rebuild", "--json"], env: tree.env)
        #expect(rebuilt.status == 0 && rebuilt.stdout.contains("\"found\":2") && rebuilt.stdout.contains("\"added\":2"), "\(rebuilt.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: index + ".damaged")) == damaged, "the damaged index was not kept as it was")
        let list = try await Subprocess.gpick(["library", "list", "--library", tree.root], env: tree.env)
        #expect(list.status == 0 && list.stdoutLines.count == 2, "\(list.stdout)\(list.stderr)")
    }

    @Test func badOptionsAreOneUsageLine() async throws {
        for args in [["library", "list", "--kind", "selfie"], ["library", "list", "--since", "yesterdayish"], ["library", "list", "--limit", "-1"]] {
            let r = try await Subprocess.gpick(args, env: ["XDG_DATA_HOME": TestEnvironment.tempDir()])
            #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderrLines.count == 1, "\(args): \(r.stderr)")
        }
    }

    /// gpick hands `library` and `thumb` to gpick-library as it loads; without one beside it,
    /// gpick itself starts and says so in one line.
    @Test func withoutGpickLibraryBesideItGpickSaysSoInOneLine() async throws {
        let dir = TestEnvironment.tempDir()
        let bin = dir + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try TestEnvironment.placeBinary(at: bin + "/gpick")
        for args in [["library", "list"], ["thumb", "a.jpg", "-o", dir + "/t.png"]] {
            let r = try await Subprocess.run(bin + "/gpick", args, env: ["HOME": dir, "XDG_DATA_HOME": dir + "/data"])
            #expect(r.status == 69, "\(args): \(r.stderr)")
            #expect(r.stderrLines == ["gpick: error: gpick-library is not installed beside gpick (\(bin)/gpick-library); `make install` installs it"])
        }
        #expect(TestEnvironment.files(in: dir) == ["bin"])
    }

    /// Installed, the helper is in PREFIX/libexec/gpick, off the PATH: gpick in PREFIX/bin finds
    /// it there, both as it loads (library, thumb) and from its commands (inspect of a photo).
    @Test func anInstalledGpickFindsItsHelperInLibexec() async throws {
        let dir = TestEnvironment.tempDir()
        let bin = dir + "/bin", libexec = dir + "/libexec/gpick"
        for d in [bin, libexec] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        try TestEnvironment.placeBinary(at: bin + "/gpick")
        let helper = (TestEnvironment.binary as NSString).deletingLastPathComponent + "/gpick-library"
        if link(helper, libexec + "/gpick-library") != 0 { try FileManager.default.copyItem(atPath: helper, toPath: libexec + "/gpick-library") }
        let photos = dir + "/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try await MediaFixtures.run([("/usr/bin/gst-launch-1.0", ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=64,height=48", "!",
                                                                  "jpegenc", "!", "filesink", "location=\(photos)/a.jpg"])])
        let env = ["HOME": dir, "XDG_DATA_HOME": dir + "/data", "XDG_CACHE_HOME": dir + "/cache"]
        let scan = try await Subprocess.run(bin + "/gpick", ["library", "scan", "--library", photos, "--json"], env: env)
        #expect(scan.status == 0 && scan.stdout.contains("\"added\":1"), "\(scan.stdout) \(scan.stderr)")
        let thumb = try await Subprocess.run(bin + "/gpick", ["thumb", photos + "/a.jpg", "-o", dir + "/t.png"], env: env)
        #expect(thumb.status == 0 && FileManager.default.fileExists(atPath: dir + "/t.png"), "\(thumb.stderr)")
        let inspect = try await Subprocess.run(bin + "/gpick", ["inspect", photos + "/a.jpg"], env: env)
        #expect(inspect.status == 0 && inspect.stdout.contains("64x48"), "\(inspect.stdout) \(inspect.stderr)")
    }
}
