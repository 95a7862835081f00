import Foundation
@testable import GpickKit
import GpickTestSupport
import Testing

/// Filling a small tmpfs to the byte, as another program writing a large file does.
enum FullDisk {
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
        _ = try FullDisk.fill(filler)
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
