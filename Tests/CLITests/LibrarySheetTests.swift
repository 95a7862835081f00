import Foundation
import GpickBase
import GpickFormats
import GpickTestSupport
import Testing

/// `gpick library sheet` as a user runs it: a library of solid-colour pictures made here by
/// GStreamer (a plain photo, an Apple live pair, a burst of three, a 3 s video, a panorama) is
/// scanned, drawn, and the sheet decoded back by GStreamer: its size, each cell's colour, the
/// badges' pills, and the freedesktop cache the pictures came through. Each test has its own
/// HOME, index and cache.
@Suite struct LibrarySheetTests {
    /// The pictures, made once per test process; RGB as jpegenc gives them back, roughly.
    static let colours: [String: (Int, Int, Int)] = [
        "red.jpg": (255, 0, 0), "yellow.jpg": (255, 255, 0), "blue.jpg": (0, 0, 255), "green.mp4": (0, 255, 0), "pano.jpg": (255, 0, 255),
    ]
    static let uuid = "5D2B8F0C-7A41-4E3B-9C6D-1F2E3A4B5C6D"

    static let made = SharedFixture {
        let dir = TestEnvironment.tempDir("sheet-fixtures")
        func still(_ name: String, _ argb: String, _ w: Int, _ h: Int) -> (String, [String]) {
            ("/usr/bin/gst-launch-1.0", ["-q", "videotestsrc", "pattern=solid-color", "foreground-color=\(argb)", "num-buffers=1", "!",
                                         "video/x-raw,width=\(w),height=\(h)", "!", "jpegenc", "!", "filesink", "location=\(dir)/\(name)"])
        }
        func movie(_ name: String, frames: Int, mux: String) -> (String, [String]) {
            ("/usr/bin/gst-launch-1.0", ["-q", "videotestsrc", "pattern=green", "num-buffers=\(frames)", "!",
                                         "video/x-raw,width=320,height=240,framerate=15/1", "!", "x264enc", "speed-preset=ultrafast", "!",
                                         mux, "!", "filesink", "location=\(dir)/\(name)"])
        }
        // At the tests' own priority, not as bulk: the picker's page tests, the run's longest
        // chains, start with these few small files (about 2 s of CPU), and made at nice 10 they
        // came 40 to 50 s into a full run.
        try MediaFixtures.runAll([
            still("red.jpg", "0xffff0000", 640, 480), still("plain-yellow.jpg", "0xffffff00", 640, 480),
            still("blue.jpg", "0xff0000ff", 640, 480), still("pano.jpg", "0xffff00ff", 1200, 400),
            movie("green.mp4", frames: 45, mux: "mp4mux"), movie("plain.mov", frames: 8, mux: "qtmux"),
        ], background: false)
        // The Apple pair: the same content identifier in the photo's MakerNote and the movie's keys.
        func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name)"))) }
        try Data(try AppleMakerNote.insert(uuid: uuid, into: try bytes("plain-yellow.jpg"))).write(to: URL(fileURLWithPath: "\(dir)/yellow.jpg"))
        try Data(try AppleLivePhoto.patch(mov: try bytes("plain.mov"), uuid: uuid, stillTime: 0.2)).write(to: URL(fileURLWithPath: "\(dir)/live.mov"))
        return dir
    }

    /// A library of fixtures (name in the library → fixture), with its own HOME, index and cache.
    struct Library {
        let dir = TestEnvironment.tempDir("sheet")
        var root: String { dir + "/Pictures" }
        var cache: String { dir + "/cache/thumbnails" }
        var env: [String: String] {
            ["HOME": dir, "XDG_DATA_HOME": dir + "/data", "XDG_CACHE_HOME": dir + "/cache"]
        }

        init(_ files: [String: String], scan: Bool = true) async throws {
            let fixtures = try await LibrarySheetTests.made.value()
            for (name, fixture) in files {
                let target = root + "/" + name
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: fixtures + "/" + fixture, toPath: target)
            }
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            if scan {
                let r = try await run(["library", "scan"])
                guard r.status == 0 else { throw TestFailure("scan: \(r.stderr)") }
            }
        }

        func run(_ args: [String]) async throws -> Subprocess.Result {
            try await Subprocess.gpick(args + ["--library", root], env: env)
        }

        func sheet(_ args: [String]) async throws -> Subprocess.Result { try await run(["library", "sheet"] + args) }
    }

    static let everyKind = ["red.jpg": "red.jpg", "DCIM/IMG_0001.JPG": "yellow.jpg", "DCIM/IMG_0001.MOV": "live.mov",
                            "burst/shot-001.jpg": "blue.jpg", "burst/shot-002.jpg": "blue.jpg", "burst/shot-003.jpg": "blue.jpg",
                            "clip.mp4": "green.mp4", "pano.jpg": "pano.jpg"]

    static func events(_ r: Subprocess.Result, _ name: String) -> [[String: Any]] {
        r.events
            .filter { $0["event"] as? String == name }
    }

    typealias Image = (width: Int, height: Int, pixels: [UInt8])

    /// Mean RGB over a rectangle of the decoded sheet.
    /// A PNG's Thumb::URI, read from its tEXt chunks. Searching the file's bytes decoded as a
    /// String once missed a URI: the chunk's CRC after it decoded as a combining mark, which
    /// joined the URI's last letter into another character.
    static func thumbURI(_ png: [UInt8]) -> String? {
        var at = 8
        while at + 12 <= png.count {
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[at + 4..<at + 8], as: UTF8.self)
            guard at + 12 + length <= png.count else { return nil }
            let data = png[at + 8..<at + 8 + length]
            if type == "tEXt", let nul = data.firstIndex(of: 0), String(decoding: data[..<nul], as: UTF8.self) == "Thumb::URI" {
                return String(decoding: data[(nul + 1)...], as: UTF8.self)
            }
            at += 12 + length
        }
        return nil
    }

    static func mean(_ img: Image, x: Range<Int>, y: Range<Int>) -> (Double, Double, Double) {
        var sum = (0, 0, 0)
        for j in y { for i in x { let p = Media.pixel(img, i, j); sum.0 += p.0; sum.1 += p.1; sum.2 += p.2 } }
        let n = Double(x.count * y.count)
        return (Double(sum.0) / n, Double(sum.1) / n, Double(sum.2) / n)
    }

    /// Pixels of a rectangle darker than the sheet's grey (a badge's pill) and near white (its text).
    static func darkAndWhite(_ img: Image, x: Range<Int>, y: Range<Int>) -> (dark: Int, white: Int) {
        var dark = 0, white = 0
        for j in y {
            for i in x {
                let p = Media.pixel(img, i, j)
                if max(p.0, p.1, p.2) < 32 { dark += 1 }
                if min(p.0, p.1, p.2) > 200 { white += 1 }
            }
        }
        return (dark, white)
    }

    static func close(_ a: (Double, Double, Double), _ b: (Int, Int, Int), within: Double = 40) -> Bool {
        abs(a.0 - Double(b.0)) <= within && abs(a.1 - Double(b.1)) <= within && abs(a.2 - Double(b.2)) <= within
    }

    // MARK: - The sheet

    @Test func eachCellShowsItsAssetWithItsBadgeThroughTheThumbnailCache() async throws {
        let lib = try await Library(Self.everyKind)
        let out = lib.dir + "/sheet.png"
        let r = try await lib.sheet(["--columns", "3", "-o", out, "--json"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.status) \(r.stderr)")

        // Five assets (the pair's movie is part of its photo, the burst one cell) in 3 columns
        // of 256 px cells, 8 px apart and around: 3×256 + 4×8 by 2×256 + 3×8.
        let img = try await Media.rgb(out)
        #expect(img.width == 800 && img.height == 536, "\(img.width)×\(img.height)")
        let written = try #require(Self.events(r, "file-written").first)
        #expect(written["width"] as? Int == 800 && written["height"] as? Int == 536 && written["drawn"] as? Int == 5)

        let cells = Self.events(r, "cell")
        #expect(cells.count == 5)
        let fixtureOf = ["red.jpg": "red.jpg", "IMG_0001.JPG": "yellow.jpg", "shot-001.jpg": "blue.jpg", "clip.mp4": "green.mp4", "pano.jpg": "pano.jpg"]
        let badgeOf = ["IMG_0001.JPG": "LIVE", "shot-001.jpg": "burst ×3", "clip.mp4": "▶ 0:03", "pano.jpg": "PANO"]
        var origins = Set<[Int]>()
        for cell in cells {
            let name = ((cell["path"] as? String ?? "") as NSString).lastPathComponent
            let fixture = try #require(fixtureOf[name], "unexpected cell \(cell)")
            let x = try #require(cell["x"] as? Int), y = try #require(cell["y"] as? Int)
            origins.insert([x, y])
            #expect(cell["drawn"] as? Bool == true)
            #expect(cell["badge"] as? String == badgeOf[name], "\(name): \(cell)")
            // The middle of the cell is the picture (fit: 4:3 and 3:1 pictures are centred).
            let centre = Self.mean(img, x: x + 100..<x + 156, y: y + 110..<y + 146)
            #expect(Self.close(centre, Self.colours[fixture]!), "\(name): \(centre)")
            // The lower left corner, under the picture: a dark pill with white text on badged
            // cells only, the plain grey elsewhere.
            let corner = Self.darkAndWhite(img, x: x + 4..<x + 72, y: y + 230..<y + 252)
            if badgeOf[name] != nil {
                #expect(corner.dark > 200 && corner.white > 15, "\(name): no badge: \(corner)")
            } else {
                #expect(corner.dark == 0 && corner.white == 0, "\(name): a badge on a plain cell: \(corner)")
                let grey = Self.mean(img, x: x + 4..<x + 72, y: y + 230..<y + 252)
                #expect(Self.close(grey, (48, 48, 48), within: 4), "\(grey)")
            }
        }
        #expect(origins == [[8, 8], [272, 8], [536, 8], [8, 272], [272, 272]], "\(origins)")
        // The empty sixth place is the sheet's grey.
        #expect(Self.close(Self.mean(img, x: 540..<790, y: 276..<526), (48, 48, 48), within: 2))

        // The pictures came through the freedesktop cache (256: "large"), one per cell, each
        // naming its file; a second sheet reuses them untouched.
        let large = TestEnvironment.files(in: lib.cache + "/large")
        #expect(large.count == 5, "\(large)")
        let uris = try large.map { Self.thumbURI([UInt8](try Data(contentsOf: URL(fileURLWithPath: lib.cache + "/large/" + $0)))) }
        for name in ["red.jpg", "DCIM/IMG_0001.JPG", "burst/shot-001.jpg", "clip.mp4", "pano.jpg"] {
            #expect(uris.contains("file://" + lib.root + "/" + name), "no thumbnail of \(name); the cache's files name \(uris) (\(large))")
        }
        func stamps() throws -> [String: Date] {
            var s: [String: Date] = [:]
            for f in large { s[f] = try FileManager.default.attributesOfItem(atPath: lib.cache + "/large/" + f)[.modificationDate] as? Date }
            return s
        }
        let before = try stamps()
        let again = try await lib.sheet(["--columns", "3", "-o", lib.dir + "/again.jpg"])
        #expect(again.status == 0 && again.stdout == lib.dir + "/again.jpg\n", "\(again.stdout) \(again.stderr)")
        #expect(try stamps() == before && TestEnvironment.files(in: lib.cache + "/large") == large)
        let jpeg = try await Media.rgb(lib.dir + "/again.jpg")
        #expect(jpeg.width == 800 && jpeg.height == 536)
    }

    @Test func theQueryChoosesAssetsAsListDoes() async throws {
        let lib = try await Library(Self.everyKind)
        // A case-insensitive part of the path inside the library; the root's own path is not matched.
        let list = try await lib.run(["library", "list", "SHOT"])
        #expect(list.status == 0 && list.stdoutLines.count == 1 && list.stdout.contains("burst/shot-001.jpg"), "\(list.stdout)")
        let root = try await lib.run(["library", "list", "pictures"])
        #expect(root.status == 0 && root.stdout.isEmpty, "\(root.stdout)")

        let out = lib.dir + "/shots.webp"
        let r = try await lib.sheet(["shot", "--cell", "128", "--gap", "4", "-o", out, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.events(r, "cell").map { $0["badge"] as? String } == ["burst ×3"])
        // One asset: one column, whatever --columns says.
        let img = try await Media.rgb(out)
        #expect(img.width == 136 && img.height == 136, "\(img.width)×\(img.height)")
        // 128 px cells come from the "normal" (128) size of the cache.
        #expect(TestEnvironment.files(in: lib.cache + "/normal").count == 1)
        #expect(TestEnvironment.files(in: lib.cache + "/large").isEmpty)

        let videos = try await lib.sheet(["--kind", "video", "-o", lib.dir + "/v.png", "--json"])
        #expect(Self.events(videos, "cell").map { ($0["path"] as? String ?? "").hasSuffix("/clip.mp4") } == [true], "\(videos.stdout)")
    }

    // MARK: - What cannot be drawn

    @Test func anAssetThatCannotBeDrawnIsAGreyCellAndOneWarningLine() async throws {
        let lib = try await Library(["red.jpg": "red.jpg", "gone.jpg": "red.jpg"])
        try FileManager.default.removeItem(atPath: lib.root + "/gone.jpg")
        let out = lib.dir + "/sheet.png"
        let r = try await lib.sheet(["-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == out + "\n")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("warning") && r.stderr.contains(lib.root + "/gone.jpg"), "\(r.stderr)")
        let img = try await Media.rgb(out)
        #expect(img.width == 2 * 256 + 3 * 8 && img.height == 256 + 2 * 8)
        // Which cell is which: the red one is red, the other grey around its "?".
        let left = Self.mean(img, x: 108..<156, y: 40..<80), right = Self.mean(img, x: 372..<420, y: 40..<80)
        let (red, grey) = Self.close(left, Self.colours["red.jpg"]!) ? (left, right) : (right, left)
        #expect(Self.close(red, Self.colours["red.jpg"]!), "\(left) \(right)")
        #expect(Self.close(grey, (96, 96, 96), within: 4), "\(left) \(right)")
    }

    @Test func whenNothingCanBeDrawnNothingIsWritten() async throws {
        let lib = try await Library(["gone.jpg": "red.jpg"])
        try FileManager.default.removeItem(atPath: lib.root + "/gone.jpg")
        let r = try await lib.sheet(["-o", lib.dir + "/sheet.png"])
        #expect(r.status == 65 && r.stdout.isEmpty, "\(r.status) \(r.stdout)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("could not be drawn") && r.stderr.contains("gone.jpg"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: lib.dir + "/sheet.png"))
    }

    @Test func badInputIsOneLineAndNoFile() async throws {
        let lib = try await Library(["red.jpg": "red.jpg"])
        let ro = lib.dir + "/readonly"
        try FileManager.default.createDirectory(atPath: ro, withIntermediateDirectories: true)
        _ = try Subprocess.runSync("/bin/chmod", ["-R", "a+rwX", lib.dir])
        _ = try Subprocess.runSync("/bin/chmod", ["555", ro])
        _ = try Subprocess.runSync("/bin/chmod", ["a+rx", "/tmp/gpick-tests"])
        let cases: [(args: [String], status: Int32, words: [String])] = [
            (["--columns", "0", "-o", lib.dir + "/a.png"], 64, ["--columns", "1 to 64"]),
            (["--cell", "5000", "-o", lib.dir + "/a.png"], 64, ["--cell"]),
            (["-o", lib.dir + "/a.gif"], 64, ["a.gif", ".png"]),
            (["nothing-like-it", "-o", lib.dir + "/a.png"], 65, ["no asset", "nothing-like-it"]),
            (["--kind", "live", "-o", lib.dir + "/a.png"], 65, ["no asset", "--kind live"]),
            (["-o", lib.dir + "/missing/a.png"], 73, ["does not exist", lib.dir + "/missing"]),
        ]
        for c in cases {
            let r = try await lib.sheet(c.args)
            #expect(r.status == c.status, "\(c.args): \(r.status) \(r.stderr)")
            #expect(r.stderrLines.count == 1 && r.stdout.isEmpty, "\(c.args): \(r.stderr) \(r.stdout)")
            for w in c.words { #expect(r.stderr.contains(w), "\(c.args): no \"\(w)\" in \(r.stderr)") }
        }
        // A folder the user cannot write in (as nobody: tests run as root), said before any work.
        let env = lib.env.map { "\($0)=\($1)" }
        let denied = try await Subprocess.run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", "/usr/bin/env"]
                                              + env + [TestEnvironment.binary, "library", "sheet", "--library", lib.root, "-o", ro + "/a.png"])
        #expect(denied.status == 73 && denied.stderrLines.count == 1 && denied.stderr.contains("permission denied"), "\(denied.stderr)")
        // A library never scanned.
        let fresh = try await Library([:], scan: false)
        let unscanned = try await fresh.sheet(["-o", fresh.dir + "/a.png"])
        #expect(unscanned.status == 65 && unscanned.stderrLines.count == 1 && unscanned.stderr.contains("gpick library scan"), "\(unscanned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh.dir + "/data/gpick/library.sqlite"), "the index was made")

        let written = TestEnvironment.allFiles(under: lib.dir).filter { !$0.hasPrefix("data/") && !$0.hasPrefix("Pictures/") }
        #expect(written.isEmpty, "\(written)")
    }
}
