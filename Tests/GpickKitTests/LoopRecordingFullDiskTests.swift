import Foundation
@testable import GpickKit
import GpickTestSupport
import Testing

/// A disk filled by another program between two of the loop recording's checks: the part being
/// written fails, and the recording deletes its oldest parts and goes on. The checks are told
/// the disk is empty, so that only the failed write can find it full (on a real disk a check
/// can come first, and the oldest parts go before any write fails: `DiskFullTests`).
@Suite struct LoopRecordingFullDiskTests {
    @Test func aPartLostToAFullDiskIsGonePast() async throws {
        let disk = try TmpfsMount(sizeKiB: 3072)
        defer { disk.unmount() }
        let session = try await SessionTests.running()
        let seen = Locked<[LoopRecording.Event]>([])
        let loop = try await LoopRecording.start(in: session, to: try OutputPath("\(disk.path)/loop.mp4"),
                                                 settings: RecordingSettings(container: .mp4), partSeconds: 0.5,
                                                 retention: PartRetention(maxAge: 3600), space: { _ in (1 << 40, 1 << 40) }) { e in
            seen.withLock { $0.append(e) }
        }
        func written() -> [String] {
            seen.withLock { $0.compactMap { if case .partWritten(let r, _) = $0 { r.path } else { nil } } }
        }
        func lost() -> [String?] {
            seen.withLock { $0.compactMap { if case .partLost(let path, _) = $0 { path } else { nil } } }
        }
        // Two parts on the disk, then another program takes all that is left.
        #expect(try await TestEnvironment.eventually(20) { written().count >= 2 })
        let filler = "\(disk.path)/filler"
        let filled = try await OffPool.run { () throws -> Int in try Self.fill(filler) }
        #expect(filled > 0)
        #expect(try await TestEnvironment.eventually(20) { !lost().isEmpty }, "\(seen.withLock { $0 })")
        let writtenBeforeLoss = written().count
        // The other program is done with its file; two more parts, and the recording is stopped.
        unlink(filler)
        #expect(try await TestEnvironment.eventually(60) { written().count >= writtenBeforeLoss + 2 }, "\(written())")
        loop.requestStop()
        let result = try await loop.finished()
        await session.stop()

        let all = written()
        let deleted = seen.withLock { $0.compactMap { if case .partDeleted(let p) = $0 { p } else { nil } } }
        // The oldest part went first, whatever the rule (an hour) would have kept.
        #expect(!deleted.isEmpty && deleted == Array(all.prefix(deleted.count)), "deleted \(deleted) of \(all)")
        // The lost part is not on the disk, and is none of the parts listed.
        for path in lost() {
            let p = try #require(path)
            #expect(!FileManager.default.fileExists(atPath: p) && !all.contains(p), "\(p)")
        }
        // It went on: parts written after the loss, and the result lists every part written.
        #expect(all.count >= writtenBeforeLoss + 2, "\(all.count) parts, \(writtenBeforeLoss) before the loss")
        #expect(result.parts.map(\.path) == all)
        // What is on the disk is the parts kept, each whole, and parts.json lists them.
        let onDisk = TestEnvironment.files(in: disk.path).filter { $0.hasSuffix(".mp4") }.sorted()
        let kept = all.filter { !deleted.contains($0) }
        #expect(onDisk == kept.map { ($0 as NSString).lastPathComponent }, "\(onDisk); events: \(seen.withLock { $0 })")
        #expect(try PartIndex.load(folder: disk.path).map(\.file) == onDisk)
        var last = -1
        for part in result.parts where kept.contains(part.path) {
            let stamps = try await Media.stampIndices(part.path)
            let first = try #require(stamps.first ?? nil, "\(part.path)")
            #expect(stamps.count == part.frames && Media.isConsecutive(stamps, from: first), "\(part.path): \(stamps.map { $0 ?? -1 })")
            // Later parts hold later frames: the ones lost with the torn part are skipped, none repeated.
            #expect(first > last, "\(part.path) starts at \(first), after \(last)")
            last = (stamps.last ?? nil) ?? last
        }
    }

    /// Writes zeros to `path` until the disk is full; the bytes written.
    static func fill(_ path: String) throws -> Int {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw TestFailure("cannot create \(path)") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while true {
            let n = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { total += n; continue }
            guard n < 0, errno == ENOSPC else { throw TestFailure("writing \(path): errno \(errno)") }
            // A last partial block: fill to the byte.
            var byte: UInt8 = 0
            while write(fd, &byte, 1) == 1 { total += 1 }
            return total
        }
    }
}

/// parts.json on a disk that is full when a part is complete: that write fails, the next one
/// (once there is room) holds both parts, and the index says nothing failed in the end.
@Suite struct PartIndexFullDiskTests {
    @Test func aChangeWhoseWriteFailedIsWrittenWithTheNext() async throws {
        let disk = try TmpfsMount(sizeKiB: 256)
        defer { disk.unmount() }
        let index = PartIndex(folder: disk.path)
        let filler = "\(disk.path)/filler"
        _ = try LoopRecordingFullDiskTests.fill(filler)
        let start = Date(timeIntervalSince1970: 1_795_957_500)
        index.written(RecordingResult(path: "\(disk.path)/rec-001.mp4", frames: 30, duration: 1, bytes: 1000), start: start)
        #expect(await index.settle()?.message.contains("no space left") == true)
        #expect(!FileManager.default.fileExists(atPath: "\(disk.path)/parts.json"))
        unlink(filler)
        index.written(RecordingResult(path: "\(disk.path)/rec-002.mp4", frames: 30, duration: 1, bytes: 1000), start: start.addingTimeInterval(1))
        #expect(await index.settle() == nil)
        #expect(try PartIndex.load(folder: disk.path).map(\.file) == ["rec-001.mp4", "rec-002.mp4"])
    }
}
