import Foundation
import GpickBase
import GpickLibrary
import GpickTestSupport
import Synchronization
import Testing

/// The library's import, through its API (the CLI's own tests are in CLITests).
@Suite struct ImportTests {
    final class Collected: Sendable {
        let events = Mutex<[ImportEvent]>([])
        func add(_ e: ImportEvent) { events.withLock { $0.append(e) } }
        var imported: [(source: String, path: String, moved: Bool)] {
            events.withLock { $0.compactMap { if case .imported(let s, let p, _, let m, _) = $0 { (s, p, m) } else { nil } } }
        }
        var assets: [Asset?] {
            events.withLock { $0.compactMap { if case .imported(_, _, _, _, let a) = $0 { .some(a) } else { nil } } }
        }
        var duplicates: [(source: String, existing: String)] {
            events.withLock { $0.compactMap { if case .duplicate(let s, let e) = $0 { (s, e) } else { nil } } }
        }
        var failures: [(source: String, error: GpickError)] {
            events.withLock { $0.compactMap { if case .failed(let s, let e) = $0 { (s, e) } else { nil } } }
        }
    }

    func run(_ world: ImportWorld, _ files: [String], move: Bool = false, roots: MediaRoots? = nil) throws -> (ImportSummary, Collected) {
        let c = Collected()
        let summary = try Importer(index: try world.index(), roots: roots ?? world.roots, move: move).run(files) { c.add($0) }
        return (summary, c)
    }

    @Test func landsInYearMonthOfTheExifDateUnchangedAndIndexed() async throws {
        let world = try ImportWorld()
        let src = try await world.source("dated.jpg", as: "IMG_0001.JPG")
        let before = (bytes: ImportKit.fileBytes(src), mtime: ImportKit.mtimeNs(src))
        let start = Int64(Date().timeIntervalSince1970)
        let (summary, c) = try run(world, [src])
        let end = Int64(Date().timeIntervalSince1970)

        let expected = world.library + "/2021/03/IMG_0001.JPG"
        #expect(summary.imported == 1 && summary.failed == 0 && summary.duplicates == 0)
        #expect(c.imported.map(\.path) == [expected])
        #expect(ImportKit.fileBytes(expected) == before.bytes, "the copy is byte for byte the source")
        #expect(ImportKit.mtimeNs(expected) == before.mtime, "the copy keeps the source's mtime")
        #expect(ImportKit.fileBytes(src) == before.bytes && ImportKit.mtimeNs(src) == before.mtime, "the source is untouched")
        #expect(world.libraryFiles() == ["2021/03/IMG_0001.JPG"], "nothing else written (no temp file left)")

        let listed = try world.index().list(AssetQuery(roots: world.roots))
        #expect(listed.count == 1)
        let asset = try #require(listed.first?.asset)
        #expect(asset.path == expected)
        #expect(asset.contentHash == (try ContentHash.sha256(path: src)))
        #expect((start...end).contains(asset.addedAt), "added at the time of the import, not the file's")
        #expect(asset.takenAt == ImportKit.localUnixTime(2021, 3, 4, 5, 6, 7))
        // The event carries that row, id and all: no lookup by path after an import.
        #expect(c.assets == [asset])
        #expect(asset.id != nil)
    }

    @Test func sameContentAgainIsAlreadyInTheLibrary() async throws {
        let world = try ImportWorld()
        let a = try await world.source("dated.jpg", as: "a.jpg")
        _ = try run(world, [a])
        let files = world.libraryFiles()
        // Another name, another folder, and twice in one run: still the same content.
        try FileManager.default.createDirectory(atPath: world.sources + "/card", withIntermediateDirectories: true)
        let b = try await world.source("dated.jpg", as: "b.jpg", in: world.sources + "/card")
        let (summary, c) = try run(world, [b, a])
        #expect(summary.duplicates == 2 && summary.imported == 0 && summary.failed == 0)
        #expect(c.duplicates.map(\.existing) == [world.library + "/2021/03/a.jpg", world.library + "/2021/03/a.jpg"])
        #expect(world.libraryFiles() == files, "nothing written")
        #expect(ImportKit.fileBytes(b) != nil, "a duplicate's source stays")
    }

    @Test func duplicateOfAScannedFileIsFoundAndItsHashKept() async throws {
        let world = try ImportWorld()
        try FileManager.default.createDirectory(atPath: world.library + "/old", withIntermediateDirectories: true)
        let existing = try await world.source("plain.jpg", as: "kept.jpg", variant: 7, in: world.library + "/old")
        let other = try await world.source("plain.jpg", as: "same-size.jpg", variant: 8, in: world.library + "/old")
        let index = try world.index()
        _ = try LibraryScanner(index: index, roots: world.roots).scan()
        #expect(try index.list(AssetQuery()).allSatisfy { $0.asset.contentHash == nil })

        let src = try await world.source("plain.jpg", as: "again.jpg", variant: 7)
        let (summary, c) = try run(world, [src])
        #expect(summary.duplicates == 1)
        #expect(c.duplicates.first?.existing == existing)
        let hashes = Dictionary(uniqueKeysWithValues: try index.list(AssetQuery()).map { ($0.asset.path, $0.asset.contentHash) })
        #expect(hashes[existing] == (try ContentHash.sha256(path: existing)), "computed once, then stored")
        #expect(hashes[other] != nil, "assets of the same size are hashed to be compared")
    }

