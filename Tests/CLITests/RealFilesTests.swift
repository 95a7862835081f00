import Foundation
import GpickTestSupport
import Testing

/// What phones and cameras wrote (`RealFiles`), through `gpick inspect`, `gpick thumb` and
/// `gpick library`, each fact checked against exiftool, vipsheader or ffprobe.
@Suite(.enabled(if: RealFiles.available, "the real-file corpus is not here: set GPICK_REAL_FILES or put it in ../shared/real-files"))
struct RealFilesTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var name: String
        var upright: (Int, Int)
        /// The embedded video's duration (ffprobe), for Motion Photos.
        var clipSeconds: Double?
        /// Images besides the primary, by role.
        var roles: [String] = []
        var raw = false
        var testDescription: String { name }
    }

    static let expected: [Expected] = [
        Expected(name: "samsung-s22plus-oneui6-motion.heic", upright: (3000, 4000), clipSeconds: 3.130, roles: ["thumbnail"]),
        Expected(name: "google-format-motion-synthetic.heic", upright: (1080, 1920), clipSeconds: 1.231),
        Expected(name: "pixel3axl-motion.MP.jpg", upright: (4032, 3024), clipSeconds: 0.763),
        Expected(name: "pixel8pro-ultrahdr.jpg", upright: (3072, 4080), roles: ["thumbnail", "gain-map"]),
        Expected(name: "iphone8plus-rotated.heic", upright: (3024, 4032), roles: ["thumbnail"]),
        Expected(name: "iphone12pro-photo.avif", upright: (192, 256)),
        Expected(name: "nikon-d1x-photo.jxl", upright: (200, 130)),
        Expected(name: "canon-eos6d-photo.dng", upright: (1224, 816), roles: ["preview", "thumbnail"], raw: true),
        Expected(name: "canon-eos7d-photo.webp", upright: (600, 315)),
        Expected(name: "samsung-s24ultra-200mp.heic", upright: (12240, 16320), roles: ["thumbnail", "gain-map"]),
    ]

    /// Those present (all of them, or `theCorpusIsWhole` fails).
    static let files = expected.filter { RealFiles.verified.contains($0.name) }

    /// Every file the tests name is there, with its content: a missing one would otherwise just
    /// drop out of the parameterised tests below, and with it a kind of file (RAW) unseen.
    @Test func theCorpusIsWhole() {
        let absent = RealFiles.manifest.keys.sorted().filter { !RealFiles.verified.contains($0) }
        #expect(absent.isEmpty, "not in \(RealFiles.directory ?? "the corpus"), or not the same file (SHA-256): \(absent)")
        #expect(Set(Self.expected.map(\.name)) == Set(RealFiles.manifest.keys), "every file of the manifest has its expectations")
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    static func exiftool(_ path: String) async throws -> [String: Any] {
        let r = try await ExifTool.run(["-j", "-n", path])
        return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
    }

    /// vipsheader's size of the image as libvips decodes it, turned by its orientation field.
    static func vipsUpright(_ path: String) async throws -> (Int, Int)? {
        func field(_ f: String) async throws -> Int? {
            Int(try await Subprocess.run("/usr/bin/vipsheader", ["-f", f, path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let w = try await field("width"), let h = try await field("height") else { return nil }
        return (try await field("orientation") ?? 1) >= 5 ? (h, w) : (w, h)
    }

    @Test(arguments: files) func inspectAgreesWithExiftoolAndVips(_ e: Expected) async throws {
        let path = RealFiles.path(e.name)
        let r = try await Subprocess.gpick(["inspect", path, "--json"], timeout: 60)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(e.name): \(r.stderr)")
        let report = Self.json(r.stdout)
        let still = try #require(report["still"] as? [String: Any], "\(e.name): \(r.stdout)")
        #expect(report["kind"] as? String == "photo" && report["frames"] as? Int == 1)
        #expect([report["width"] as? Int, report["height"] as? Int] == [e.upright.0, e.upright.1], "\(e.name)")
        let x = try await Self.exiftool(path)
        // The camera and the date, as exiftool reads them.
        #expect(still["make"] as? String == (x["Make"] as? String), "\(e.name)")
        #expect(still["model"] as? String == (x["Model"] as? String), "\(e.name)")
        if let dto = x["DateTimeOriginal"] as? String {
            let taken = try #require(still["taken"] as? String, "\(e.name)")
            var iso = Array(dto.prefix(19))
            (iso[4], iso[7], iso[10]) = ("-", "-", "T")
            #expect(taken.hasPrefix(String(iso)), "\(e.name): \(taken) vs \(dto)")
            if let sub = x["SubSecTimeOriginal"].map({ "\($0)" }) { #expect(taken.contains("." + sub), "\(e.name): \(taken)") }
            if let offset = (x["OffsetTimeOriginal"] ?? x["OffsetTime"]) as? String { #expect(taken.hasSuffix(offset), "\(e.name): \(taken)") }
        }
        // The stored size, as exiftool reads the primary image's header (not for RAW: its sensor size is the DNG's SubIFD).
        if !e.raw, let w = x["ImageWidth"] as? Int, let h = x["ImageHeight"] as? Int {
            #expect([still["storedWidth"] as? Int, still["storedHeight"] as? Int] == [w, h], "\(e.name)")
        }
        // The upright size, as libvips decodes the file (RAW files: libvips reads their TIFF thumbnail).
        if !e.raw, let v = try await Self.vipsUpright(path) {
            let expected = [e.upright.0, e.upright.1]
            #expect([v.0, v.1] == expected, "\(e.name)")
        }
        let roles = (still["images"] as? [[String: Any]] ?? []).compactMap { $0["role"] as? String }
        #expect(roles == ["primary"] + e.roles, "\(e.name)")
        // Motion Photos: the clip is where the report says, and ffprobe plays it for as long.
        let mp = report["motionPhoto"] as? [String: Any]
        #expect((mp != nil) == (e.clipSeconds != nil), "\(e.name): \(mp ?? [:])")
        if let seconds = e.clipSeconds, let mp {
            #expect(mp["consistent"] as? Bool == true, "\(e.name): \(mp)")
            let offset = try #require(still["videoOffset"] as? Int), length = try #require(still["videoLength"] as? Int)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let clip = TestEnvironment.tempDir() + "/clip.mp4"
            try data.subdata(in: offset..<(offset + length)).write(to: URL(fileURLWithPath: clip))
            let probe = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", clip])
            let duration = try #require(Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(e.name): \(probe.stderr)")
            #expect(abs(duration - seconds) < 0.01, "\(e.name): \(duration) s")
        }
    }

    /// A thumbnail of each, in the upright shape, within a phone-sized memory bound.
    @Test(arguments: files) func thumbnailIsUpright(_ e: Expected) async throws {
        let out = TestEnvironment.tempDir() + "/t.png"
        let r = try await Subprocess.run("/usr/bin/time", ["-f", "rss-kib=%M", LibraryCLI.binary, "thumb", RealFiles.path(e.name), "-o", out],
                                         timeout: 60)
        #expect(r.status == 0, "\(e.name): \(r.stderr)")
        let rss = r.stderrLines.last.flatMap { Int($0.dropFirst("rss-kib=".count)) } ?? .max
        #expect(rss < 300 * 1024, "\(e.name): \(rss) KiB")
        let size = try #require(try await Self.vipsUpright(out))
        #expect(max(size.0, size.1) == 256 || max(e.upright.0, e.upright.1) < 256, "\(e.name): \(size)")
        #expect((size.0 > size.1) == (e.upright.0 > e.upright.1), "\(e.name): \(size) for \(e.upright)")
    }

    /// The 200 MP photo at the largest freedesktop size (1024 px): more than its 512 px thumbnail
    /// item covers, so its 768 tiles are decoded one by one; libheif's whole decode would hold 1.2 GB.
    @Test(.enabled(if: RealFiles.verified.contains("samsung-s24ultra-200mp.heic")))
    func twoHundredMegapixelsAtTheLargestSize() async throws {
        let out = TestEnvironment.tempDir() + "/t.png"
        let r = try await Subprocess.run("/usr/bin/time", ["-f", "rss-kib=%M", LibraryCLI.binary, "thumb",
                                                          RealFiles.path("samsung-s24ultra-200mp.heic"), "--size", "1024", "-o", out],
                                         timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let rss = r.stderrLines.last.flatMap { Int($0.dropFirst("rss-kib=".count)) } ?? .max
        #expect(rss < 300 * 1024, "\(rss) KiB")
        let size = try #require(try await Self.vipsUpright(out))
        #expect(size.0 == 768 && size.1 == 1024, "\(size)")
    }

    /// Scanned as a folder: Motion Photos are live (HEIC ones too), the Ultra HDR photo is not,
    /// every file has its date (exiftool's, to the second) and upright size, and nothing is unreadable.
    @Test func scanFindsEveryFileLiveAndDated() async throws {
        let dir = TestEnvironment.tempDir()
        let root = dir + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for e in Self.files { try FileManager.default.copyItem(atPath: RealFiles.path(e.name), toPath: root + "/" + e.name) }
        let scan = try await LibraryCLI.run(["library", "scan", "--library", root, "--json"], data: dir + "/data", timeout: 60)
        #expect(scan.status == 0 && scan.stderr.isEmpty, "\(scan.stderr)")
        let finished = LibraryCLI.events(scan.stdout).last ?? [:]
        #expect(finished["unreadable"] as? Int == 0, "\(finished)")
        let list = try await LibraryCLI.run(["library", "list", "--json", "--library", root], data: dir + "/data")
        let assets = LibraryCLI.events(list.stdout).filter { $0["event"] as? String == "asset" }
        #expect(assets.count == Self.files.count)
        for e in Self.files {
            let a = try #require(assets.first { ($0["path"] as? String)?.hasSuffix("/" + e.name) == true }, "\(e.name)")
            let live = (a["subtypes"] as? [String] ?? []).contains("live")
            #expect(live == (e.clipSeconds != nil), "\(e.name): \(a)")
            #expect([a["width"] as? Int, a["height"] as? Int] == [e.upright.0, e.upright.1], "\(e.name): \(a)")
            let taken = try #require((a["taken"] as? String).flatMap { try? Date($0, strategy: .iso8601) }, "\(e.name): \(a)")
            #expect(abs(taken.timeIntervalSince(try await Self.takenByExiftool(root + "/" + e.name))) < 1, "\(e.name): \(a)")
        }
    }

    /// When exiftool says the photo was taken: DateTimeOriginal at its offset (OffsetTimeOriginal,
    /// else OffsetTime), else in the local time zone, as gpick reads a date without one; without a
    /// date, when the file was last written (the copy's time here).
    static func takenByExiftool(_ path: String) async throws -> Date {
        let x = try await exiftool(path)
        guard let original = x["DateTimeOriginal"] as? String else {
            return try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        }
        let offset = (x["OffsetTimeOriginal"] ?? x["OffsetTime"]) as? String
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = offset == nil ? "yyyy:MM:dd HH:mm:ss" : "yyyy:MM:dd HH:mm:ssxxx"
        formatter.timeZone = .current
        return try #require(formatter.date(from: String(original.prefix(19)) + (offset ?? "")), "\(path): \(original) \(offset ?? "")")
    }
}
