import Foundation
import GpickBase
import GpickLibrary
import GpickTestSupport
import Synchronization
import Testing

/// LibraryWatcher in this process, on a thread of its own as the CLI runs it. (The queue
/// overflow of the kernel is tested on the CLI, whose process a test can stop.)
@Suite struct WatchTests {
    final class Session: Sendable {
        let watcher: LibraryWatcher
        let index: LibraryIndex
        let roots: MediaRoots
        let events = Mutex<[WatchEvent]>([])
        let ended = Mutex<Result<Void, GpickError>?>(nil)
        /// When `run` returned, and when `stop` was called (monotonic).
        let endedAt = Mutex<ContinuousClock.Instant?>(nil)
        let stoppedAt = Mutex<ContinuousClock.Instant?>(nil)

        init(_ world: ImportWorld, maxPending: Int = 200) throws {
            index = try world.index()
            roots = world.roots
            watcher = try LibraryWatcher(index: index, roots: roots, settle: .milliseconds(100), maxPending: maxPending)
            detachThread(named: "watch-test") { [self] in
                let r = Result { () throws(GpickError) in try watcher.run { e in self.events.withLock { $0.append(e) } } }
                endedAt.withLock { $0 = .now }
                ended.withLock { $0 = r }
            }
        }

        func waitReady() async throws {
            let ready = try await TestEnvironment.eventually { events.withLock { $0.contains { if case .ready = $0 { true } else { false } } } }
            #expect(ready, "the watch never got ready: \(events.withLock { $0 })")
        }

        func stop() async throws {
            stoppedAt.withLock { $0 = .now }
            watcher.stop()
            let done = try await TestEnvironment.eventually { ended.withLock { $0 != nil } }
            #expect(done, "the watch did not end on stop()")
            if case .failure(let e)? = ended.withLock({ $0 }) { Issue.record("the watch failed: \(e)") }
        }

        var listed: [Asset] { (try? index.list(AssetQuery(roots: roots)))?.map(\.asset) ?? [] }
        func asset(_ path: String) -> Asset? { listed.first { $0.path == path } }

        func indexedCount(_ path: String) -> Int {
            events.withLock { $0.filter { if case .indexed(let p, _) = $0 { p == path } else { false } }.count }
        }

        /// Every event before this point has been handled: a marker file, indexed after them.
        func barrier(_ world: ImportWorld) async throws {
            let marker = try await world.source("dated.jpg", as: "marker-\(UUID().uuidString.prefix(6)).jpg", variant: 99, in: world.library, keepMtime: false)
            #expect(try await TestEnvironment.eventually { self.asset(marker) != nil }, "the marker was not indexed")
        }
    }

    @Test func fileWrittenSlowlyIsIndexedOnceWhenComplete() async throws {
        let world = try ImportWorld()
        let s = try Session(world)
        try await s.waitReady()
        let bytes = try await ImportFixtures.get().bytes("dated.jpg")
        let path = world.library + "/slow.jpg"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        let half = bytes.count / 2
        bytes.withUnsafeBytes { _ = write(fd, $0.baseAddress, half) }
        try await Task.sleep(nanoseconds: 300_000_000)  // longer than the settle time: still open, so not read
        #expect(s.asset(path) == nil, "a file still being written is not indexed")
        bytes.withUnsafeBytes { _ = write(fd, $0.baseAddress! + half, bytes.count - half) }
        close(fd)
        #expect(try await TestEnvironment.eventually { s.asset(path) != nil })
        try await s.barrier(world)
        let asset = try #require(s.asset(path))
        #expect(asset.size == Int64(bytes.count) && asset.width == 320 && asset.unreadable == nil, "read complete")
        #expect(s.indexedCount(path) == 1, "indexed once")
        try await s.stop()
    }