    @Test func nameClashWithOtherContentGetsAnotherName() async throws {
        let world = try ImportWorld()
        _ = try run(world, [try await world.source("dated.jpg", as: "a.jpg")])
        let first = ImportKit.fileBytes(world.library + "/2021/03/a.jpg")
        try FileManager.default.createDirectory(atPath: world.sources + "/2", withIntermediateDirectories: true)
        let other = try await world.source("dated.jpg", as: "a.jpg", variant: 1, in: world.sources + "/2")
        let (summary, c) = try run(world, [other])
        #expect(summary.imported == 1)
        #expect(c.imported.map(\.path) == [world.library + "/2021/03/a (1).jpg"])
        #expect(ImportKit.fileBytes(world.library + "/2021/03/a.jpg") == first, "never overwritten")
        #expect(ImportKit.fileBytes(world.library + "/2021/03/a (1).jpg") == ImportKit.fileBytes(other))
        #expect(try world.index().count() == 2)
    }

    @Test func moveOnOneFileSystemRenames() async throws {
        let world = try ImportWorld()
        let src = try await world.source("dated.jpg", as: "m.jpg")
        let (ino, mtime, bytes) = (ImportKit.inode(src), ImportKit.mtimeNs(src), ImportKit.fileBytes(src))
        let (summary, c) = try run(world, [src], move: true)
        let target = world.library + "/2021/03/m.jpg"
        #expect(summary.imported == 1 && c.imported.first?.moved == true)
        #expect(!FileManager.default.fileExists(atPath: src))
        #expect(ImportKit.inode(target) == ino && ImportKit.mtimeNs(target) == mtime && ImportKit.fileBytes(target) == bytes)
        #expect(try world.index().list(AssetQuery()).map(\.asset.path) == [target])
    }

    @Test func moveAcrossFileSystemsCopiesThenRemoves() async throws {
        let world = try ImportWorld()
        let shm = "/dev/shm/gpick-import-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: shm, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: shm) }
        let src = try await world.source("dated.jpg", as: "x.jpg", in: shm)
        let (mtime, bytes) = (ImportKit.mtimeNs(src), ImportKit.fileBytes(src))
        let (summary, c) = try run(world, [src], move: true)
        let target = world.library + "/2021/03/x.jpg"
        #expect(summary.imported == 1 && c.imported.first?.moved == true)
        #expect(!FileManager.default.fileExists(atPath: src))
        #expect(ImportKit.fileBytes(target) == bytes && ImportKit.mtimeNs(target) == mtime)
    }

    @Test func moveKeepsTheSourceWhenTheCopyFails() async throws {
        let world = try ImportWorld()
        let tiny = try TmpfsMount(sizeKiB: 64)
        defer { tiny.unmount() }
        // 200 KB: more than the library's file system holds.
        let src = world.sources + "/big.jpg"
        var data = try await ImportFixtures.get().bytes("dated.jpg")
        data.append(Data(repeating: 0x55, count: 200_000))
        try data.write(to: URL(fileURLWithPath: src))
        let (summary, c) = try run(world, [src], move: true, roots: MediaRoots(paths: [tiny.path]))
        #expect(summary.failed == 1 && summary.imported == 0)
        #expect(c.failures.first?.error.message.contains("no space left") == true, "\(c.failures.map(\.error.message))")
        #expect(ImportKit.fileBytes(src) == data, "the source stays until its copy is durable")
        let left = FileManager.default.enumerator(atPath: tiny.path)?.allObjects.compactMap { $0 as? String } ?? []
        #expect(left.allSatisfy { !$0.contains(".gpick-import-") }, "no half-written file: \(left)")
    }

