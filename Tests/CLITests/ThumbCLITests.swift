import Foundation
import GpickBase
import GpickFormats
import GpickTestSupport
import Testing

/// `gpick thumb SOURCE -o FILE` as a user runs it (gpick hands it to gpick-library), on files made
/// here by GStreamer and exiftool, and outputs decoded back by GStreamer (pixels) and by reading
/// the PNG header (sizes). Each test has a folder of its own.
@Suite struct ThumbCLITests {
    // MARK: - Making sources

    /// gst-launch-1.0 with `pipeline` split at spaces (test paths have none).
    static func gst(_ pipeline: String) throws {
        let r = try Subprocess.runSync("/usr/bin/gst-launch-1.0", ["-q"] + pipeline.split(separator: " ").map(String.init))
        guard r.status == 0 else { throw TestFailure("gst-launch-1.0 \(pipeline): \(r.stderr)") }
    }

    static func exiftool(_ args: [String]) async throws {
        try await ExifTool.check(["-q", "-overwrite_original"] + args)
    }

    /// A 640×480 JPEG of SMPTE bars (light grey on the left of the top rows, blue on the right).
    static func bars(_ path: String, width: Int = 640, height: Int = 480, pattern: String = "smpte") throws {
        try gst("videotestsrc pattern=\(pattern) num-buffers=1 ! video/x-raw,width=\(width),height=\(height) ! jpegenc ! filesink location=\(path)")
    }

    /// An H.264 MP4, 320×240 at 15 fps, a keyframe each second: black for `blackSeconds`, then bars.
    static func video(_ path: String, blackSeconds: Int, barsSeconds: Int, pattern: String = "smpte") throws {
        let caps = "video/x-raw,width=320,height=240,framerate=15/1"
        let encode = "videoconvert ! x264enc speed-preset=ultrafast key-int-max=15 ! mp4mux ! filesink location=\(path)"
        let bars = "videotestsrc pattern=\(pattern) num-buffers=\(15 * barsSeconds) ! \(caps)"
        guard blackSeconds > 0 else { return try gst("\(bars) ! \(encode)") }
        try gst("concat name=c ! \(encode) videotestsrc pattern=black num-buffers=\(15 * blackSeconds) ! \(caps) ! c. \(bars) ! c.")
    }

