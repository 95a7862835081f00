import Foundation
import GpickBase
import GpickTestSupport
import Testing
@testable import GpickLibrary

/// Scans of real trees: files written by GStreamer, ffmpeg and exiftool (MediaFixtures), laid
/// out the way cameras and phones name them, read back from a real SQLite index.
@Suite struct ScanTests {
    /// A library tree and its own index.
    struct Library {
        let folder = TemporaryFolder("library")
        var root: String { folder.path + "/Pictures" }
        var index: LibraryIndex
        var roots: MediaRoots { MediaRoots(paths: [root]) }

        init(_ files: [String: String]) async throws {
            let fx = try await MediaFixtures.get()
            try FileManager.default.createDirectory(atPath: folder.path + "/Pictures", withIntermediateDirectories: true)
            for (name, fixture) in files {
                let target = folder.path + "/Pictures/" + name
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: fx.path(fixture), toPath: target)
            }
            index = try LibraryIndex.open(path: folder.path + "/data/gpick/library.sqlite")
        }

        func scan() async throws -> ScanSummary {
            let scanner = LibraryScanner(index: index, roots: roots)
            return try await OffPool.run { () throws(GpickError) in try scanner.scan() }
        }

        func list(_ kind: AssetQuery.Kind? = nil, unreadable: Bool = false) throws -> [String: ListedAsset] {
            let listed = try index.list(AssetQuery(kind: kind, includeUnreadable: unreadable, roots: roots))
            return Dictionary(uniqueKeysWithValues: listed.map { (String($0.asset.path.dropFirst(root.count + 1)), $0) })
        }
    }

    static let tree: [String: String] = [
        // An Apple pair named apart, the movie written by exiftool (Keys:ContentIdentifier).
        "DCIM/IMG_0001.JPG": "apple.jpg", "exports/clip_77.MOV": "keys.mov",
        // Apple's own naming trap: IMG_1234_3.MOV is not IMG_1234.JPG's movie (another UUID).
        "DCIM/IMG_1234.JPG": "a.jpg", "DCIM/IMG_1234_3.MOV": "apple.mov",
        // Motion Photos: Google by concatenation, stripped by an editor, MicroVideo v1, Samsung, gpick's own.
        "pixel/PXL_1.MP.jpg": "google.jpg", "pixel/PXL_2.MP.jpg": "stripped.jpg", "pixel/old.jpg": "micro.jpg",
        "galaxy/20240101_1.jpg": "samsung.jpg", "gpick/live.MP.jpg": "gpick.MP.jpg",
        // gpick's numbered burst, a panorama (GPano) marked as an iOS screenshot, a video, a broken file.
        "burst/shot-001.jpg": "a.jpg", "burst/shot-002.jpg": "a.jpg", "burst/shot-003.jpg": "a.jpg",
        "pano.jpg": "exif.jpg", "clips/v.mp4": "v.mp4", "broken.jpg": "thumb.jpg",
        // A split recording's numbered parts: videos, never a burst.
        "clips/rec-001.mp4": "v.mp4", "clips/rec-002.mp4": "v.mp4",
    ]

    /// A refresh told of the same path twice, and of one whose file is gone: the gone one leaves
    /// the index (the found files are counted once each).
    @Test func aRefreshWithARepeatedPathStillRemovesTheGoneFile() async throws {
        let lib = try await Library(["a.jpg": "a.jpg", "b.jpg": "a.jpg"])
        #expect(try await lib.scan().added == 2)
        try FileManager.default.removeItem(atPath: lib.root + "/b.jpg")
        let scanner = LibraryScanner(index: lib.index, roots: lib.roots)
        let paths = [lib.root + "/a.jpg", lib.root + "/a.jpg", lib.root + "/b.jpg"]
        let summary = try await OffPool.run { () throws(GpickError) in try scanner.refresh(paths: paths) }
        #expect(summary.removed == 1 && summary.found == 1, "\(summary)")
        #expect(try lib.list().keys.sorted() == ["a.jpg"])
    }

    @Test func pairsAndSubtypesComeFromContentNotNames() async throws {
        let lib = try await Library(Self.tree)
        // Truncate one file inside its header: indexed as unreadable, with the reason.
        let broken = lib.root + "/broken.jpg"
        try Data(try Data(contentsOf: URL(fileURLWithPath: broken)).prefix(40)).write(to: URL(fileURLWithPath: broken))
        let summary = try await lib.scan()
        #expect(summary.found == Self.tree.count)
        #expect(summary.livePairs == 1)
        #expect(summary.motionPhotos == 4)
        #expect(summary.bursts == 1)
        #expect(summary.unreadable == 1)

        let all = try lib.list(unreadable: true)
        // The pair's movie is part of its photo; the other movie is a video of its own.
        #expect(all["exports/clip_77.MOV"] == nil)
        #expect(all["DCIM/IMG_0001.JPG"]?.asset.pairedMovie == lib.root + "/exports/clip_77.MOV")
        #expect(all["DCIM/IMG_1234.JPG"]?.asset.live == false)
        #expect(all["DCIM/IMG_1234_3.MOV"]?.asset.kind == .video)
        #expect(all["DCIM/IMG_1234_3.MOV"]?.asset.companionOf == nil)
        #expect(all["clips/rec-001.mp4"]?.asset.burst == false && all["clips/rec-002.mp4"]?.asset.burst == false)

        let live = Set(try lib.list(.live).keys)
        #expect(live == ["DCIM/IMG_0001.JPG", "pixel/PXL_1.MP.jpg", "pixel/old.jpg", "galaxy/20240101_1.jpg", "gpick/live.MP.jpg"])
        #expect(all["pixel/PXL_2.MP.jpg"]?.asset.live == false, "a stripped Motion Photo is a plain photo")
        #expect(all["galaxy/20240101_1.jpg"]?.asset.motionKind == "samsung")
        #expect(all["pixel/old.jpg"]?.asset.motionKind == "microVideo")

        // The Motion Photo's video is really where the index says.
        let pxl = try #require(all["pixel/PXL_1.MP.jpg"]?.asset)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: pxl.path))
        let offset = Int(try #require(pxl.motionVideoOffset))
        #expect(String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == "ftyp")
        #expect(Int64(bytes.count - offset) == pxl.motionVideoLength)

        // One burst of three, listed once.
        let bursts = try lib.list(.burst)
        #expect(bursts.count == 1)
        #expect(bursts["burst/shot-001.jpg"]?.burstCount == 3)
        #expect(all["burst/shot-002.jpg"] == nil)

        let pano = try #require(all["pano.jpg"]?.asset)
        #expect(pano.panorama && pano.screenshot)
        #expect(pano.orientation == 6 && pano.displaySize?.width == 480)
        // 2023:07:14 18:05:09 at +02:00.
        #expect(pano.takenAt == 1_689_350_709)

        let video = try #require(all["clips/v.mp4"]?.asset)
        #expect(video.kind == .video && video.mimeType == "video/mp4")
        #expect(abs((video.duration ?? 0) - 1.0) < 0.01)
        #expect(video.width == 320 && video.height == 240)

        let bad = try #require(all["broken.jpg"]?.asset)
        #expect(bad.unreadable != nil && !(bad.unreadable ?? "").contains(lib.root))
        #expect(try lib.list()["broken.jpg"] == nil, "unreadable files are listed only when asked")
    }

    @Test func rescansAreIncrementalAndKeepMovedFiles() async throws {
        let lib = try await Library(["a.jpg": "a.jpg", "b.jpg": "dateonly.jpg", "c.mp4": "v.mp4", "d.jpg": "exif.jpg"])
        let first = try await lib.scan()
        #expect(first.added == 4)
        let again = try await lib.scan()
        #expect(again.unchanged == 4 && again.added == 0 && again.updated == 0 && again.removed == 0)

        let before = try lib.list()
        let fm = FileManager.default
        try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)], ofItemAtPath: lib.root + "/a.jpg")
        try fm.removeItem(atPath: lib.root + "/b.jpg")
        try fm.createDirectory(atPath: lib.root + "/sub", withIntermediateDirectories: true)
        try fm.moveItem(atPath: lib.root + "/c.mp4", toPath: lib.root + "/sub/c.mp4")
        let changed = try await lib.scan()
        #expect(changed.updated == 1 && changed.removed == 1 && changed.moved == 1 && changed.unchanged == 1 && changed.added == 0)

        let after = try lib.list()
        #expect(after["b.jpg"] == nil)
        #expect(after["sub/c.mp4"]?.asset.id == before["c.mp4"]?.asset.id)
        #expect(after["sub/c.mp4"]?.asset.addedAt == before["c.mp4"]?.asset.addedAt)
        // a.jpg has no EXIF date: its taken date follows the new mtime.
        #expect(after["a.jpg"]?.asset.takenAt == 1_600_000_000)
    }

    @Test func symlinksAreFollowedOnlyInsideTheRoots() async throws {
        let lib = try await Library(["in/a.jpg": "a.jpg"])
        let outside = TemporaryFolder("outside")
        try FileManager.default.copyItem(atPath: try await MediaFixtures.get().path("a.jpg"), toPath: outside.path + "/secret.jpg")
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: lib.root + "/etc", withDestinationPath: "/etc")
        try fm.createSymbolicLink(atPath: lib.root + "/out", withDestinationPath: outside.path)
        try fm.createSymbolicLink(atPath: lib.root + "/secret.jpg", withDestinationPath: outside.path + "/secret.jpg")
        try fm.createSymbolicLink(atPath: lib.root + "/again", withDestinationPath: lib.root + "/in")
        try fm.createSymbolicLink(atPath: lib.root + "/in/loop", withDestinationPath: lib.root)
        let summary = try await lib.scan()
        #expect(summary.found == 1)
        #expect(summary.linksLeavingRoots == 3)
        let paths = try lib.index.list(AssetQuery(includeUnreadable: true)).map(\.asset.path)
        #expect(paths == [lib.root + "/in/a.jpg"])
    }

    @Test func aDamagedIndexIsNamedAndRebuiltOnRequest() async throws {
        let folder = TemporaryFolder()
        let path = folder.path + "/library.sqlite"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try LibraryIndex.open(path: path)
            Issue.record("a damaged index opened")
        } catch {
            #expect(error.kind == .input && error.remedy == .rebuildIndex)
            #expect(error.message.contains(path) && error.message.contains("damaged"), "\(error.message)")
        }
        let aside = try LibraryIndex.setAside(path: path)
        #expect(aside == path + ".damaged")
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"), "the damaged file is kept")
        let index = try LibraryIndex.open(path: path)
        #expect(try index.count() == 0)
    }

    /// One DatabasePool per index file in a process, as GRDB asks: every caller that names the
    /// same file, by whatever path, shares one index; setting the file aside lets a new one open.
    @Test func eachIndexFileIsOpenedOncePerProcess() async throws {
        let folder = TemporaryFolder()
        let path = folder.path + "/data/library.sqlite"
        let index = try LibraryIndex.open(path: path)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: folder.path + "/data")
        for same in [path, folder.path + "/data/../data/./library.sqlite", folder.path + "/link/library.sqlite"] {
            #expect(try LibraryIndex.open(path: same) === index, "\(same)")
        }
        #expect(try LibraryIndex.open(path: folder.path + "/other.sqlite") !== index)
        _ = try LibraryIndex.setAside(path: path)
        #expect(try LibraryIndex.open(path: path) !== index)
    }

    /// An asset found by its exact path, as the picker finds what it just imported: the same
    /// name in another folder is another asset; a burst comes with its count.
    @Test func anAssetIsFoundByItsExactPath() async throws {
        let lib = try await Library(["a/IMG_1.jpg": "a.jpg", "b/IMG_1.jpg": "exif.jpg",
                               "burst/shot-001.jpg": "a.jpg", "burst/shot-002.jpg": "a.jpg", "burst/shot-003.jpg": "a.jpg"])
        _ = try await lib.scan()
        let b = try #require(try lib.index.listed(path: lib.root + "/b/IMG_1.jpg"))
        #expect(b.asset.path == lib.root + "/b/IMG_1.jpg" && b.burstCount == 1)
        #expect(try lib.index.listed(path: lib.root + "/a/IMG_1.jpg")?.asset.id != b.asset.id)
        #expect(try lib.index.listed(path: lib.root + "/burst/shot-002.jpg")?.burstCount == 3)
        #expect(try lib.index.listed(path: lib.root + "/IMG_1.jpg") == nil)
    }
}
