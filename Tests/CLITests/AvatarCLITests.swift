import Foundation
import GpickTestSupport
import Testing

/// `gpick avatar`, run as a user runs it (gpick hands it to gpick-avatar), its files decoded by
/// GStreamer's decoders (libpng, libjpeg, libwebp), not by what wrote them.
@Suite struct AvatarCLITests {
    typealias Image = (width: Int, height: Int, pixels: [UInt8])

    static func rgba(_ img: Image, _ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int, a: Int) {
        let i = (y * img.width + x) * 4
        return (Int(img.pixels[i]), Int(img.pixels[i + 1]), Int(img.pixels[i + 2]), Int(img.pixels[i + 3]))
    }

    static func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// A 400×200 picture, red on the left half and blue on the right, written by ffmpeg.
    static let halves = SharedFixture {
        let path = TestEnvironment.tempDir("avatar-halves") + "/halves.jpg"
        try MediaFixtures.runAll([("/usr/bin/ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=200x200", "-f", "lavfi",
                                                        "-i", "color=c=blue:s=200x200", "-filter_complex", "hstack", "-frames:v", "1", "-q:v", "2", path])])
        return path
    }

    @Test func pngWebPAndJPEGAreTheAskedSizeWithTheirCorners() async throws {
        let dir = TestEnvironment.tempDir("avatar-formats")
        for (name, extra) in [("a.png", [String]()), ("a.webp", []), ("a.jpg", []), ("b.jpg", ["--matte", "black"])] {
            let r = try await Subprocess.gpick(["avatar", "-o", "\(dir)/\(name)", "--text", "Ada Lovelace", "--size", "300"] + extra)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(name): \(r.stderr)")
            let img = try await Media.rgba("\(dir)/\(name)")
            #expect(img.width == 300 && img.height == 300, "\(name)")
            let corner = Self.rgba(img, 1, 1), centre = Self.rgba(img, 150, 20)
            #expect(centre.a == 255, "\(name): \(centre)")
            switch name {
            case "a.jpg": #expect(corner.a == 255 && corner.r > 245 && corner.g > 245 && corner.b > 245, "white matte: \(corner)")
            case "b.jpg": #expect(corner.a == 255 && corner.r < 10 && corner.g < 10 && corner.b < 10, "black matte: \(corner)")
            default: #expect(corner.a == 0, "\(name): \(corner)")
            }
        }
    }

    @Test func theSavedModelRendersTheSameBytesAndNamesTheImageByItsHash() async throws {
        let dir = TestEnvironment.tempDir("avatar-model")
        let photo = dir + "/face.jpg"
        try FileManager.default.copyItem(atPath: try await Self.halves.value(), toPath: photo)
        let r = try await Subprocess.gpick(["avatar", "-o", "\(dir)/a.png", "--text", "Grace Hopper", "--image", photo, "--focus", "0,0.5",
                                            "--shape", "round-rect:40", "--save-model", "\(dir)/a.json"])
        #expect(r.status == 0, "\(r.stderr)")
        let model = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/a.json"))) as? [String: Any])
        let image = try #require(model["image"] as? [String: Any])
        #expect(image["path"] as? String == photo && (image["sha256"] as? String)?.count == 64, "\(image)")
        #expect(model["background"] as? String == "image" && model["shape"] as? String == "round-rect:8%", "\(model)")
        let again = try await Subprocess.gpick(["avatar", "--model", "\(dir)/a.json", "-o", "\(dir)/b.png"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.bytes("\(dir)/a.png") == Self.bytes("\(dir)/b.png"), "the same model gave other bytes")
        // Options override the model: the same picture at another size.
        let small = try await Subprocess.gpick(["avatar", "--model", "\(dir)/a.json", "-o", "\(dir)/c.png", "--size", "64"])
        #expect(small.status == 0, "\(small.stderr)")
        let smallImage = try await Media.rgba("\(dir)/c.png")
        #expect(smallImage.width == 64)
        // A changed image is refused, in one line naming it.
        try Data("changed".utf8).write(to: URL(fileURLWithPath: photo))
        let changed = try await Subprocess.gpick(["avatar", "--model", "\(dir)/a.json", "-o", "\(dir)/d.png"])
        #expect(changed.status != 0 && changed.stderrLines.count == 1 && changed.stderr.contains(photo) && changed.stderr.contains("changed"), "\(changed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/d.png"))
    }

    @Test func focusMovesTheCrop() async throws {
        let dir = TestEnvironment.tempDir("avatar-focus")
        let halves = try await Self.halves.value()
        for (focus, red) in [("0,0.5", true), ("1,0.5", false)] {
            let r = try await Subprocess.gpick(["avatar", "-o", "\(dir)/f.png", "--image", halves, "--focus", focus, "--shape", "square", "--size", "100"])
            #expect(r.status == 0, "\(r.stderr)")
            let img = try await Media.rgba("\(dir)/f.png")
            for x in [2, 50, 97] {
                let p = Self.rgba(img, x, 50)
                #expect(red ? (p.r > 200 && p.b < 60) : (p.b > 200 && p.r < 60), "focus \(focus) at x \(x): \(p)")
            }
        }
    }

    @Test func theCameraTakesThePhotoAfterCheckingThereIsOne() async throws {
        let dir = TestEnvironment.tempDir("avatar-camera")
        let r = try await Subprocess.gpick(["avatar", "-o", "\(dir)/me.png", "--text", "Me", "--image", "camera:test", "--save-model", "\(dir)/me.json"])
        #expect(r.status == 0, "\(r.stderr)")
        // The photo is kept beside the model, which names it; the model renders the same image.
        let frames = try await Media.frames("\(dir)/me-photo.jpg")
        #expect(frames.first?.stamp?.sourceID == 1, "the photo is the test camera's frame")
        #expect(try await ExifTags.problems("\(dir)/me-photo.jpg") == [], "dated and named as every still gpick writes")
        let again = try await Subprocess.gpick(["avatar", "--model", "\(dir)/me.json", "-o", "\(dir)/again.png"])
        #expect(again.status == 0 && Self.bytes("\(dir)/me.png") == Self.bytes("\(dir)/again.png"), "\(again.stderr)")

        let out = TestEnvironment.tempDir("avatar-nocamera")
        let none = try await Subprocess.gpick(["avatar", "-o", "\(out)/x.png", "--image", "camera:v4l2:/dev/video99", "--save-model", "\(out)/x.json"])
        #expect(none.status != 0 && none.stderrLines.count == 1 && none.stderr.contains("/dev/video99") && none.stderr.contains("no camera"), "\(none.stderr)")
        #expect(TestEnvironment.files(in: out).isEmpty)
    }

    @Test func aLibraryAssetIsFoundByItsId() async throws {
        let lib = try await LibrarySheetTests.Library(["red.jpg": "red.jpg"])
        let listed = try await PickerWebTests.listed(lib)
        let id = String(try #require(listed.first).id.dropFirst())
        let dir = TestEnvironment.tempDir("avatar-asset")
        let r = try await Subprocess.gpick(["avatar", "-o", "\(dir)/a.png", "--image", "asset:\(id)", "--shape", "square", "--size", "64",
                                            "--save-model", "\(dir)/a.json"], env: lib.env)
        #expect(r.status == 0, "\(r.stderr)")
        let p = Self.rgba(try await Media.rgba("\(dir)/a.png"), 5, 5)
        #expect(p.r > 200 && p.g < 60 && p.b < 60, "\(p)")
        let model = String(decoding: Self.bytes("\(dir)/a.json") ?? [], as: UTF8.self)
        #expect(model.contains("\"asset\" : \(id)") && model.contains("red.jpg"), "\(model)")
    }

    @Test(arguments: [
        (["--text", "A", "--color", "nope"], "--color nope"),
        (["--size", "0"], "--size 0"),
        (["--size", "4097"], "--size 4097"),
        (["--gradient", "#fff"], "two colours"),
        (["--shape", "hexagon"], "--shape hexagon"),
        (["--color", "red", "--gradient", "red,blue"], "not several"),
        (["--focus", "0.5,0.5"], "--image"),
        (["--image", "OUT/garbage.jpg"], "OUT/garbage.jpg"),
        (["--image", "OUT/missing.jpg"], "OUT/missing.jpg"),
        (["--model", "OUT/bad.json"], "OUT/bad.json"),
        (["--text-color", "sort-of-red"], "--text-color sort-of-red"),
    ])
    func badInputIsOneLine(_ args: [String], _ mentions: String) async throws {
        let dir = TestEnvironment.tempDir("avatar-bad")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: "\(dir)/garbage.jpg"))
        try Data("{\"size\": ".utf8).write(to: URL(fileURLWithPath: "\(dir)/bad.json"))
        let out = TestEnvironment.tempDir("avatar-bad-out")
        let r = try await Subprocess.gpick(["avatar", "-o", "\(out)/x.png"] + args.map { $0.replacingOccurrences(of: "OUT", with: dir) })
        #expect(r.status != 0)
        #expect(r.stderrLines.count == 1 && r.stderr.contains(mentions.replacingOccurrences(of: "OUT", with: dir)), "\(r.stderr)")
        #expect(TestEnvironment.files(in: out).isEmpty)
    }

    /// A JPEG claiming 65500×65500 (reliability check 29): one line, and memory stays bounded.
    @Test func aDecompressionBombIsOneLine() async throws {
        let dir = TestEnvironment.tempDir("avatar-bomb")
        let halves = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await Self.halves.value())))
        try Data(try ImageBombs.claimingSize(halves, width: 65500, height: 65500)).write(to: URL(fileURLWithPath: dir + "/huge.jpg"))
        let out = TestEnvironment.tempDir("avatar-bomb-out")
        let r = try await Subprocess.run("/usr/bin/time", ["-f", "maxrss=%M", TestEnvironment.binary, "avatar", "-o", out + "/x.png", "--image", dir + "/huge.jpg"], timeout: 60)
        #expect(r.status != 0)
        let lines = r.stderrLines.filter { !$0.hasPrefix("maxrss=") && !$0.hasPrefix("Command exited") }
        #expect(lines.count == 1 && lines[0].contains("huge.jpg"), "\(r.stderr)")
        let kib = Int(r.stderrLines.last { $0.hasPrefix("maxrss=") }?.dropFirst("maxrss=".count) ?? "") ?? .max
        #expect(kib < 300 * 1024, "peak memory \(kib) KiB")
        #expect(TestEnvironment.files(in: out).isEmpty)
    }

    @Test func anOutputOfAnotherFormatIsOneLine() async throws {
        let out = TestEnvironment.tempDir("avatar-gif")
        let r = try await Subprocess.gpick(["avatar", "-o", "\(out)/x.gif", "--text", "A"])
        #expect(r.status == 64 && r.stderrLines.count == 1 && r.stderr.contains("x.gif"), "\(r.stderr)")
        #expect(TestEnvironment.files(in: out).isEmpty)
    }
}