    @Test func deletedFileLeavesTheIndex() async throws {
        let world = try ImportWorld()
        let path = try await world.source("dated.jpg", as: "gone.jpg", in: world.library)
        let s = try Session(world)
        try await s.waitReady()
        #expect(s.asset(path) != nil, "indexed by the first scan")
        try FileManager.default.removeItem(atPath: path)
        #expect(try await TestEnvironment.eventually { s.asset(path) == nil })
        // Told after the index changed (the watcher reports what its commit did): waited for too.
        #expect(try await TestEnvironment.eventually { s.events.withLock { $0.contains { if case .removed(let p) = $0 { p == path } else { false } } } },
                "\(s.events.withLock { $0 })")
        try await s.stop()
    }

    @Test func newFoldersAreWatchedAsTheyAppear() async throws {
        let world = try ImportWorld()
        let s = try Session(world)
        try await s.waitReady()
        // Written at once after mkdir: before the watch on it can exist.
        let deep = world.library + "/2024/05/day"
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        let first = try await world.source("dated.jpg", as: "first.jpg", in: deep)
        #expect(try await TestEnvironment.eventually { s.asset(first) != nil })
        // And later ones, through the new watch.
        let second = try await world.source("dated.jpg", as: "second.jpg", variant: 2, in: deep)
        #expect(try await TestEnvironment.eventually { s.asset(second) != nil })
        // A folder moved in from outside the library, with a file.
        let outside = world.base + "/incoming"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let third = try await world.source("dated.jpg", as: "third.jpg", variant: 3, in: outside)
        _ = third
        try FileManager.default.moveItem(atPath: outside, toPath: world.library + "/incoming")
        #expect(try await TestEnvironment.eventually { s.asset(world.library + "/incoming/third.jpg") != nil })
        try await s.stop()
    }

    @Test func movedFileAndFolderKeepTheirIds() async throws {
        let world = try ImportWorld()
        try FileManager.default.createDirectory(atPath: world.library + "/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: world.library + "/b", withIntermediateDirectories: true)
        let path = try await world.source("dated.jpg", as: "m.jpg", in: world.library + "/a")
        let s = try Session(world)
        try await s.waitReady()
        let id = try #require(s.asset(path)?.id)
        try FileManager.default.moveItem(atPath: path, toPath: world.library + "/b/m.jpg")
        #expect(try await TestEnvironment.eventually { s.asset(world.library + "/b/m.jpg")?.id == id })
        #expect(s.asset(path) == nil)
        // The event is told after the index has the move (the watcher compares the rows before
        // and after writing them), so it may come a moment after the row is seen.
        #expect(try await TestEnvironment.eventually {
            s.events.withLock { $0.contains { if case .moved(let f, _, let i) = $0 { f == path && i == id } else { false } } }
        })
        // A whole folder.
        try FileManager.default.moveItem(atPath: world.library + "/b", toPath: world.library + "/c")
        #expect(try await TestEnvironment.eventually { s.asset(world.library + "/c/m.jpg")?.id == id })
        // Still watched under its new name.
        let later = try await world.source("dated.jpg", as: "later.jpg", variant: 4, in: world.library + "/c")
        #expect(try await TestEnvironment.eventually { s.asset(later) != nil })
        try await s.stop()
    }

    @Test func hiddenFoldersAndLinksOutAreNotWatched() async throws {
        let world = try ImportWorld()
        let outside = world.base + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: world.library + "/.hidden", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: world.library + "/out", withDestinationPath: outside)
        let s = try Session(world)
        try await s.waitReady()
        let hidden = try await world.source("dated.jpg", as: "h.jpg", in: world.library + "/.hidden")
        try await world.source("dated.jpg", as: "o.jpg", variant: 5, in: outside)
        try await world.source("dated.jpg", as: ".dot.jpg", variant: 6, in: world.library)
        try await s.barrier(world)
        let paths = s.listed.map(\.path)
        #expect(!paths.contains(hidden))
        #expect(!paths.contains { $0.hasPrefix(outside) || $0.hasPrefix(world.library + "/out/") || $0.hasSuffix(".dot.jpg") }, "\(paths)")
        try await s.stop()
    }

    @Test func tooManyChangesAtOnceRescan() async throws {
        let world = try ImportWorld()
        let s = try Session(world, maxPending: 3)
        try await s.waitReady()
        // Six files at once: written beside the library, then their folder moved in with one
        // rename (files written one by one may each settle into a batch of their own on a busy
        // machine, and never count as many).
        let staging = world.sources + "/many", arrived = world.library + "/many"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        for i in 0..<6 { _ = try await world.source("dated.jpg", as: "many-\(i).jpg", variant: UInt8(10 + i), in: staging, keepMtime: false) }
        guard rename(staging, arrived) == 0 else { throw TestFailure("cannot move \(staging) into the library") }
        let paths = (0..<6).map { "\(arrived)/many-\($0).jpg" }
        #expect(try await TestEnvironment.eventually { paths.allSatisfy { s.asset($0) != nil } })
        // Events are told after the rows are written (see movedFileAndFolderKeepTheirIds).
        #expect(try await TestEnvironment.eventually { s.events.withLock { $0.contains { if case .rescanned = $0 { true } else { false } } } })
        #expect(try await TestEnvironment.eventually { paths.allSatisfy { s.indexedCount($0) >= 1 } })
        #expect(paths.allSatisfy { s.indexedCount($0) == 1 }, "each change is still reported once")
        try await s.stop()
    }

    @Test func stopBeforeAnythingHappensEndsAtOnce() async throws {
        let world = try ImportWorld()
        let s = try Session(world)
        try await s.waitReady()
        try await s.stop()
        // Measured on the watch's own thread: how long it took to notice.
        let took = try #require(s.stoppedAt.withLock { $0 }).duration(to: try #require(s.endedAt.withLock { $0 }))
        #expect(took < .seconds(2), "\(took)")  // a wake-up, not a poll timeout; loose for a loaded machine
    }
}