    /// A PNG whose header claims 100000×100000 RGB pixels, with almost no data: a decompression bomb.
    static func bomb(_ path: String) throws {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typeBytes = Array(type.utf8)
            var c: UInt32 = 0xFFFF_FFFF
            for byte in typeBytes + data {
                c ^= UInt32(byte)
                for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            }
            return be32(UInt32(data.count)) + typeBytes + data + be32(c ^ 0xFFFF_FFFF)
        }
        let ihdr = be32(100_000) + be32(100_000) + [8, 2, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]  // zlib of nothing
        let png = [137, 80, 78, 71, 13, 10, 26, 10] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
        try Data(png).write(to: URL(fileURLWithPath: path))
    }

    // MARK: - Reading results

    /// Width and height from a PNG's IHDR.
    static func pngSize(_ path: String) throws -> (width: Int, height: Int) {
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard b.count > 24, b[0..<8].elementsEqual([137, 80, 78, 71, 13, 10, 26, 10]), String(decoding: b[12..<16], as: UTF8.self) == "IHDR" else {
            throw TestFailure("\(path) is not a PNG")
        }
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        return (be32(16), be32(20))
    }

    static func events(_ r: Subprocess.Result) -> [[String: Any]] {
        r.events
    }

    static func written(_ r: Subprocess.Result) throws -> [String: Any] {
        try #require(events(r).first { $0["event"] as? String == "file-written" }, "no file-written event: \(r.stdout) \(r.stderr)")
    }

    /// Mean of R, G and B over a rectangle.
    static func mean(_ img: (width: Int, height: Int, pixels: [UInt8]), x: Range<Int>, y: Range<Int>) -> (Double, Double, Double) {
        var sum = (0, 0, 0)
        for j in y { for i in x { let p = Media.pixel(img, i, j); sum.0 += p.0; sum.1 += p.1; sum.2 += p.2 } }
        let n = Double(x.count * y.count)
        return (Double(sum.0) / n, Double(sum.1) / n, Double(sum.2) / n)
    }

    static func isLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// A failure: non-zero, exactly one line on stderr containing every one of `words`, nothing on stdout.
    static func expectOneLine(_ r: Subprocess.Result, status: Int32? = nil, _ words: [String], _ comment: String = "",
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status != 0, "\(comment): succeeded", sourceLocation: sourceLocation)
        if let status { #expect(r.status == status, "\(comment): exit \(r.status): \(r.stderr)", sourceLocation: sourceLocation) }
        #expect(r.stderrLines.count == 1, "\(comment): \(r.stderr)", sourceLocation: sourceLocation)
        for w in words { #expect(r.stderr.contains(w), "\(comment): no \"\(w)\" in \(r.stderr)", sourceLocation: sourceLocation) }
        #expect(r.stdout.isEmpty, "\(comment): \(r.stdout)", sourceLocation: sourceLocation)
    }

    // MARK: - Pictures

    @Test func fitStaysInsideTheBoxWithTheAspectRatio() async throws {
        let dir = TestEnvironment.tempDir()
        try Self.bars(dir + "/a.jpg")
        let r = try await Subprocess.gpick(["thumb", dir + "/a.jpg", "--size", "128x128", "--fit", "-o", dir + "/t.png", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let e = try Self.written(r)
        #expect(e["path"] as? String == dir + "/t.png")
        #expect(e["source"] as? String == dir + "/a.jpg")
        #expect(e["width"] as? Int == 128 && e["height"] as? Int == 96, "\(e)")
        #expect(e["kind"] as? String == "photo")
        let size = try Self.pngSize(dir + "/t.png")
        #expect(size.width == 128 && size.height == 96)
        let img = try await Media.rgb(dir + "/t.png")
        #expect(img.width == 128 && img.height == 96)

        // The default: 256x256, fit; without --json, the path on stdout.
        let d = try await Subprocess.gpick(["thumb", dir + "/a.jpg", "-o", dir + "/d.png"])
        #expect(d.status == 0 && d.stdout == dir + "/d.png\n", "\(d.stdout) \(d.stderr)")
        let dsize = try Self.pngSize(dir + "/d.png")
        #expect(dsize.width == 256 && dsize.height == 192)
    }

    @Test func fillCoversTheBoxExactlyWithoutDistortion() async throws {
        let dir = TestEnvironment.tempDir()
        // Black 640×480 with a white 100×100 square in the middle.
        try Self.gst("compositor name=m sink_1::xpos=270 sink_1::ypos=190 ! videoconvert ! pngenc ! filesink location=\(dir)/sq.png "
                     + "videotestsrc pattern=black num-buffers=1 ! video/x-raw,width=640,height=480 ! m. "
                     + "videotestsrc pattern=white num-buffers=1 ! video/x-raw,width=100,height=100 ! m.")
        let r = try await Subprocess.gpick(["thumb", dir + "/sq.png", "--size", "300x60", "--fill", "-o", dir + "/t.png"])
        #expect(r.status == 0, "\(r.stderr)")
        let size = try Self.pngSize(dir + "/t.png")
        #expect(size.width == 300 && size.height == 60)
        let img = try await Media.rgb(dir + "/t.png")
        // Scaled by 300/640 (the width decides), cropped around the centre: a square of ~47 px, in the middle.
        let whiteColumns = (0..<img.width).filter { Media.pixel(img, $0, img.height / 2).0 > 128 }
        let whiteRows = (0..<img.height).filter { Media.pixel(img, img.width / 2, $0).0 > 128 }
        let side = 100.0 * 300 / 640
        #expect(abs(Double(whiteColumns.count) - side) <= 3, "width of the square: \(whiteColumns.count)")
        #expect(abs(Double(whiteRows.count) - side) <= 3, "height of the square: \(whiteRows.count)")
        #expect(abs(whiteColumns.count - whiteRows.count) <= 2, "distorted: \(whiteColumns.count)×\(whiteRows.count)")
        let centreX = Double((whiteColumns.first ?? 0) + (whiteColumns.last ?? 0)) / 2
        let centreY = Double((whiteRows.first ?? 0) + (whiteRows.last ?? 0)) / 2
        #expect(abs(centreX - 149.5) <= 2 && abs(centreY - 29.5) <= 2, "not centred: \(centreX), \(centreY)")
    }

    @Test func exifOrientationSixGivesAnUprightPortrait() async throws {
        let dir = TestEnvironment.tempDir()
        try Self.bars(dir + "/sideways.jpg")
        try await Self.exiftool(["-n", "-Orientation=6", dir + "/sideways.jpg"])
        let r = try await Subprocess.gpick(["thumb", dir + "/sideways.jpg", "--size", "128", "-o", dir + "/t.png", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let e = try Self.written(r)
        #expect(e["width"] as? Int == 96 && e["height"] as? Int == 128, "\(e)")
        let img = try await Media.rgb(dir + "/t.png")
        #expect(img.width == 96 && img.height == 128)
        // Turned 90° clockwise: the bars' top-left (light grey) is at the top right, their top-right (blue) at the bottom right.
        let topRight = Self.mean(img, x: 88..<94, y: 2..<8), bottomRight = Self.mean(img, x: 88..<94, y: 120..<126)
        #expect(topRight.0 > 150 && topRight.1 > 150 && topRight.2 > 150, "top right: \(topRight)")
        #expect(bottomRight.0 < 60 && bottomRight.1 < 60 && bottomRight.2 > 150, "bottom right: \(bottomRight)")
    }

    @Test func aVideoGivesAFramePastTheBlackOnes() async throws {
        let dir = TestEnvironment.tempDir()
        try Self.video(dir + "/clip.mp4", blackSeconds: 2, barsSeconds: 2)
        let r = try await Subprocess.gpick(["thumb", dir + "/clip.mp4", "--size", "128x128", "-o", dir + "/t.png", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let e = try Self.written(r)
        #expect(e["kind"] as? String == "video" && e["width"] as? Int == 128 && e["height"] as? Int == 96, "\(e)")
        let img = try await Media.rgb(dir + "/t.png")
        let m = Self.mean(img, x: 0..<img.width, y: 0..<img.height)
        #expect((m.0 + m.1 + m.2) / 3 > 60, "black thumbnail: \(m)")
    }

    @Test func aMotionPhotoGivesItsStill() async throws {
        let dir = TestEnvironment.tempDir()
        // A red still with a blue movie after it (Google's MicroVideo layout).
        try Self.bars(dir + "/still.jpg", pattern: "red")
        try Self.video(dir + "/movie.mp4", blackSeconds: 0, barsSeconds: 1, pattern: "blue")
        let movie = try Data(contentsOf: URL(fileURLWithPath: dir + "/movie.mp4"))
        try await Self.exiftool(["-XMP-GCamera:MicroVideo=1", "-XMP-GCamera:MicroVideoVersion=1",
                           "-XMP-GCamera:MicroVideoOffset=\(movie.count)", dir + "/still.jpg"])
        var motion = try Data(contentsOf: URL(fileURLWithPath: dir + "/still.jpg"))
        motion.append(movie)
        try motion.write(to: URL(fileURLWithPath: dir + "/PXL_1.MP.jpg"))
        let r = try await Subprocess.gpick(["thumb", dir + "/PXL_1.MP.jpg", "--size", "64", "-o", dir + "/t.png", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.written(r)["kind"] as? String == "photo")
        let img = try await Media.rgb(dir + "/t.png")
        let m = Self.mean(img, x: 0..<img.width, y: 0..<img.height)
        #expect(m.0 > 200 && m.1 < 60 && m.2 < 60, "not the red still: \(m)")
    }

    @Test func jpegAndWebPOutputsDecode() async throws {
        let dir = TestEnvironment.tempDir()
        try Self.bars(dir + "/a.jpg")
        for (name, magic) in [("t.jpg", [0xFF, 0xD8, 0xFF]), ("t.JPEG", [0xFF, 0xD8, 0xFF]), ("t.webp", Array("RIFF".utf8).map(Int.init))] {
            let r = try await Subprocess.gpick(["thumb", dir + "/a.jpg", "--size", "128x128", "-o", dir + "/" + name])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
            #expect(bytes.prefix(magic.count).map(Int.init) == magic, "\(name) starts \(bytes.prefix(4))")
            let img = try await Media.rgb(dir + "/" + name)
            #expect(img.width == 128 && img.height == 96, "\(name): \(img.width)×\(img.height)")
            // The bars' top-left is light grey, their top-right blue.
            let left = Self.mean(img, x: 2..<8, y: 2..<8), right = Self.mean(img, x: 120..<126, y: 2..<8)
            #expect(left.0 > 150 && left.2 > 150 && right.0 < 60 && right.2 > 150, "\(name): \(left) \(right)")
        }
        let gif = try await Subprocess.gpick(["thumb", dir + "/a.jpg", "-o", dir + "/t.gif"])
        Self.expectOneLine(gif, status: 64, [dir + "/t.gif", ".webp"], "gif")
        #expect(FileManager.default.fileExists(atPath: dir + "/t.gif") == false)
    }

    // MARK: - Failures

    @Test func aDecompressionBombIsRefusedInOneLineAndNothingIsWritten() async throws {
        let dir = TestEnvironment.tempDir()
        try Self.bomb(dir + "/bomb.png")
        let r = try await Subprocess.gpick(["thumb", dir + "/bomb.png", "-o", dir + "/t.png"], timeout: 20)
        Self.expectOneLine(r, status: 65, [dir + "/bomb.png", "image too large"], "bomb")
        #expect(TestEnvironment.files(in: dir) == ["bomb.png"], "left behind: \(TestEnvironment.files(in: dir))")
    }

    @Test func aMissingSourceOrATextFileIsOneLine() async throws {
        let dir = TestEnvironment.tempDir()
        try "just some words\nnot a picture\n".write(toFile: dir + "/notes.txt", atomically: false, encoding: .utf8)
        let missing = try await Subprocess.gpick(["thumb", dir + "/nothing.jpg", "-o", dir + "/t.png"])
        Self.expectOneLine(missing, status: 65, [dir + "/nothing.jpg", "no such file"], "missing")
        let text = try await Subprocess.gpick(["thumb", dir + "/notes.txt", "-o", dir + "/t.png", "--json"])
        #expect(text.status == 65 && text.stderrLines.count == 1, "\(text.stderr)")
        #expect(text.stderr.contains(dir + "/notes.txt") && text.stderr.contains("not an image or video"), "\(text.stderr)")
        #expect(Self.events(text).contains { $0["event"] as? String == "error" }, "\(text.stdout)")
        #expect(TestEnvironment.files(in: dir) == ["notes.txt"])
    }

    @Test func anUnwritableOutputFolderIsOneLine() async throws {
        let dir = TestEnvironment.tempDir()
        try Self.bars(dir + "/a.jpg")
        let missing = try await Subprocess.gpick(["thumb", dir + "/a.jpg", "-o", dir + "/no/such/t.png"])
        Self.expectOneLine(missing, status: 73, [dir + "/no/such", "does not exist"], "missing folder")
        let notFolder = try await Subprocess.gpick(["thumb", dir + "/a.jpg", "-o", dir + "/a.jpg/t.png"])
        Self.expectOneLine(notFolder, status: 73, [dir + "/a.jpg", "not a directory"], "file as folder")
        #expect(TestEnvironment.files(in: dir) == ["a.jpg"])
    }

    @Test func aSymlinkAtTheOutputIsReplacedNotWrittenThrough() async throws {
        let dir = TestEnvironment.tempDir()
        try Self.bars(dir + "/a.jpg")
        try "keep me\n".write(toFile: dir + "/target.txt", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/t.png", withDestinationPath: dir + "/target.txt")
        let r = try await Subprocess.gpick(["thumb", dir + "/a.jpg", "--size", "64", "-o", dir + "/t.png"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!Self.isLink(dir + "/t.png"), "still a link")
        #expect(try Self.pngSize(dir + "/t.png").width == 64 && Self.pngSize(dir + "/t.png").height == 48)
        #expect(try String(contentsOfFile: dir + "/target.txt", encoding: .utf8) == "keep me\n")
        #expect(TestEnvironment.files(in: dir) == ["a.jpg", "t.png", "target.txt"], "temp files left")
    }

    @Test func unsupportedSourcesAndBadOptionsAreOneUsageLine() async throws {
        let dir = TestEnvironment.tempDir()
        let cases: [([String], [String])] = [
            (["ftp://example.com/a.jpg"], ["ftp", "http(s) URL", "asset:ID"]),
            (["camera:nonsense"], ["camera:nonsense"]),
            (["asset:seven"], ["asset:seven"]),
            (["a.jpg", "--size", "0x10"], ["--size"]),
            (["a.jpg", "--size", "wide"], ["--size", "wide"]),
            (["a.jpg", "--fit", "--fill"], ["--fill"]),
        ]
        for (args, words) in cases {
            let r = try await Subprocess.gpick(["thumb"] + args + ["-o", dir + "/t.png"])
            Self.expectOneLine(r, status: 64, words, "\(args)")
        }
        #expect(TestEnvironment.files(in: dir).isEmpty)
    }

    // MARK: - The library

    @Test func anAssetOfTheLibrary() async throws {
        let dir = TestEnvironment.tempDir()
        let root = dir + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Self.bars(root + "/a.jpg")
        try Self.video(root + "/clip.mp4", blackSeconds: 1, barsSeconds: 1)
        let env = ["XDG_DATA_HOME": dir + "/data", "HOME": dir]

        let early = try await Subprocess.gpick(["thumb", "asset:1", "-o", dir + "/t.png"], env: env)
        Self.expectOneLine(early, status: 65, ["no asset 1 in the library", "gpick library scan"], "no index")

        let scan = try await Subprocess.gpick(["library", "scan", "--library", root], env: env)
        #expect(scan.status == 0, "\(scan.stderr)")
        let list = try await Subprocess.gpick(["library", "list", "--library", root, "--json"], env: env)
        let assets = Self.events(list).filter { $0["event"] as? String == "asset" }
        let photo = try #require(assets.first { ($0["path"] as? String)?.hasSuffix("/a.jpg") == true }?["id"] as? Int, "\(list.stdout)")
        let movie = try #require(assets.first { ($0["path"] as? String)?.hasSuffix("/clip.mp4") == true }?["id"] as? Int, "\(list.stdout)")

        let r = try await Subprocess.gpick(["thumb", "asset:\(photo)", "--size", "128", "-o", dir + "/p.png", "--json"], env: env)
        #expect(r.status == 0, "\(r.stderr)")
        let e = try Self.written(r)
        #expect(e["source"] as? String == "asset:\(photo)" && e["file"] as? String == root + "/a.jpg", "\(e)")
        #expect(try Self.pngSize(dir + "/p.png").width == 128 && Self.pngSize(dir + "/p.png").height == 96)

        let v = try await Subprocess.gpick(["thumb", "asset:\(movie)", "--size", "128", "-o", dir + "/v.png", "--json"], env: env)
        #expect(v.status == 0, "\(v.stderr)")
        #expect(try Self.written(v)["kind"] as? String == "video")

        let absent = try await Subprocess.gpick(["thumb", "asset:999999", "-o", dir + "/x.png"], env: env)
        Self.expectOneLine(absent, status: 65, ["no asset 999999 in the library"], "absent id")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.png"))

        // A file gone since the scan: one line naming the asset and its file.
        try FileManager.default.removeItem(atPath: root + "/a.jpg")
        let gone = try await Subprocess.gpick(["thumb", "asset:\(photo)", "-o", dir + "/g.png"], env: env)
        Self.expectOneLine(gone, status: 65, ["asset:\(photo)", root + "/a.jpg", "no such file"], "gone")
    }

    @Test func aLivePhotoGivesItsStillForThePhotoAndForItsMovie() async throws {
        let dir = TestEnvironment.tempDir()
        let root = dir + "/Pictures"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // An Apple pair: a red still and a blue movie with the same content identifier.
        let uuid = "5D1F3A2B-0C4E-4F6A-8B9C-0D1E2F3A4B5C"
        try Self.bars(dir + "/red.jpg", pattern: "red")
        try Self.gst("videotestsrc pattern=blue num-buffers=15 ! video/x-raw,width=320,height=240,framerate=15/1 ! videoconvert ! "
                     + "x264enc speed-preset=ultrafast ! qtmux ! filesink location=\(dir)/blue.mov")
        let still = try AppleMakerNote.insert(uuid: uuid, into: [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/red.jpg"))))
        let movie = try AppleLivePhoto.patch(mov: [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/blue.mov"))), uuid: uuid, stillTime: 0.5)
        try Data(still).write(to: URL(fileURLWithPath: root + "/IMG_0001.JPG"))
        try Data(movie).write(to: URL(fileURLWithPath: root + "/IMG_0001.MOV"))
        let env = ["XDG_DATA_HOME": dir + "/data", "HOME": dir]
        let scan = try await Subprocess.gpick(["library", "scan", "--library", root, "--json"], env: env)
        #expect(scan.status == 0 && scan.stdout.contains("\"live-pairs\":1"), "\(scan.stdout) \(scan.stderr)")
        let ids = try Subprocess.runSync("/usr/bin/sqlite3", [dir + "/data/gpick/library.sqlite",
                                                              "SELECT id FROM asset ORDER BY companionOf IS NOT NULL"])
        let both = ids.stdoutLines.compactMap { Int($0) }
        try #require(both.count == 2, "\(ids.stdout) \(ids.stderr)")
        for id in both {
            let r = try await Subprocess.gpick(["thumb", "asset:\(id)", "--size", "64", "-o", dir + "/t\(id).png", "--json"], env: env)
            #expect(r.status == 0, "\(r.stderr)")
            let e = try Self.written(r)
            #expect(e["kind"] as? String == "photo" && e["file"] as? String == root + "/IMG_0001.JPG", "\(e)")
            let img = try await Media.rgb(dir + "/t\(id).png")
            let m = Self.mean(img, x: 0..<img.width, y: 0..<img.height)
            #expect(m.0 > 200 && m.2 < 60, "asset \(id) is not the red still: \(m)")
        }
    }
}
