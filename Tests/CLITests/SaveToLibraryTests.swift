import Foundation
import GpickTestSupport
import Testing

/// One test's folders: the captures (-o), an explicit library, user-dirs' Pictures and Videos (the
/// default roots, through $XDG_CONFIG_HOME), and the index's $XDG_DATA_HOME.
struct SaveWorld {
    let base: String
    var out: String { base + "/out" }
    var library: String { base + "/library" }
    var pictures: String { base + "/Pictures" }
    var videos: String { base + "/Videos" }
    var data: String { base + "/data" }
    var config: String { base + "/config" }
    var index: String { data + "/gpick/library.sqlite" }
    /// GStreamer's registry stays the user's (HOME is untouched): only the library is isolated.
    var env: [String: String] { ["XDG_DATA_HOME": data, "XDG_CONFIG_HOME": config, "GPICK_LIBRARY": ""] }

    init(_ name: String = #function) throws {
        base = TestEnvironment.tempDir(name)
        for d in [out, library, data, config] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        try "XDG_PICTURES_DIR=\"\(pictures)\"\nXDG_VIDEOS_DIR=\"\(videos)\"\n"
            .write(toFile: config + "/user-dirs.dirs", atomically: false, encoding: .utf8)
    }

    func gpick(_ args: [String]) async throws -> Subprocess.Result {
        try await Subprocess.gpick(args + ["--source", "test", "--width", "320", "--height", "240"], env: env)
    }

    /// `library list --json`'s assets (no scan before it: what the capture indexed).
    func listed(_ args: [String] = []) async throws -> [[String: Any]] {
        let r = try await Subprocess.run(LibraryCLI.binary, ["library", "list", "--json"] + args, env: env)
        guard r.status == 0 else { throw TestFailure("library list failed: \(r.stderr)") }
        return LibraryCLI.events(r.stdout).filter { $0["event"] as? String == "asset" }
    }

    /// `YYYY/MM` of the file's mtime in local time: where an undated capture goes (copies keep it).
    static func month(of path: String) throws -> String {
        let date = try #require(LibraryCLI.modified(path))
        let f = DateFormatter()
        f.dateFormat = "yyyy/MM"
        f.timeZone = .current
        return f.string(from: date)
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}

@Suite(.serialized) struct SaveToLibraryTests {
    @Test func stillLandsInYearAndMonthAndIsListedAtOnce() async throws {
        let w = try SaveWorld()
        let shot = w.out + "/a.jpg"
        let r = try await w.gpick(["snap", "-o", shot, "--save-to-library", "--library", w.library])
        #expect(r.status == 0, "\(r.stderr)")
        let saved = "\(w.library)/\(try SaveWorld.month(of: shot))/a.jpg"
        #expect(r.stdoutLines == [shot, saved])
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(try await LibraryCLI.sameBytes(saved, shot), "a copy: the file at -o stays")
        #expect(try await Media.frames(saved).first?.stamp?.sourceID == 1)
        let assets = try await w.listed(["--library", w.library])
        #expect(assets.map { $0["path"] as? String } == [saved])
        #expect(assets.first?["kind"] as? String == "photo")
    }

    @Test func burstLandsWholeAndListsAsOne() async throws {
        let w = try SaveWorld()
        let r = try await w.gpick(["snap", "--count", "3", "-o", w.out + "/b.jpg", "--save-to-library", "--library", w.library])
        #expect(r.status == 0, "\(r.stderr)")
        let shots = (1...3).map { "\(w.out)/b-00\($0).jpg" }
        let folder = "\(w.library)/\(try SaveWorld.month(of: shots[0]))"
        let saved = (1...3).map { "\(folder)/b-00\($0).jpg" }
        #expect(r.stdoutLines == shots + saved)
        var stamps: [Int?] = []
        for p in saved { stamps.append(try await Media.frames(p).first?.stamp?.index) }
        #expect(Media.isConsecutive(stamps, from: stamps.first.flatMap { $0 } ?? -1), "\(stamps)")
        let assets = try await w.listed(["--library", w.library])
        #expect(assets.count == 1, "\(assets)")
        #expect(assets.first?["path"] as? String == saved[0])
        #expect((assets.first?["burst"] as? [String: Any])?["count"] as? Int == 3, "\(assets)")
    }

    @Test func recordingLandsInTheVideosFolder() async throws {
        let w = try SaveWorld()
        let movie = w.out + "/r.mp4"
        // No --library: user-dirs' Pictures and Videos, and a movie goes to Videos.
        let r = try await w.gpick(["record", "--duration", "1", "-o", movie, "--save-to-library"])
        #expect(r.status == 0, "\(r.stderr)")
        let saved = "\(w.videos)/\(try SaveWorld.month(of: movie))/r.mp4"
        #expect(r.stdoutLines == [movie, saved])
        #expect(TestEnvironment.allFiles(under: w.pictures).isEmpty)
        #expect(try await LibraryCLI.sameBytes(saved, movie))
        let stamps = try await Media.stampIndices(saved)
        #expect(stamps.count == 30 && Media.isConsecutive(stamps, from: stamps.first.flatMap { $0 } ?? -1), "\(stamps)")
        let assets = try await w.listed()
        #expect(assets.map { $0["path"] as? String } == [saved])
        #expect(assets.first?["kind"] as? String == "video")
    }

