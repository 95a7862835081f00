import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// A recording on a disk that fills: on a small tmpfs of its own (a private mount namespace, so
/// nothing outside the test sees it), a recording stops while it can still finish its file, and
/// a loop recording deletes its oldest parts to go on. No file is ever torn.
@Suite(.serialized) struct DiskFullTests {
    static let small = ["--width", "320", "--height", "240"]

    /// Runs `gpick ARGS` with `/disk` (a `size` tmpfs) in its own mount namespace, then copies what
    /// it left there to a folder of the test's. ARGS name the disk as DISK.
    static func onSmallDisk(_ size: String, _ args: [String]) async throws -> (result: Subprocess.Result, files: String) {
        let disk = TestEnvironment.tempDir("disk"), kept = TestEnvironment.tempDir("kept")
        let script = """
            mount -t tmpfs -o size=\(size) tmpfs "$1" || exit 99
            shift 2
            "$@"; status=$?
            cp -a "$DISK"/. "$KEPT"/ && exit $status
            """
        let r = try await Subprocess.run("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", disk, kept,
                                                              TestEnvironment.binary] + args.map { $0.replacingOccurrences(of: "DISK", with: disk) },
                                         env: ["DISK": disk, "KEPT": kept], timeout: 120)
        #expect(r.status != 99, "no tmpfs could be mounted: \(r.stderr)")
        return (r, kept)
    }

    static func events(_ r: Subprocess.Result) -> [[String: Any]] {
        r.events
    }

    /// A 30 s recording on a 1 MiB disk stops, whole, with room left to finish it: one line
    /// saying so (exit 73), and a file that plays with every frame it says, in order.
    @Test func aRecordingStopsWholeBeforeTheDiskIsFull() async throws {
        let (r, kept) = try await Self.onSmallDisk("1m", ["record", "--source", "test", "--duration", "30", "--json", "-o", "DISK/full.mp4"] + Self.small)
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("is full") && r.stderr.contains("the recording stopped there"), "\(r.stderr)")
        let e = Self.events(r)
        let full = try #require(e.first { $0["event"] as? String == "disk-full" })
        #expect((full["available"] as? Int ?? 0) > 0, "\(full)")
        let written = try #require(e.first { $0["event"] as? String == "file-written" })
        let frames = try #require(written["frames"] as? Int)
        #expect(frames > 30 && frames < 900, "\(frames) frames")
        let stamps = try await Media.stampIndices("\(kept)/full.mp4")
        #expect(stamps.count == frames && Media.isConsecutive(stamps, from: 0), "\(stamps.count) decoded of \(frames)")
    }

    /// A loop recording that keeps everything by its own rule (--keep 1h) on a 2 MiB disk: its
    /// oldest parts go to make room, in order, and it runs its whole 12 s; what is left plays and
    /// joins, none lost or repeated.
    @Test func aLoopRecordingDeletesItsOldestPartsToGoOn() async throws {
        let (r, kept) = try await Self.onSmallDisk("2m", ["record", "--source", "test", "--duration", "12", "--split", "0.5", "--keep", "1h",
                                                          "--json", "-o", "DISK/loop.mp4"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let e = Self.events(r)
        let written = e.filter { $0["event"] as? String == "file-written" }.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        let deleted = e.filter { $0["event"] as? String == "part-deleted" }.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(written.count == 24 && deleted.count >= 3 && deleted == Array(written.prefix(deleted.count)), "written \(written), deleted \(deleted)")
        #expect(!e.contains { $0["event"] as? String == "disk-full" })
        let left = SplitRecordingTests.partFiles(in: kept)
        #expect(left == Array(written.dropFirst(deleted.count)), "\(left)")
        let stamps = try await SplitRecordingTests.parts(left.map { "\(kept)/\($0)" }, audio: false)
        #expect(stamps.allSatisfy { $0.count == 15 } && Media.isConsecutive(stamps.flatMap { $0 }, from: 15 * deleted.count),
                "\(stamps.map { [$0.first ?? nil, $0.last ?? nil] })")
        // parts.json lists what is left.
        #expect(try PartIndex.load(folder: kept).map(\.file) == left)
    }

    /// Reliability check 42 in one run: a loop recording by size (--keep-size larger than the
    /// 2 MiB disk, so the disk fills first) deletes its oldest parts to go on, and is killed
    /// (kill -9) once it has: parts.json still reads and lists parts that are there, whole, with
    /// the frames it says; the part being written plays too (robust MP4); no file is torn.
    @Test func aLoopRecordingBySizeOnAFullDiskKilledLeavesAValidIndex() async throws {
        let disk = TestEnvironment.tempDir("disk"), kept = TestEnvironment.tempDir("kept")
        // Killed once the first part is gone and three are on the disk (a minute at most).
        let script = """
            mount -t tmpfs -o size=2m tmpfs "$1" || exit 99
            shift 2
            "$@" & pid=$!
            i=0
            while [ -e "$DISK/loop-001.mp4" ] || [ "$(ls "$DISK" | grep -c '^loop-.*mp4$')" -lt 3 ]; do
                i=$((i + 1)); [ $i -gt 600 ] && break
                sleep 0.1
            done
            kill -9 $pid; wait $pid
            cp -a "$DISK"/. "$KEPT"/
            [ $i -gt 600 ] && exit 98
            exit 0
            """
        let args = ["record", "--source", "test", "--duration", "3600", "--split", "0.5", "--keep-size", "100M",
                    "--json", "-o", "\(disk)/loop.mp4"] + Self.small
        let r = try await Subprocess.run("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", disk, kept,
                                                              TestEnvironment.binary] + args,
                                         env: ["DISK": disk, "KEPT": kept], timeout: HangBound.seconds(120))
        #expect(r.status == 0, "status \(r.status) (99: no tmpfs; 98: the first part was never deleted): \(r.stderr)")
        let deleted = Self.events(r).filter { $0["event"] as? String == "part-deleted" }.count
        #expect(deleted >= 1)
        let listed = try PartIndex.load(folder: kept)
        let all = SplitRecordingTests.partFiles(in: kept)
        // Besides the parts: the next parts, attached but not begun, under their temp names.
        let files = all.filter { !$0.hasPrefix(".") }
        #expect(all.filter { $0.hasPrefix(".") }.allSatisfy { $0.hasPrefix(".loop-") && $0.dropLast(6).hasSuffix(".mp4.gpick-") }, "\(all)")
        #expect(!listed.isEmpty && !listed.contains { $0.file == "loop-001.mp4" }, "\(listed.map(\.file))")
        // Listed: the files there but the one being written, each whole.
        #expect(listed.map(\.file) == Array(files.dropLast()), "listed \(listed.map(\.file)), on disk \(files)")
        for part in listed {
            let stamps = try await Media.stampIndices("\(kept)/\(part.file)")
            #expect(stamps.count == part.frames && Media.isConsecutive(stamps, from: (stamps.first ?? nil) ?? -1),
                    "\(part.file): \(stamps.count) of \(part.frames)")
        }
        // The one cut by the kill plays, from its first frame on.
        let last = try #require(files.last)
        let cut = try await Media.stampIndices("\(kept)/\(last)")
        #expect(Media.isConsecutive(cut, from: (cut.first ?? nil) ?? -1), "\(last): \(cut.count) frames")
        // Started again there: the leftovers go, its parts follow the others, all listed.
        let again = try await Subprocess.gpick(["record", "--source", "test", "--duration", "1", "--split", "0.5", "--keep-size", "100M",
                                                "-o", "\(kept)/loop.mp4"] + Self.small)
        #expect(again.status == 0, "\(again.stderr)")
        let after = SplitRecordingTests.partFiles(in: kept)
        #expect(!after.contains { $0.hasPrefix(".") }, "\(after)")
        #expect(try PartIndex.load(folder: kept).map(\.file) == after, "\(after)")
    }

    /// The reserve: two parts' worth at the rate written (two seconds at least) and the room to
    /// finish a file.
    @Test func theReserve() {
        #expect(DiskWatch.reserve(bytesPerSecond: 100_000, partSeconds: nil) == 400_000 + 262_144)
        #expect(DiskWatch.reserve(bytesPerSecond: 100_000, partSeconds: 60) == 12_000_000 + 262_144)
        #expect(DiskWatch.reserve(bytesPerSecond: 0, partSeconds: 0.5) == 262_144)
    }
}
