import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// Loop recording: `record --split` with `--keep-size`, `--keep` or `--keep-free` deletes its
/// oldest parts, never the one being written nor the newest finished one, and the parts it keeps
/// still hold every frame once, joined.
@Suite(.serialized) struct LoopRecordingTests {
    static let small = ["--width", "320", "--height", "240"]

    static func events(_ r: Subprocess.Result) -> [[String: Any]] {
        r.events
    }

    /// 30 parts of 0.2 s kept to 150 KB: the oldest go in order as each part is complete; what is
    /// left is the newest parts, as many as the size holds, and their frames join with none lost
    /// or repeated.
    @Test func keepSizeDeletesTheOldestPartsAndTheKeptOnesJoin() async throws {
        let dir = TestEnvironment.tempDir()
        let limit: Int64 = 150 * 1024
        let r = try await Subprocess.gpick(["record", "--source", "test", "--duration", "6", "--split", "0.2", "--keep-size", "150K",
                                            "--json", "-o", "\(dir)/loop.mp4"] + Self.small, timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let e = Self.events(r)
        let written = e.filter { $0["event"] as? String == "file-written" }
        let deleted = e.filter { $0["event"] as? String == "part-deleted" }.compactMap { $0["path"] as? String }
        let paths = written.compactMap { $0["path"] as? String }
        let sizes = Dictionary(uniqueKeysWithValues: written.compactMap { w in (w["path"] as? String).map { ($0, Int64(w["bytes"] as? Int ?? 0)) } })
        #expect(paths.count == 30, "\(paths.count) parts")
        // Deleted: the oldest, in order; kept: the rest, on disk.
        #expect(deleted == Array(paths.prefix(deleted.count)), "\(deleted)")
        let kept = Array(paths.dropFirst(deleted.count))
        #expect(SplitRecordingTests.partFiles(in: dir) == kept.map { ($0 as NSString).lastPathComponent }, "\(SplitRecordingTests.partFiles(in: dir))")
        // As many as the size holds (the newest always), and not one more.
        let keptBytes = kept.reduce(0) { $0 + sizes[$1]! }
        #expect(!kept.isEmpty && (keptBytes <= limit || kept.count == 1), "\(kept.count) parts, \(keptBytes) bytes")
        if let older = paths.dropLast(kept.count).last { #expect(keptBytes + sizes[older]! > limit, "one more part would have fitted") }
        #expect(kept.count >= 2 && deleted.count >= 10, "kept \(kept.count), deleted \(deleted.count): parts of \(sizes.values.sorted())")
        let stamps = try await SplitRecordingTests.parts(kept, audio: false)
        let all = stamps.flatMap { $0 }
        let first = try #require(all.first ?? nil)
        #expect(Media.isConsecutive(all, from: first) && all.count == kept.count * 6, "\(stamps.map { [$0.first ?? nil, $0.last ?? nil] })")
    }

    /// Without --duration a loop recording runs until SIGTERM, which ends the part being written
    /// as every recording's; --keep (by age) deletes parts that ended longer ago than it.
    @Test func aLoopRunsUntilSignalledAndKeepsOnlyRecentParts() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "test", "--split", "0.25", "--keep", "1s", "--json",
                                                              "-o", "\(dir)/loop.mp4"] + Self.small)
        // Ten parts deleted: it has run about four seconds, three times what it keeps.
        let deadline = Date().addingTimeInterval(HangBound.seconds(60))
        while p.stdoutSoFar.components(separatedBy: "\"part-deleted\"").count - 1 < 10 {
            guard Date() < deadline, p.process.isRunning else { throw TestFailure("no ten deletions: \(p.stdoutSoFar.suffix(600))") }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        let e = Self.events(r)
        let written = e.filter { $0["event"] as? String == "file-written" }.compactMap { $0["path"] as? String }
        let deleted = e.filter { $0["event"] as? String == "part-deleted" }.compactMap { $0["path"] as? String }
        #expect(deleted == Array(written.prefix(deleted.count)))
        // Kept: at most the parts that end within a second of the last check (and the newest), so
        // a handful of 0.25 s parts, however long it ran.
        let left = SplitRecordingTests.partFiles(in: dir)
        #expect(written.count >= 14 && left.count >= 1 && left.count <= 8 && left.count == written.count - deleted.count,
                "\(written.count) written, left \(left)")
        #expect(e.first { $0["event"] as? String == "started" }?["duration"] is NSNull)
    }

    /// Started again in the same folder (a service restarted), a split recording goes on after
    /// the parts there, never over them; a loop recording keeps the earlier parts by its rule too.
    @Test func aRecordingStartedAgainGoesOnAfterItsParts() async throws {
        let dir = TestEnvironment.tempDir()
        let args = ["record", "--source", "test", "--duration", "1", "--split", "0.5", "--json", "-o", "\(dir)/door.mp4"] + Self.small
        let first = try await Subprocess.gpick(args)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try ["door-001.mp4", "door-002.mp4"].map { try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\($0)")) }
        let again = try await Subprocess.gpick(args)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(SplitRecordingTests.partFiles(in: dir) == ["door-001.mp4", "door-002.mp4", "door-003.mp4", "door-004.mp4"])
        let after = try ["door-001.mp4", "door-002.mp4"].map { try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\($0)")) }
        #expect(before == after, "the first run's parts are untouched")
        // A loop recording of the same name, kept to 150 KB: the oldest parts, the first runs'
        // among them, go first, and its own are numbered from 5.
        let loop = try await Subprocess.gpick(["record", "--source", "test", "--duration", "2", "--split", "0.5", "--keep-size", "150K",
                                               "--json", "-o", "\(dir)/door.mp4"] + Self.small)
        #expect(loop.status == 0, "\(loop.stderr)")
        let deleted = Self.events(loop).filter { $0["event"] as? String == "part-deleted" }.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(Array(deleted.prefix(4)) == ["door-001.mp4", "door-002.mp4", "door-003.mp4", "door-004.mp4"], "\(deleted)")
        #expect(SplitRecordingTests.partFiles(in: dir).allSatisfy { ["door-005.mp4", "door-006.mp4", "door-007.mp4", "door-008.mp4"].contains($0) }
                && !SplitRecordingTests.partFiles(in: dir).isEmpty, "\(SplitRecordingTests.partFiles(in: dir))")
    }

    @Test(arguments: [
        (["--duration", "2", "--keep-size", "1M"], "need --split"),
        (["--split", "1"], "Missing expected argument '--duration"),
        (["--split", "1", "--keep-size", "lots"], "--keep-size lots"),
        (["--split", "1", "--keep", "forever"], "--keep forever"),
        (["--split", "1", "--keep-free", "120%"], "--keep-free 120%"),
    ])
    func badLoopOptionsAreOneLine(_ args: [String], _ mentions: String) async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "-o", "\(dir)/x.mp4"] + args)
        #expect(r.status == 64, "\(args): \(r.stderr)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains(mentions), "\(args): \(r.stderr)")
        #expect(TestEnvironment.files(in: dir).isEmpty)
    }

    /// The rule itself: oldest first, by age, by size and by the disk's free share; the newest
    /// finished part always stays.
    @Test func theRetentionRule() {
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        let parts = (0..<5).map { PartRetention.Part(path: "p\($0)", bytes: 100, ended: t0.addingTimeInterval(Double($0) * 60)) }
        let now = t0.addingTimeInterval(300)
        #expect(PartRetention().expired(parts, now: now, disk: nil) == 0)
        #expect(PartRetention(maxAge: 150).expired(parts, now: now, disk: nil) == 3)      // ended 300, 240, 180 s ago
        #expect(PartRetention(maxBytes: 250).expired(parts, now: now, disk: nil) == 3)    // two fit
        #expect(PartRetention(maxBytes: 10).expired(parts, now: now, disk: nil) == 4)     // the newest stays
        #expect(PartRetention(minFree: 0.1).expired(parts, now: now, disk: (available: 800, total: 10_000)) == 2)
        #expect(PartRetention(minFree: 0.1).expired(parts, now: now, disk: (available: 5_000, total: 10_000)) == 0)
        #expect(PartRetention(maxAge: 1).expired([], now: now, disk: nil) == 0)
    }
}