    @Test func applePairLandsTogetherBesideThePhoto() async throws {
        let world = try ImportWorld()
        // user-dirs: Pictures and Videos, so a lone video would go to Videos.
        let home = world.base + "/home"
        try FileManager.default.createDirectory(atPath: home + "/.config", withIntermediateDirectories: true)
        try "XDG_PICTURES_DIR=\"$HOME/Pics\"\nXDG_VIDEOS_DIR=\"$HOME/Vids\"\n".write(toFile: home + "/.config/user-dirs.dirs", atomically: false, encoding: .utf8)
        let roots = MediaRoots.resolve(explicit: [], environment: ["HOME": home])
        #expect(roots.videosFolder == home + "/Vids")
        let photo = try await world.source("live.jpg", as: "IMG_1.JPG")
        let movie = try await world.source("live.mov", as: "IMG_1.MOV")
        let lone = try await world.source("q.mov", as: "clip.mov")
        let (summary, c) = try run(world, [movie, lone, photo], roots: roots)  // the movie first: order does not matter
        #expect(summary.imported == 3, "\(c.failures.map(\.error.message))")
        let folder = home + "/Pics/" + ImportKit.monthFolder(ImportKit.localUnix(2020, 6, 15))
        let paths = Dictionary(uniqueKeysWithValues: c.imported.map { ($0.source, $0.path) })
        #expect(paths[photo] == folder + "/IMG_1.JPG")
        #expect(paths[movie] == folder + "/IMG_1.MOV", "the movie follows its photo, keeping its own name")
        #expect(paths[lone]?.hasPrefix(home + "/Vids/") == true, "a video alone goes to Videos")
        let assets = try world.index().list(AssetQuery(roots: roots)).map(\.asset)
        let still = try #require(assets.first { $0.path == folder + "/IMG_1.JPG" })
        #expect(still.live && still.pairedMovie == folder + "/IMG_1.MOV", "indexed as one live photo")
        #expect(!assets.contains { $0.path == folder + "/IMG_1.MOV" }, "the movie is its photo's part, not listed alone")
    }

    @Test func badFilesFailOneByOneWhileTheGoodOneIsImported() async throws {
        let world = try ImportWorld()
        let missing = world.sources + "/missing.jpg"
        let text = try await world.source("text.jpg")
        let folder = world.sources + "/folder.jpg"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let good = try await world.source("dated.jpg", as: "good.jpg")
        let (summary, c) = try run(world, [missing, text, folder, good])
        #expect(summary.imported == 1 && summary.failed == 3 && summary.firstFailure == .input)
        #expect(c.imported.map(\.source) == [good])
        let failures = c.failures
        #expect(failures.map(\.source) == [missing, text, folder])
        for f in failures {
            #expect(f.error.message.contains(f.source) && !f.error.message.contains("\n"), "\(f.error.message)")
        }
        #expect(failures[0].error.message == "no such file: \(missing)")
        #expect(failures[1].error.message.hasPrefix("\(text) is not a photo or video"))
        #expect(failures[2].error.message == "\(folder) is a folder, not a photo or video")
        #expect(world.libraryFiles() == ["2021/03/good.jpg"])
    }

    @Test func namesAreLiteral() async throws {
        let world = try ImportWorld()
        let names = ["%s%n.jpg", "100% [x] $HOME `id`.jpg", "fête d’été.jpg"]
        var sources: [String] = []
        for (i, name) in names.enumerated() { sources.append(try await world.source("dated.jpg", as: name, variant: UInt8(i))) }
        let (summary, _) = try run(world, sources)
        #expect(summary.imported == 3)
        #expect(world.libraryFiles() == names.map { "2021/03/" + $0 }.sorted())
    }

    @Test func hiddenOrExtensionlessNamesBecomeVisibleMedia() async throws {
        let world = try ImportWorld()
        let hidden = try await world.source("dated.jpg", as: ".secret.jpg")
        let bare = try await world.source("dated.jpg", as: "DSC0001", variant: 3)
        let (summary, _) = try run(world, [hidden, bare])
        #expect(summary.imported == 2)
        #expect(world.libraryFiles() == ["2021/03/DSC0001.jpg", "2021/03/secret.jpg"])
        #expect(try world.index().count() == 2, "both are indexed")
    }

    @Test func noDateFallsBackToMtimeAndAYearFolderLinkedOutIsRefused() async throws {
        let world = try ImportWorld()
        let src = try await world.source("plain.jpg", as: "p.jpg")
        try ImportKit.setMtime(src, unix: ImportKit.localUnix(2019, 11, 2))
        let (summary, c) = try run(world, [src])
        #expect(summary.imported == 1)
        #expect(c.imported.first?.path == world.library + "/2019/11/p.jpg")
        // A year folder that is a link out of the library: nothing is written through it.
        let outside = world.base + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: world.library + "/2021", withDestinationPath: outside)
        let (s2, c2) = try run(world, [try await world.source("dated.jpg", as: "d.jpg")])
        #expect(s2.failed == 1 && s2.firstFailure == .output)
        #expect(c2.failures.first?.error.message.contains("leads out of the library") == true)
        #expect(TestEnvironment.files(in: outside).isEmpty)
    }
}

extension ImportKit {
    /// Unix seconds of a local wall time.
    static func localUnixTime(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int) -> Int64 {
        var t = tm()
        t.tm_year = Int32(y - 1900)
        t.tm_mon = Int32(mo - 1)
        t.tm_mday = Int32(d)
        t.tm_hour = Int32(h)
        t.tm_min = Int32(mi)
        t.tm_sec = Int32(s)
        t.tm_isdst = -1
        return Int64(mktime(&t))
    }
}
