import Foundation
import GpickTestSupport
import Testing

/// Photos cut short, with bits flipped and with blocks spliced in, through `library scan`,
/// `thumb` and `inspect` (reliability check 34): no signal, no hang, at most one stderr line
/// (one when the exit is not 0), no decoder's own text, and no half-written output. The inputs
/// are gpick's fixtures of every still format (always) and the real phone and camera files (when
/// the corpus is here), each mutated the same way on every run.
@Suite struct MutatedFilesTests {
    static let fixtures = ["a.jpg", "exif.jpg", "google.jpg", "samsung.jpg", "p.png", "tagged.png", "i.heic", "exif.heic",
                           "i.avif", "i.jxl", "lossy.webp", "lossless.webp", "i.tiff", "i.gif"]

    /// Text that only a library prints: none of it may reach the user's stderr.
    static let foreign = ["libpng", "libjpeg", "libheif", "VIPS", "Vips", "GStreamer", "GLib", "TIFFRead", "TIFFFetch",
                          "Premature end", "Corrupt JPEG", "Internal data stream", "(gpick-library:", "(gpick:", "** ",
                          "WARNING", "CRITICAL"]

    struct Mutant: Sendable {
        var name: String
        var bytes: [UInt8]
    }

    /// Four mutants of `bytes`: cut at a random point, bits flipped in the headers, bits flipped
    /// in the data, and a block of the file's own bytes spliced over its headers.
    static func mutants(of name: String, _ bytes: [UInt8], rng: inout SeededRandom) -> [Mutant] {
        guard bytes.count > 64 else { return [] }
        var out: [Mutant] = []
        out.append(Mutant(name: "cut-\(name)", bytes: Array(bytes.prefix(16 + rng.below(bytes.count - 16)))))
        var head = bytes
        for _ in 0..<12 { head[rng.below(min(head.count, 4096))] ^= UInt8(1 + rng.below(255)) }
        out.append(Mutant(name: "head-\(name)", bytes: head))
        var body = bytes
        for _ in 0..<24 { body[bytes.count / 4 + rng.below(bytes.count * 3 / 4)] ^= UInt8(1 + rng.below(255)) }
        out.append(Mutant(name: "body-\(name)", bytes: body))
        var spliced = bytes
        let length = min(512, bytes.count / 4), from = rng.below(bytes.count - length), to = 8 + rng.below(min(2048, bytes.count - length - 8))
        spliced.replaceSubrange(to..<(to + length), with: bytes[from..<(from + length)])
        out.append(Mutant(name: "splice-\(name)", bytes: spliced))
        return out
    }

    static func corpus() async throws -> [(String, [UInt8])] {
        let f = try await MediaFixtures.get()
        var files = try fixtures.map { ($0, try f.bytes($0)) }
        // The 200 MP file is left out: its mutants would only repeat the 12 MP HEIC's, slowly.
        for name in RealFiles.verified where !name.contains("200mp") {
            files.append((name, [UInt8](try Data(contentsOf: URL(fileURLWithPath: RealFiles.path(name))))))
        }
        return files
    }

    static func check(_ r: Subprocess.Result, _ what: String, path: String = "") -> [String] {
        var problems: [String] = []
        if r.status >= 128 || r.status < 0 { problems.append("\(what): status \(r.status) (a signal?)") }
        let lines = r.stderrLines
        if r.status == 0, !lines.isEmpty { problems.append("\(what): exit 0 with stderr \(lines)") }
        if r.status != 0, lines.count != 1 { problems.append("\(what): \(lines.count) stderr lines \(lines)") }
        let text = path.isEmpty ? r.stderr : r.stderr.replacingOccurrences(of: path, with: "FILE")
        for word in foreign where text.contains(word) { problems.append("\(what): decoder text \"\(word)\" in \(lines)") }
        return problems
    }

    @Test func thumbAndInspectStayOneLine() async throws {
        let dir = TestEnvironment.tempDir()
        var rng = SeededRandom(state: 0x6770_6963_6B34)
        var mutants: [Mutant] = []
        for (name, bytes) in try await Self.corpus() { mutants += Self.mutants(of: name, bytes, rng: &rng) }
        for m in mutants { try Data(m.bytes).write(to: URL(fileURLWithPath: "\(dir)/\(m.name)")) }
        // Two at a time: the machine's cores, without starving the other suites.
        var problems: [String] = []
        var next = 0
        try await withThrowingTaskGroup(of: [String].self) { group in
            func add(_ m: Mutant) {
                group.addTask {
                    let path = "\(dir)/\(m.name)", out = "\(dir)/out-\(m.name).png"
                    let thumb = try await Subprocess.gpick(["thumb", path, "-o", out], timeout: 60, background: true)
                    var found = Self.check(thumb, "thumb \(m.name)", path: path)
                    if thumb.status != 0, FileManager.default.fileExists(atPath: out) { found.append("thumb \(m.name): failed but wrote \(out)") }
                    let inspect = try await Subprocess.gpick(["inspect", path], timeout: 60, background: true)
                    found += Self.check(inspect, "inspect \(m.name)", path: path)
                    return found
                }
            }
            while next < min(2, mutants.count) { add(mutants[next]); next += 1 }
            while let found = try await group.next() {
                problems += found
                if next < mutants.count { add(mutants[next]); next += 1 }
            }
        }
        let report = "\(problems.count) problems in \(mutants.count) mutants:\n" + problems.joined(separator: "\n")
        #expect(problems == [], "\(report)")
    }

    /// A folder of every mutant is scanned to the end: each file indexed or recorded as unreadable.
    @Test func scanIndexesEveryMutant() async throws {
        let dir = TestEnvironment.tempDir()
        let root = dir + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var rng = SeededRandom(state: 0x7363_616E)
        var count = 0
        for (name, bytes) in try await Self.corpus() {
            for m in Self.mutants(of: name, bytes, rng: &rng) {
                try Data(m.bytes).write(to: URL(fileURLWithPath: "\(root)/\(m.name)"))
                count += 1
            }
        }
        let r = try await LibraryCLI.run(["library", "scan", "--library", root, "--json"], data: dir + "/data", timeout: 120, background: true)
        #expect(Self.check(r, "scan") == [])
        let finished = try #require(LibraryCLI.events(r.stdout).last { $0["event"] as? String == "finished" }, "\(r.stdout)")
        #expect(finished["found"] as? Int == count, "\(finished)")
        let list = try await LibraryCLI.run(["library", "list", "--json", "--library", root, "--unreadable"], data: dir + "/data")
        #expect(list.status == 0, "\(list.stderr)")
    }
}
