import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// `record --split`: parts that each play alone and together hold every frame exactly once
/// (reliability check #15), through a normal end, a signal and kill -9.
@Suite(.serialized) struct SplitRecordingTests {
    static let small = ["--width", "320", "--height", "240"]

    /// Every part's stamps, in part order, and each part's own checks.
    static func parts(_ paths: [String], audio: Bool, fps: Int = 30) async throws -> [[Int?]] {
        var all: [[Int?]] = []
        for p in paths {
            let info = try await Media.discover(p)
            #expect(info.streams.contains { $0.kind == "video" && $0.codec.contains("H.264") }, "\(p)")
            if audio { #expect(info.streams.contains { $0.kind == "audio" }, "\(p) has no audio") }
            let stamps = try await Media.stampIndices(p)
            // A part plays alone: its header agrees with its frames.
            #expect(abs(info.durationSeconds - Double(stamps.count) / Double(fps)) <= 2.0 / Double(fps) + 0.001, "\(p): \(info.durationSeconds) s for \(stamps.count) frames")
            all.append(stamps)
        }
        return all
    }

    /// The folder's files but the index of its parts (parts.json, which RecordingIndexTests check).
    static func partFiles(in dir: String) -> [String] {
        TestEnvironment.files(in: dir).filter { $0 != PartIndex.fileName }
    }

    @Test func partsHoldEveryFrameOnce() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--audio", "test", "--duration", "3", "--split", "1",
                                            "--json", "-o", "\(dir)/clip.mp4"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let names = ["clip-001.mp4", "clip-002.mp4", "clip-003.mp4"]
        #expect(Self.partFiles(in: dir) == names)
        let events = r.events
        #expect(events.filter { $0["event"] as? String == "file-written" }.compactMap { $0["frames"] as? Int } == [30, 30, 30])
        let finished = try #require(events.last)
        #expect(finished["event"] as? String == "finished" && finished["parts"] as? Int == 3 && finished["frames"] as? Int == 90, "\(finished)")
        let stamps = try await Self.parts(names.map { "\(dir)/\($0)" }, audio: true)
        #expect(stamps.map(\.count) == [30, 30, 30])
        #expect(Media.isConsecutive(stamps.flatMap { $0 }), "\(stamps.map { [$0.first ?? nil, $0.last ?? nil] })")
    }

