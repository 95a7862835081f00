import Foundation
import GpickBase
import GpickFormats

/// Media files made by other software (GStreamer, ffmpeg, vips, exiftool) once per test process, in
/// parallel, and what exiftool says of each: the metadata readers are checked against both.
/// Everything lives in one temp dir, removed when the process exits.
public struct MediaFixtures: Sendable {
    public let dir: String
    /// exiftool -j -n of each file, by file name (raw JSON, decoded per test).
    public let exiftool: [String: Data]

    public static let shared = SharedFixture { try MediaFixtures.make() }
    public static func get() async throws -> MediaFixtures { try await shared.value() }

    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
        public init(_ d: String) { description = d }
    }

    public static let appleUUID = "8A7E4C52-9C3B-4E5F-A1B2-C3D4E5F60718"
    public static let movieUUID = "0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0"

    public func path(_ name: String) -> String { "\(dir)/\(name)" }
    public func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    /// One exiftool tag of a file, as exiftool -n printed it.
    public func tag(_ file: String, _ name: String) -> Any? {
        guard let data = exiftool[file],
              let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return nil }
        return list.first?[name]
    }
    public func number(_ file: String, _ name: String) -> Double? {
        switch tag(file, name) {
        case let n as NSNumber: n.doubleValue
        case let s as String: Double(s)
        default: nil
        }
    }
    public func string(_ file: String, _ name: String) -> String? { tag(file, name).map { "\($0)" } }

    // MARK: - Making them

    /// exiftool 12.57 cannot write GCamera:MotionPhoto, the Google Container directory, or the
    /// Keys content identifier: this config teaches it (a new prefix, GContainer, on purpose: the
    /// reader must go by namespace URI, not by prefix).
    static let exiftoolConfig = """
    %Image::ExifTool::UserDefined = (
        'Image::ExifTool::XMP::Main' => {
            GContainer => { SubDirectory => { TagTable => 'Image::ExifTool::UserDefined::GContainer' } },
        },
        'Image::ExifTool::XMP::GCamera' => {
            MotionPhoto => { Writable => 'integer' },
            MotionPhotoVersion => { Writable => 'integer' },
            MotionPhotoPresentationTimestampUs => { Writable => 'integer' },
        },
        'Image::ExifTool::QuickTime::Keys' => {
            'content.identifier' => { Name => 'ContentIdentifier', Writable => 'string' },
        },
    );
    %Image::ExifTool::UserDefined::GContainer = (
        GROUPS => { 0 => 'XMP', 1 => 'XMP-GContainer', 2 => 'Image' },
        NAMESPACE => { 'GContainer' => 'http://ns.google.com/photos/1.0/container/' },
        WRITABLE => 'string',
        Directory => {
            List => 'Seq',
            Struct => {
                NAMESPACE => { 'GContainer' => 'http://ns.google.com/photos/1.0/container/' },
                Item => {
                    Struct => {
                        NAMESPACE => { 'GItem' => 'http://ns.google.com/photos/1.0/container/item/' },
                        Mime => { }, Semantic => { },
                        Length => { Writable => 'integer' }, Padding => { Writable => 'integer' },
                    },
                },
            },
        },
    );
    1;
    """

    nonisolated(unsafe) private static var removeAtExit = ""

    static func make() throws -> MediaFixtures {
        let dir = "/tmp/gpick-meta-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        removeAtExit = dir
        atexit { try? FileManager.default.removeItem(atPath: MediaFixtures.removeAtExit) }
        func p(_ n: String) -> String { "\(dir)/\(n)" }
        let gst = "/usr/bin/gst-launch-1.0", ffmpeg = "/usr/bin/ffmpeg", vips = "/usr/bin/vips"
        let lavfi = ["-loglevel", "error", "-y", "-f", "lavfi", "-i"]
        // 1. Base files, all at once.
        try runAll([
            (gst, ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=640,height=480", "!", "jpegenc", "!",
                   "filesink", "location=\(p("a.jpg"))"]),
            (gst, ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=160,height=120", "!", "jpegenc", "!",
                   "filesink", "location=\(p("thumb.jpg"))"]),
            (gst, ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=200,height=100", "!", "pngenc", "!",
                   "filesink", "location=\(p("p.png"))"]),
            (gst, ["-q", "videotestsrc", "num-buffers=15", "!", "video/x-raw,width=320,height=240,framerate=15/1", "!",
                   "x264enc", "speed-preset=ultrafast", "!", "mp4mux", "!", "filesink", "location=\(p("v.mp4"))"]),
            (gst, ["-q", "videotestsrc", "num-buffers=15", "!", "video/x-raw,width=320,height=240,framerate=15/1", "!",
                   "x264enc", "speed-preset=ultrafast", "!", "qtmux", "!", "filesink", "location=\(p("q.mov"))"]),
            (ffmpeg, lavfi + ["testsrc=s=96x64:r=10:d=1", "-c:v", "mjpeg", p("v.avi")]),
            (ffmpeg, lavfi + ["testsrc=s=96x64:r=10:d=1", "-c:v", "mjpeg", p("v.mkv")]),
            (ffmpeg, lavfi + ["testsrc=s=96x64:r=10:d=1", "-c:v", "libvpx", "-b:v", "100k", p("v.webm")]),
            (ffmpeg, lavfi + ["testsrc=s=96x64", "-frames:v", "1", p("i.gif")]),
            (ffmpeg, lavfi + ["testsrc=s=96x64", "-frames:v", "1", "-c:v", "libwebp", p("lossy.webp")]),
            (ffmpeg, lavfi + ["testsrc=s=97x65", "-frames:v", "1", "-c:v", "libwebp", "-lossless", "1", p("lossless.webp")]),
            (ffmpeg, lavfi + ["testsrc=s=96x64", "-frames:v", "1", p("i.tiff")]),
            (vips, ["black", p("i.heic"), "120", "80", "--bands", "3"]),
            (vips, ["black", p("i.avif"), "130", "70", "--bands", "3"]),
            (vips, ["black", p("i.jxl"), "120", "80", "--bands", "3"]),
            // libjxl's effort 3, not its default 7: 0.4 CPU-seconds instead of 4 for 6 MP of black,
            // and the same codestream header (all that is read of it).
            (vips, ["black", p("odd.jxl") + "[effort=3]", "3001", "1999", "--bands", "3"]),
        ])
        // 2. Edits: one exiftool process for all of them, ffmpeg's rotations beside it.
        let config = p("gpick.config")
        try exiftoolConfig.write(toFile: config, atomically: false, encoding: .utf8)
        let mp4Size = try FileManager.default.attributesOfItem(atPath: p("v.mp4"))[.size] as? Int ?? 0
        func directory(_ length: Int) -> String {
            "-XMP-GContainer:Directory=[{Item={Semantic=Primary,Mime=image/jpeg,Length=0,Padding=0}},"
                + "{Item={Semantic=MotionPhoto,Mime=video/mp4,Length=\(length),Padding=0}}]"
        }
        let edits: [[String]] = [
            ["-o", p("exif.jpg"), "-n", "-Orientation=6", "-DateTimeOriginal=2023:07:14 18:05:09", "-OffsetTimeOriginal=+02:00",
             "-CreateDate=2023:07:14 18:05:10", "-ModifyDate=2023:07:15 01:02:03", "-Software=gpick test 1.0",
             "-UserComment=Screenshot", "-ThumbnailImage<=\(p("thumb.jpg"))", "-XMP-GPano:ProjectionType=equirectangular", p("a.jpg")],
            ["-o", p("dateonly.jpg"), "-CreateDate=2021:02:03 04:05:06", p("a.jpg")],
            ["-o", p("google.head.jpg"), "-XMP-GCamera:MotionPhoto=1", "-XMP-GCamera:MotionPhotoVersion=1",
             "-XMP-GCamera:MotionPhotoPresentationTimestampUs=500000", directory(mp4Size), p("a.jpg")],
            ["-o", p("micro.head.jpg"), "-XMP-GCamera:MicroVideo=1", "-XMP-GCamera:MicroVideoVersion=1",
             "-XMP-GCamera:MicroVideoOffset=\(mp4Size)", "-XMP-GCamera:MicroVideoPresentationTimestampUs=250000", p("a.jpg")],
            ["-o", p("noitem.head.jpg"), "-XMP-GCamera:MotionPhoto=1", "-XMP-GCamera:MotionPhotoVersion=1", p("a.jpg")],
            // Samsung's Google XMP with numbers that are wrong on purpose: the trailer must win.
            ["-o", p("samsung.head.jpg"), "-XMP-GCamera:MotionPhoto=1", directory(mp4Size + 12_345), p("a.jpg")],
            // Older Samsung motion photos: the trailer, no XMP flag; only the Make tells.
            ["-o", p("samsung-old.head.jpg"), "-Make=samsung", "-Model=SM-G960F", p("a.jpg")],
            ["-o", p("tagged.png"), "-n", "-PNG:Software=png soft", "-PNG:Comment=a comment", "-XMP-GPano:UsePanoramaViewer=True",
             "-Orientation=8", "-DateTimeOriginal=2022:01:02 03:04:05", p("p.png")],
            ["-o", p("exif.tiff"), "-n", "-Orientation=5", "-Software=tiff soft", p("i.tiff")],
            ["-o", p("exif.heic"), "-DateTimeOriginal=2019:06:07 08:09:10", "-OffsetTimeOriginal=-05:00", p("i.heic")],
            ["-o", p("keys.mov"), "-Keys:ContentIdentifier=\(appleUUID)", "-Keys:CreationDate=2024:05:01 12:34:56+02:00", p("q.mov")],
        ]
        var args: [String] = []
        for (k, e) in edits.enumerated() { args += e + (k + 1 < edits.count ? ["-execute"] : []) }
        try args.joined(separator: "\n").write(toFile: p("edits.args"), atomically: false, encoding: .utf8)
        try runAll([
            ("/usr/bin/exiftool", ["-config", config, "-q", "-@", p("edits.args")]),
            (ffmpeg, ["-loglevel", "error", "-y", "-i", p("v.mp4"), "-c", "copy", "-metadata:s:v", "rotate=90", p("r90.mp4")]),
            (ffmpeg, ["-loglevel", "error", "-y", "-i", p("v.mp4"), "-c", "copy", "-metadata:s:v", "rotate=180", p("r180.mp4")]),
            (ffmpeg, ["-loglevel", "error", "-y", "-i", p("v.mp4"), "-c", "copy", "-metadata:s:v", "rotate=270", p("r270.mp4")]),
        ])
        // exiftool cannot write WebP: vips carries the tagged JPEG's EXIF into a VP8X file.
        try runAll([(vips, ["copy", p("exif.jpg"), p("exif.webp")])])
        // 3. Composites: motion photos by concatenation, the Samsung trailer, the Apple pair.
        func read(_ n: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: p(n)))) }
        func write(_ n: String, _ b: [UInt8]) throws { try Data(b).write(to: URL(fileURLWithPath: p(n))) }
        let mp4 = try read("v.mp4"), jpeg = try read("a.jpg")
        try write("google.jpg", try read("google.head.jpg") + mp4)
        try write("stripped.jpg", try read("google.head.jpg"))
        try write("micro.jpg", try read("micro.head.jpg") + mp4)
        try write("noitem.jpg", try read("noitem.head.jpg") + mp4)
        try write("samsung.jpg", samsungTrailer(still: try read("samsung.head.jpg"), mp4: mp4))
        try write("samsung-old.jpg", samsungTrailer(still: try read("samsung-old.head.jpg"), mp4: mp4))
        try write("gpick.MP.jpg", try MotionPhoto.compose(jpeg: jpeg, mp4: mp4, presentationUs: 733_333))
        try write("apple.jpg", try AppleMakerNote.insert(uuid: appleUUID, into: jpeg))
        try write("apple.mov", try AppleLivePhoto.patch(mov: try read("q.mov"), uuid: movieUUID, stillTime: 0.5))
        // 4. What exiftool says of each, in one process.
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
            .filter { !$0.hasSuffix(".args") && !$0.hasSuffix(".config") && !$0.contains(".head.") }.sorted()
        let json = try Spawn.run("/usr/bin/exiftool", ["-config", config, "-j", "-n", "-q"] + names.map(p), keepStdout: true).stdout
        guard let list = try JSONSerialization.jsonObject(with: json) as? [[String: Any]] else {
            throw FixtureError("exiftool printed no JSON list")
        }
        var byName: [String: Data] = [:]
        for entry in list {
            guard let source = entry["SourceFile"] as? String else { continue }
            byName[(source as NSString).lastPathComponent] = try JSONSerialization.data(withJSONObject: [entry])
        }
        return MediaFixtures(dir: dir, exiftool: byName)
    }

    /// A Samsung motion photo: `[JPEG][00 00 30 0A][name length LE]["MotionPhoto_Data"][MP4]`, then
    /// the SEFH directory (entries count back from its start), its length (LE) and "SEFT".
    public static func samsungTrailer(still: [UInt8], mp4: [UInt8]) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let name = Array("MotionPhoto_Data".utf8)
        let block = [0, 0, 0x30, 0x0A] + le32(name.count) + name + mp4
        let dir = Array("SEFH".utf8) + le32(101) + le32(1) + [0, 0, 0x30, 0x0A] + le32(block.count) + le32(block.count)
        return still + block + dir + le32(dir.count) + Array("SEFT".utf8)
    }

    // MARK: - Processes

    /// `runAll` from a test: its waiting is done off the cooperative pool, at the test's own
    /// priority (a file one test needs now, not a fixture for many).
    public static func run(_ commands: [(String, [String])]) async throws {
        try await OffPool.run { () throws in try runAll(commands, background: false) }
    }

    /// Runs the commands concurrently; throws naming the first that failed, with its stderr.
    /// `background`: at nice 10 (see `Subprocess.background`), as fixtures are made.
    public static func runAll(_ commands: [(String, [String])], background: Bool = true) throws {
        // Three at a time: all at once starved the other suites' timed checks on 2 cores.
        if commands.count > 3 {
            for start in stride(from: 0, to: commands.count, by: 3) {
                try runAll(Array(commands[start..<min(start + 3, commands.count)]), background: background)
            }
            return
        }
        // Started together, each waited for by its own pid on a thread of its own. Not on GCD's
        // global queues (concurrentPerform): on Linux those threads run Swift's tasks too, and
        // blocking them for seconds starved every suite's awaits.
        let results = Monitor<[Int: Result<Spawn.Result, Error>]>([:])
        for (i, (exe, args)) in commands.enumerated() {
            _ = detachThread(named: "fixture") {
                let r = Result { try Spawn.run(exe, args, background: background) }
                results.withLock { $0[i] = r }
            }
        }
        results.wait(until: { $0.count == commands.count }, then: { _ in })
        for (i, (exe, args)) in commands.enumerated() {
            let r = try results.withLock { $0[i]! }.get()
            if r.status != 0 {
                throw FixtureError("\(URL(fileURLWithPath: exe).lastPathComponent) \(args.joined(separator: " ")): \(String(decoding: r.stderr, as: UTF8.self))")
            }
        }
    }

    /// A program's stdout, waited for off the cooperative pool.
    public static func run(_ exe: String, _ args: [String]) async throws -> Data {
        try await OffPool.run { () throws -> Data in try Spawn.run(exe, args, keepStdout: true).stdout }
    }
}
