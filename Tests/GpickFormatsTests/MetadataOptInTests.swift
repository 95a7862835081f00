import Foundation
import GpickTestSupport
import Testing
@testable import GpickFormats

/// Long runs a developer starts by hand (they are off in the normal suite):
/// `GPICK_META_FUZZ=20000 swift test --filter MetadataOptInTests` mutates every fixture that many
/// times; `GPICK_META_BENCH=/photos` times a header scan of a tree against `exiftool -fast2`.
@Suite struct MetadataOptInTests {
    static let env = ProcessInfo.processInfo.environment

    @Test(.enabled(if: env["GPICK_META_FUZZ"] != nil))
    func fuzz() async throws {
        let f = try await MediaFixtures.get()
        let rounds = Int(Self.env["GPICK_META_FUZZ"] ?? "") ?? 1000
        var rng = SeededRandom(state: UInt64(rounds))
        for name in MetadataHostileTests.samples {
            let original = try f.bytes(name)
            for _ in 0..<rounds {
                var b = original
                switch rng.below(4) {
                case 0:  // flips near the start
                    for _ in 0..<(1 + rng.below(16)) { b[rng.below(min(b.count, 2048))] ^= UInt8(1 << rng.below(8)) }
                case 1:  // overwrite 4 bytes with an extreme value (sizes, counts, offsets)
                    let at = rng.below(b.count - 4), v: [UInt8] = [[0, 0, 0, 0], [0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 1], [0x7F, 0xFF, 0xFF, 0xFF]][rng.below(4)]
                    b.replaceSubrange(at..<(at + 4), with: v)
                case 2:  // cut a piece out
                    let at = rng.below(b.count), n = rng.below(min(256, b.count - at))
                    b.removeSubrange(at..<(at + n))
                default:  // anywhere
                    for _ in 0..<(1 + rng.below(4)) { b[rng.below(b.count)] = UInt8(rng.below(256)) }
                }
                _ = try? MetadataReader.read(MemoryBytes(b))
            }
        }
    }

    @Test(.enabled(if: env["GPICK_META_BENCH"] != nil))
    func benchmarkAgainstExiftool() async throws {
        let root = try #require(Self.env["GPICK_META_BENCH"])
        var paths: [String] = []
        let e = FileManager.default.enumerator(atPath: root)
        while let rel = e?.nextObject() as? String {
            var dir: ObjCBool = false
            let p = "\(root)/\(rel)"
            if FileManager.default.fileExists(atPath: p, isDirectory: &dir), !dir.boolValue { paths.append(p) }
        }
        // Cold: the page cache drops every file before each side's run.
        func evict() {
            for p in paths {
                let fd = open(p, O_RDONLY)
                if fd >= 0 { _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_DONTNEED)); close(fd) }
            }
        }
        evict()
        let t0 = Date()
        var ok = 0, failed = 0
        for p in paths {
            if (try? MetadataReader.read(path: p)) != nil { ok += 1 } else { failed += 1 }
        }
        let ours = Date().timeIntervalSince(t0)
        evict()
        let t1 = Date()
        _ = try await MediaFixtures.run("/usr/bin/exiftool", ["-fast2", "-json", "-r", "-q", root])
        let theirs = Date().timeIntervalSince(t1)
        print("metadata scan of \(paths.count) files (\(ok) read, \(failed) errors): \(ours) s; exiftool -fast2: \(theirs) s; ratio \(ours / theirs)")
    }
}
