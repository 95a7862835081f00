import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// parts.json beside a split recording's parts, and `gpick recordings at`: each part listed with
/// its wall-clock start, length, frames and size as it is complete; a moment found in one lookup;
/// the index kept through kill -9 and a restart, and to what a loop recording keeps.
@Suite(.serialized) struct RecordingIndexTests {
    static let small = ["--width", "320", "--height", "240"]

    static func events(_ r: Subprocess.Result) -> [[String: Any]] {
        r.events
    }

    static func iso(_ date: Date) -> String { RecordedPart.timeText(date) }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    @Test func aSplitRecordingListsItsPartsAndAMomentIsOneLookup() async throws {
        let dir = TestEnvironment.tempDir()
        let before = Date()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--duration", "3", "--split", "1", "--json",
                                            "-o", "\(dir)/rec.mp4"] + Self.small)
        let after = Date()
        #expect(r.status == 0, "\(r.stderr)")
        let parts = try PartIndex.load(folder: dir)
        #expect(parts.map(\.file) == ["rec-001.mp4", "rec-002.mp4", "rec-003.mp4"], "\(parts)")
        #expect(parts.map(\.frames) == [30, 30, 30])
        for p in parts {
            #expect(p.bytes == Self.size("\(dir)/\(p.file)") && p.bytes > 0, "\(p.file): \(p.bytes)")
            #expect(abs(p.duration - 1) < 0.05, "\(p.file): \(p.duration) s")
        }
        // By the wall clock: within the run, each part where the one before it ended.
        #expect(parts[0].start >= before && parts[2].end <= after, "\(parts.map(\.start)) in \(before)…\(after)")
        for (a, b) in zip(parts, parts.dropFirst()) {
            #expect(abs(b.start.timeIntervalSince(a.end)) < 0.02, "\(a.file) ends \(a.end), \(b.file) starts \(b.start)")
        }
        // The file-written events say the same start.
        let said = Self.events(r).filter { $0["event"] as? String == "file-written" }.compactMap { $0["started"] as? String }
        #expect(said == parts.map { Self.iso($0.start) }, "\(said)")

        // Half a second into the second part: its path and the offset, then with --json its frame.
        let moment = Self.iso(parts[1].start.addingTimeInterval(0.5))
        let at = try await Subprocess.gpick(["recordings", "at", moment, dir])
        #expect(at.status == 0 && at.stdout == "\(dir)/rec-002.mp4\t0.500\n", "\(at.stdout) \(at.stderr)")
        let json = try await Subprocess.gpick(["recordings", "at", moment, dir, "--json"])
        let found = try #require(Self.events(json).first { $0["event"] as? String == "found" })
        #expect(found["path"] as? String == "\(dir)/rec-002.mp4" && found["frame"] as? Int == 15 && found["frames"] as? Int == 30, "\(found)")
        // A time of day alone, as people type it (the local zone): the same part.
        let local = MomentText.local(parts[1].start.addingTimeInterval(0.5))
        let typed = try await Subprocess.gpick(["recordings", "at", local, dir])
        let second = Int(parts[1].start.addingTimeInterval(0.5).timeIntervalSince1970)
        let expected = parts.first { Date(timeIntervalSince1970: Double(second)) >= $0.start && Date(timeIntervalSince1970: Double(second)) < $0.end }
        #expect(typed.status == 0 && typed.stdout.hasPrefix("\(dir)/\(expected?.file ?? "?")\t"), "\(local): \(typed.stdout) \(typed.stderr)")

        // Before the recording: nothing, in one line saying what the parts cover.
        let none = try await Subprocess.gpick(["recordings", "at", Self.iso(parts[0].start.addingTimeInterval(-60)), dir])
        #expect(none.status == 65 && none.stderrLines.count == 1, "\(none.stderr)")
        #expect(none.stderr.contains("nothing was recorded at") && none.stderr.contains("cover \(MomentText.local(parts[0].start))"), "\(none.stderr)")
        let list = try await Subprocess.gpick(["recordings", "list", dir, "--json"])
        #expect(Self.events(list).filter { $0["event"] as? String == "part" }.compactMap { $0["file"] as? String }
                == ["rec-001.mp4", "rec-002.mp4", "rec-003.mp4"], "\(list.stdout)")
    }

    /// Killed (kill -9) while writing a part, then started again: the part it never listed is
    /// listed from the file itself (it plays: robust MP4), and the new run's parts after it. (The
    /// first run's parts last 30 s, so however late a loaded machine delivers the kill, it falls
    /// in the first part.)
    @Test func aPartCutByKillNineIsListedWhenTheRecordingStartsAgain() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "test", "--duration", "60", "--split", "30",
                                                              "--json", "-o", "\(dir)/k.mp4"] + Self.small)
        // Past the first second: robust muxing has written the part's index at least once.
        let deadline = Date().addingTimeInterval(HangBound.seconds(30))
        while Self.size("\(dir)/k-001.mp4") < 20_000 {
            guard Date() < deadline, p.process.isRunning else { throw TestFailure("part 1 never grew: \(p.stdoutSoFar.suffix(400))") }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        try await Task.sleep(nanoseconds: 1_500_000_000)
        p.signal(SIGKILL)
        _ = try await p.wait(timeout: 10)
        #expect(try PartIndex.load(folder: dir).isEmpty, "nothing was complete, so nothing was listed")
        let cut = try #require(try? FileManager.default.attributesOfItem(atPath: "\(dir)/k-001.mp4")[.modificationDate] as? Date)

        let again = try await Subprocess.gpick(["record", "--source", "test", "--duration", "2", "--split", "1", "--json",
                                                "-o", "\(dir)/k.mp4"] + Self.small)
        #expect(again.status == 0, "\(again.stderr)")
        let parts = try PartIndex.load(folder: dir)
        // The new run's parts follow the adopted one: k-002 and on. Two of 30 frames, or one if a
        // loaded machine attached the second so late that the first kept its frames (PartHandoff).
        let newRun = parts.dropFirst()
        #expect(parts.first?.file == "k-001.mp4" && (1...2).contains(newRun.count)
                && newRun.map(\.file) == (0..<newRun.count).map { String(format: "k-%03d.mp4", $0 + 2) }, "\(parts)")
        guard let adopted = parts.first, let firstNew = newRun.first else { return }
        #expect(adopted.duration > 0.5 && adopted.duration < 30 && adopted.frames > 10 && adopted.bytes == Self.size("\(dir)/k-001.mp4"), "\(adopted)")
        #expect(abs(adopted.end.timeIntervalSince(cut)) < 0.01, "ends when last written: \(adopted.end) against \(cut)")
        // 60 frames in the new run's parts however its boundary fell, none empty.
        #expect(firstNew.start > adopted.end && newRun.map(\.frames).reduce(0, +) == 60 && newRun.allSatisfy { $0.frames > 0 }, "\(newRun)")
    }

    /// A loop recording's index lists exactly the parts it keeps: deleted ones go from it too.
    @Test func aLoopRecordingsIndexListsTheKeptParts() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--duration", "3", "--split", "0.2", "--keep-size", "100K",
                                            "--json", "-o", "\(dir)/loop.mp4"] + Self.small, timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let deleted = Self.events(r).filter { $0["event"] as? String == "part-deleted" }.count
        let parts = try PartIndex.load(folder: dir)
        #expect(deleted >= 5 && parts.map(\.file) == SplitRecordingTests.partFiles(in: dir), "\(parts.map(\.file)), deleted \(deleted)")
        #expect(parts.allSatisfy { $0.bytes == Self.size("\(dir)/\($0.file)") })
    }

    @Test func aFolderWithoutAnIndexOrAMomentThatIsNoneIsOneLine() async throws {
        let dir = TestEnvironment.tempDir()
        let empty = try await Subprocess.gpick(["recordings", "at", "14:05", dir])
        #expect(empty.status == 65 && empty.stderrLines.count == 1 && empty.stderr.contains("has no parts.json"), "\(empty.stderr)")
        let nonsense = try await Subprocess.gpick(["recordings", "at", "teatime", dir])
        #expect(nonsense.status == 64 && nonsense.stderrLines.count == 1 && nonsense.stderr.contains("teatime is not a moment"), "\(nonsense.stderr)")
        try Data("{\"parts\": 3}".utf8).write(to: URL(fileURLWithPath: "\(dir)/parts.json"))
        let broken = try await Subprocess.gpick(["recordings", "list", dir])
        #expect(broken.status == 65 && broken.stderrLines.count == 1 && broken.stderr.contains("is not an index of recorded parts"), "\(broken.stderr)")
    }
}