/// The same loop recording from a script, beside the stills it takes: `record start FILE split …`
/// in `gpick session`, parts and deletions as events, parts.json kept, the kept parts joined.
@Suite(.serialized) struct ScriptLoopRecordingTests {
    @Test func aScriptRunsALoopRecording() async throws {
        let dir = TestEnvironment.tempDir()
        let script = """
            record start loop.mp4 split 0.25s keep-size 120K
            wait 1s
            snap during.jpg
            wait 2s
            record stop
            expect during.jpg kind photo
            """
        let r = try await Subprocess.gpick(["session", "--source", "test", "--output-dir", dir, "--json"] + LoopRecordingTests.small,
                                           timeout: 120, stdin: script + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        let e = LoopRecordingTests.events(r)
        let written = e.filter { $0["event"] as? String == "file-written" && ($0["path"] as? String)?.hasSuffix(".mp4") == true }
            .compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        let deleted = e.filter { $0["event"] as? String == "part-deleted" }.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(written.count >= 10 && deleted.count >= 3 && deleted == Array(written.prefix(deleted.count)), "written \(written), deleted \(deleted)")
        let stopped = try #require(e.first { $0["event"] as? String == "record-stopped" })
        #expect(stopped["parts"] as? Int == written.count && stopped["line"] as? Int == 5, "\(stopped)")
        let kept = SplitRecordingTests.partFiles(in: dir).filter { $0.hasSuffix(".mp4") }
        #expect(kept == Array(written.dropFirst(deleted.count)), "\(kept)")
        #expect(try PartIndex.load(folder: dir).map(\.file) == kept)
        let stamps = try await SplitRecordingTests.parts(kept.map { "\(dir)/\($0)" }, audio: false)
        let all = stamps.flatMap { $0 }
        let first = try #require(all.first ?? nil)
        #expect(Media.isConsecutive(all, from: first), "\(stamps.map { [$0.first ?? nil, $0.last ?? nil] })")
    }
}
