import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// A loop recording at length, on a small tmpfs of its own: 200 parts of 0.2 s with --keep-size
/// set to hold 20. A suite of its own, so that its 40 s run beside the other suites.
@Suite struct LongLoopRecordingTests {
    /// Each 0.2 s part of the 320x240 test source is 53.7-54.1 KB; 1080 KiB holds 20 of them.
    @Test func twoHundredPartsKeptToTwentyOnATmpfs() async throws {
        let limit: Int64 = 1080 * 1024
        let (r, kept) = try await DiskFullTests.onSmallDisk("4m", ["record", "--source", "test", "--duration", "40", "--split", "0.2",
                                                                   "--keep-size", "1080K", "--json", "-o", "DISK/loop.mp4"] + DiskFullTests.small)
        #expect(r.status == 0, "\(r.stderr)")
        let e = DiskFullTests.events(r)
        #expect(!e.contains { $0["event"] as? String == "disk-full" })
        let written = e.filter { $0["event"] as? String == "file-written" }
        let names = written.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        let sizes = Dictionary(uniqueKeysWithValues: written.compactMap { w in
            (w["path"] as? String).map { (($0 as NSString).lastPathComponent, Int64(w["bytes"] as? Int ?? 0)) }
        })
        let deleted = e.filter { $0["event"] as? String == "part-deleted" }.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(names.count == 200, "\(names.count) parts")
        // The oldest went, in the order they were written; the rest are on the disk, and listed.
        #expect(deleted == Array(names.prefix(deleted.count)), "\(deleted.prefix(5))…")
        let left = SplitRecordingTests.partFiles(in: kept)
        #expect(left == Array(names.dropFirst(deleted.count)), "\(left)")
        #expect(try PartIndex.load(folder: kept).map(\.file) == left)
        // As many as the size holds, and not one more: 20 of them.
        let keptBytes = left.reduce(0) { $0 + (sizes[$1] ?? 0) }
        #expect(keptBytes <= limit, "\(left.count) parts, \(keptBytes) bytes")
        if let older = names.dropLast(left.count).last { #expect(keptBytes + sizes[older]! > limit, "one more part would have fitted") }
        #expect((18...22).contains(left.count), "\(left.count) parts kept: \(left.compactMap { sizes[$0] })")
        // Their frames join: six a part, each once, from where the deleted ones ended.
        let stamps = try await SplitRecordingTests.parts(left.map { "\(kept)/\($0)" }, audio: false)
        #expect(stamps.allSatisfy { $0.count == 6 } && Media.isConsecutive(stamps.flatMap { $0 }, from: 6 * deleted.count),
                "\(stamps.map { [$0.first ?? nil, $0.last ?? nil] })")
    }
}