    /// A header space set by hand, as large as the parts need (each part +30 s): honoured, and
    /// every part whole. (Less is refused before anything runs: BadInputTests.)
    @Test func aReserveSetForThePartsKeepsEveryFrame() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--duration", "3", "--split", "1", "--set", "reserve=31s",
                                            "--json", "-o", "\(dir)/r.mp4"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.events
        try await Self.checkParts(events, in: dir, frames: 90, partFrames: 30)
    }

    /// Parts shorter than the time a part takes to be finalised: the part after next is attached
    /// while the one before is still being finalised, so the recording lasts as long as asked,
    /// every frame in one part, and its progress never goes back.
    @Test func partsShorterThanTheirFinalisingStillHoldEveryFrame() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--duration", "3", "--split", "0.2",
                                            "--json", "-o", "\(dir)/short.mp4"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let names = (1...15).map { String(format: "short-%03d.mp4", $0) }
        #expect(Self.partFiles(in: dir) == names)
        let events = r.events
        let progress = events.filter { $0["event"] as? String == "progress" }.compactMap { $0["frames"] as? Int }
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 }, "\(progress)")
        try await Self.checkParts(events, in: dir, frames: 90, partFrames: 6)
    }

    /// One-frame parts at 240 fps, the shortest gpick makes: the next part is attached while the
    /// one before takes its single frame. Whether a part is attached in time depends on the
    /// machine (an idle one attaches each in 2-3 ms, under a frame; a loaded one does not, and
    /// the part before keeps the frames until then); either way no frame is lost or recorded
    /// twice, no part starts before its boundary, and the JSON says where each part starts.
    /// (`SplitRecordingSessionTests` makes every part late, whatever the machine.)
    @Test func oneFramePartsAtTheHighestRateLoseNoFrame() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--source", "test", "--fps", "240", "--duration", "0.5", "--split", "0.004",
                                            "--json", "-o", "\(dir)/late.mp4"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.events
        let counts = try await Self.checkParts(events, in: dir, frames: 120, partFrames: 1, fps: 240)
        #expect(counts.count > 1, "\(counts)")
    }

    /// A split recording's parts as its events and its files tell them: the parts are the files
    /// in the directory, numbered from 1; each part's frames decode to what its event says; each
    /// starts where the parts before it end, never before its boundary (k × `partFrames`), and
    /// on it when it is not late; together they hold `frames` frames, each once. Returns the
    /// frame count of each part.
    @discardableResult
    static func checkParts(_ events: [[String: Any]], in dir: String, frames: Int, partFrames: Int, fps: Int = 30) async throws -> [Int] {
        let finished = try #require(events.last)
        let written = events.filter { $0["event"] as? String == "file-written" }
        let names = written.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(Self.partFiles(in: dir) == names && !names.isEmpty, "\(names)")
        #expect(names == names.indices.map { i in names[0].replacingOccurrences(of: "-001.", with: String(format: "-%03d.", i + 1)) }, "\(names)")
        let counts = written.compactMap { $0["frames"] as? Int }
        let starts = written.compactMap { $0["start"] as? Double }
        #expect(counts.count == names.count && starts.count == names.count, "\(written)")
        #expect(finished["event"] as? String == "finished" && finished["parts"] as? Int == names.count && finished["frames"] as? Int == frames,
                "\(finished)")
        var before = 0
        for (i, (count, start)) in zip(counts, starts).enumerated() {
            #expect(abs(start - Double(before) / Double(fps)) < 0.001, "part \(i + 1) starts at \(start) s after \(before) frames: \(counts)")
            #expect(before >= i * partFrames, "part \(i + 1) starts early, after \(before) frames: \(counts)")
            #expect(count >= 1, "part \(i + 1) is empty: \(counts)")
            before += count
        }
        let stamps = try await Self.parts(names.map { "\(dir)/\($0)" }, audio: false, fps: fps)
        #expect(stamps.map(\.count) == counts)
        #expect(stamps.flatMap { $0 }.count == frames && Media.isConsecutive(stamps.flatMap { $0 }),
                "\(stamps.map { [$0.first ?? nil, $0.last ?? nil] })")
        return counts
    }

    @Test func aSignalEndsThePartBeingWritten() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "test", "--duration", "30", "--split", "1",
                                                              "--json", "-o", "\(dir)/s.mp4"] + Self.small)
        _ = try await p.waitForOutput("s-002.mp4")  // two parts complete, the third under way
        try await Task.sleep(nanoseconds: 400_000_000)
        p.signal(SIGINT)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        // The part waiting for its start (attached a second early) got no frame and left no file:
        // the files are whole parts and then the one the signal ended (the third, or a later one
        // when a starved machine delivers the signal late).
        let files = Self.partFiles(in: dir)
        #expect(files.count >= 3 && files == (1...files.count).map { String(format: "s-%03d.mp4", $0) }, "\(files)")
        let stamps = try await Self.parts(files.map { "\(dir)/\($0)" }, audio: false)
        #expect(stamps.dropLast().allSatisfy { $0.count == 30 } && (stamps.last?.count ?? 0) >= 1, "\(stamps.map(\.count))")
        #expect(Media.isConsecutive(stamps.flatMap { $0 }))
    }

    @Test func killNineKeepsEveryFinishedPart() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["record", "--source", "test", "--duration", "30", "--split", "1",
                                                              "--json", "-o", "\(dir)/k.mp4"] + Self.small)
        _ = try await p.waitForOutput("k-002.mp4")
        try await Task.sleep(nanoseconds: 500_000_000)
        p.signal(SIGKILL)
        _ = try await p.wait(timeout: 10)
        let parts = Self.partFiles(in: dir).filter { !$0.hasPrefix(".") }
        #expect(parts.prefix(2) == ["k-001.mp4", "k-002.mp4"], "\(parts)")
        let stamps = try await Self.parts(["\(dir)/k-001.mp4", "\(dir)/k-002.mp4"], audio: false)
        #expect(stamps.map(\.count) == [30, 30])
        #expect(Media.isConsecutive(stamps.flatMap { $0 }))
        // The part under way plays too (robust MP4), from where the last one ended.
        if parts.contains("k-003.mp4") {
            let third = try await Media.stampIndices("\(dir)/k-003.mp4")
            #expect(third.isEmpty || Media.isConsecutive(third, from: 60), "\(third.prefix(3))")
        }
    }

    @Test func badPartLengths() async throws {
        let dir = TestEnvironment.tempDir()
        for (split, mentions) in [("0", "--split 0"), ("-1", "--split -1"), ("5", "shorter than --duration")] {
            let r = try await Subprocess.gpick(["record", "--source", "test", "--duration", "2", "--split", split, "-o", "\(dir)/x.mp4"])
            #expect(r.status != 0)
            #expect(r.stderrLines.count == 1 && r.stderr.contains(mentions), "\(split): \(r.stderr)")
        }
        #expect(TestEnvironment.files(in: dir).isEmpty)
    }
}
