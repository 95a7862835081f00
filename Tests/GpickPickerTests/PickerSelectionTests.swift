import Foundation
import GpickBase
import GpickImages
import GpickLibrary
@testable import GpickPicker
import GpickTestSupport
import Testing

/// The picker's model in-process, without a browser or a terminal: its listing comes from a real
/// index, and what the page (or the terminal) says is selected becomes events in the order an
/// app follows them.
@Suite struct PickerSelectionTests {
    /// A picker over three photos, indexed: their ids newest first, and the running picker's events.
    static func picker() async throws -> (picker: Picker, ids: [String], events: AsyncStream<PickerEvent>.AsyncIterator) {
        let fx = try await MediaFixtures.get()
        let dir = TestEnvironment.tempDir("picker-selection")
        let root = dir + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (n, name) in ["one.jpg", "two.jpg", "three.jpg"].enumerated() {
            try FileManager.default.copyItem(atPath: fx.path("exif.jpg"), toPath: "\(root)/\(name)")
            // Copied one after the other and dated a second apart: newest first, three is first.
            let when = Date(timeIntervalSince1970: 1_700_000_000 + Double(n))
            try FileManager.default.setAttributes([.modificationDate: when], ofItemAtPath: "\(root)/\(name)")
        }
        let roots = MediaRoots(paths: [root])
        let index = try LibraryIndex.open(path: dir + "/index.sqlite")
        _ = try await OffPool.run { () throws(GpickError) in try LibraryScanner(index: index, roots: roots).scan() }
        var c = PickerConfiguration(indexPath: dir + "/index.sqlite", roots: roots,
                                    thumbnails: ThumbnailCache(base: dir + "/thumbnails", version: "test"))
        c.layout.showsCamera = false
        c.allowsMultiple = true
        let picker = try Picker(c)
        var events = picker.run().makeAsyncIterator()
        guard case .ready = await events.next() else { throw TestFailure("no ready event") }
        // A hang bound: at the start of a full run, fixtures made on the cooperative pool can hold
        // the listing's task back for seconds.
        let listed = try await TestEnvironment.eventually(30) { picker.allItems.count == 3 }
        try #require(listed, "the listing never came: \(picker.state.withLock { $0.problems })")
        return (picker, picker.allItems.map(\.id), events)
    }

    static func name(_ item: PickerItem) -> String { (item.path as NSString).lastPathComponent }

    @Test func selectionChangesAreEventsOutFirstThenInAndUnknownIdsAreIgnored() async throws {
        var (picker, ids, events) = try await Self.picker()
        try #require(ids.count == 3)
        let (a, b, c) = (ids[0], ids[1], ids[2])
        picker.selectionChanged(to: [a])
        picker.selectionChanged(to: [a, b, "a999", "../etc"])
        picker.selectionChanged(to: [c])
        picker.selectionChanged(to: [c])
        picker.cancel()
        var seen: [String] = []
        while let event = await events.next() {
            switch event {
            case .selected(let item): seen.append("+" + item.id)
            case .deselected(let item): seen.append("-" + item.id)
            case .cancelled: seen.append("cancelled")
            default: break
            }
        }
        // [a] → +a; [a, b] → +b; [c] → -a, -b, +c; [c] again → nothing; cancel ends the stream.
        #expect(seen == ["+\(a)", "+\(b)", "-\(a)", "-\(b)", "+\(c)", "cancelled"])
    }

    @Test func theListingIsTheIndexsNewestFirstAndItemsAreFoundByIdOnly() async throws {
        let (picker, ids, _) = try await Self.picker()
        defer { picker.cancel() }
        #expect(picker.allItems.map(Self.name) == ["three.jpg", "two.jpg", "one.jpg"])
        #expect(ids.allSatisfy { $0.hasPrefix("a") })
        #expect(picker.item(id: ids[1]).map(Self.name) == "two.jpg")
        for bad in ["", "a", "a0", "c1", "/tmp/x.jpg", ids[1] + " "] { #expect(picker.item(id: bad) == nil, "\(bad)") }
    }
}