    @Test func livePhotoLandsAsOnePair() async throws {
        let w = try SaveWorld()
        let r = try await w.gpick(["live", "-o", w.out + "/L", "--format", "apple", "--before", "0.5", "--after", "0.5",
                                   "--save-to-library", "--library", w.library])
        #expect(r.status == 0, "\(r.stderr)")
        let still = w.out + "/L.jpg", movie = w.out + "/L.mov"
        let folder = "\(w.library)/\(try SaveWorld.month(of: still))"
        #expect(r.stdoutLines == [still, movie, folder + "/L.jpg", folder + "/L.mov"])
        #expect(try await LibraryCLI.sameBytes(folder + "/L.jpg", still))
        #expect(try await LibraryCLI.sameBytes(folder + "/L.mov", movie))
        // The still's frame is in the movie (decoded from the library's copies).
        let stillStamp = try #require(try await Media.frames(folder + "/L.jpg").first?.stamp?.index)
        #expect(try await Media.stampIndices(folder + "/L.mov").contains(stillStamp))
        let assets = try await w.listed(["--library", w.library])
        #expect(assets.count == 1, "\(assets)")
        #expect(assets.first?["path"] as? String == folder + "/L.jpg")
        #expect(assets.first?["paired-movie"] as? String == folder + "/L.mov")
        #expect((assets.first?["subtypes"] as? [String])?.contains("live") == true, "\(assets)")
    }

    @Test func withoutTheFlagNothingTouchesTheLibrary() async throws {
        let w = try SaveWorld()
        let shot = w.out + "/n.jpg"
        let r = try await w.gpick(["snap", "-o", shot])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutLines == [shot])
        #expect(!SaveWorld.exists(w.index) && !SaveWorld.exists(w.data + "/gpick"), "no index")
        #expect(!SaveWorld.exists(w.pictures) && !SaveWorld.exists(w.videos))
        #expect(TestEnvironment.allFiles(under: w.library).isEmpty)
        // --library alone is a mistake, not silently nothing.
        let bad = try await w.gpick(["snap", "-o", w.out + "/m.jpg", "--library", w.library])
        #expect(bad.status == 64 && bad.stderrLines.count == 1, "\(bad.stderr)")
        #expect(!SaveWorld.exists(w.out + "/m.jpg"))
    }

    @Test func missingHelperIsOneLineAndTheStillIsKept() async throws {
        let w = try SaveWorld()
        // gpick alone in a folder (a hard link, so /proc/self/exe names this folder).
        let bin = w.base + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try TestEnvironment.placeBinary(at: bin + "/gpick")
        let shot = w.out + "/m.jpg"
        let r = try await Subprocess.run(bin + "/gpick", ["snap", "-o", shot, "--save-to-library", "--source", "test",
                                                          "--width", "320", "--height", "240",
                                                          "--pipelines", TestEnvironment.repoRoot + "/pipelines"], env: w.env)
        #expect(r.status == 69, "\(r.stderr)")
        #expect(r.stderrLines == ["gpick: error: gpick-library is not installed beside gpick (\(bin)/gpick-library); `make install` installs it"])
        #expect(r.stdoutLines == [shot])
        #expect(try await Media.frames(shot).first?.stamp?.sourceID == 1, "the still is whole")
        #expect(!SaveWorld.exists(w.index))
    }

    @Test func importFailureIsItsOneLineAndTheStillIsKept() async throws {
        let w = try SaveWorld()
        let notAFolder = w.base + "/library.txt"
        try "x".write(toFile: notAFolder, atomically: false, encoding: .utf8)
        let shot = w.out + "/f.jpg"
        let r = try await w.gpick(["snap", "-o", shot, "--save-to-library", "--library", notAFolder])
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderrLines == ["gpick: error: the library folder \(notAFolder) is not a folder"])
        #expect(r.stdoutLines == [shot])
        #expect(try await Media.frames(shot).first?.stamp?.sourceID == 1)
    }

    @Test func jsonReportsWhereEachFileLandedAndADuplicateIsNoError() async throws {
        let w = try SaveWorld()
        let shot = w.out + "/j.jpg"
        let r = try await w.gpick(["snap", "--json", "-o", shot, "--save-to-library", "--library", w.library])
        #expect(r.status == 0, "\(r.stderr)")
        let events = LibraryCLI.events(r.stdout)
        #expect(events.count == r.stdoutLines.count, "every line is one JSON event: \(r.stdout)")
        #expect(events.allSatisfy { $0["command"] as? String == "snap" })
        #expect(events.suffix(3).map { $0["event"] as? String } == ["capture-complete", "saved", "finished"])
        let saved = try #require(events.first { $0["event"] as? String == "saved" })
        let target = "\(w.library)/\(try SaveWorld.month(of: shot))/j.jpg"
        #expect(saved["path"] as? String == target && saved["source"] as? String == shot, "\(saved)")
        #expect(saved["duplicate"] as? Bool == false)
        #expect(saved["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int))

        // The test source's first still is the same frame each time, but each photo's EXIF holds
        // the moment it was taken: a second snap is a second photo, kept beside the first.
        let again = w.out + "/again.jpg"
        let d = try await w.gpick(["snap", "--json", "-o", again, "--save-to-library", "--library", w.library])
        #expect(d.status == 0, "\(d.stderr)")
        #expect(try await !LibraryCLI.sameBytes(again, shot))
        let second = try #require(LibraryCLI.events(d.stdout).first { $0["event"] as? String == "saved" })
        #expect(second["duplicate"] as? Bool == false && second["path"] as? String != target, "\(second)")
        #expect(TestEnvironment.allFiles(under: w.library).count == 2)
        // The same file saved again is a duplicate, and no error.
        let j = try await Subprocess.run(LibraryCLI.binary, ["library", "import", "--json", "--library", w.library, shot], env: w.env)
        #expect(j.status == 0, "\(j.stderr)")
        let dup = try #require(LibraryCLI.events(j.stdout).first { $0["event"] as? String == "duplicate" }, "\(j.stdout)")
        #expect(dup["path"] as? String == target, "\(dup)")
        #expect(TestEnvironment.allFiles(under: w.library).count == 2)
    }
}
