import Foundation
import GpickTestSupport
import Testing

/// `gpick thumb` on the sources beyond files: a URL from a real HTTP server on 127.0.0.1, a
/// camera (the test source), `--progressive`; and decompression bombs, with the peak memory of
/// the whole process measured by /usr/bin/time.
@Suite struct ThumbSourcesCLITests {
    /// A cache of its own (Subprocess keeps GStreamer's registry where it was).
    static func env(_ dir: String) -> [String: String] { ["XDG_CACHE_HOME": dir + "/cache", "HOME": dir] }

    @Test func aURLThenProgressiveShowsTheKeptCopyFirstAndEndsWithTheFetchedPicture() async throws {
        let dir = TestEnvironment.tempDir()
        let site = dir + "/site"
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try ThumbCLITests.bars(site + "/bars.jpg", width: 640, height: 480)
        let server = try await StaticHTTPServer(folder: site)
        defer { server.stop() }
        let url = server.url("bars.jpg")

        let first = try await Subprocess.gpick(["thumb", url, "--size", "160", "-o", dir + "/t.png", "--json"], env: Self.env(dir))
        #expect(first.status == 0, "\(first.stderr)")
        let e = try ThumbCLITests.written(first)
        #expect(e["origin"] as? String == "fetched" && e["degraded"] as? Bool == false && e["source"] as? String == url, "\(e)")
        #expect(try ThumbCLITests.pngSize(dir + "/t.png") == (160, 120))

        let again = try await Subprocess.gpick(["thumb", url, "--size", "320", "--progressive", "-o", dir + "/t.png", "--json"],
                                               env: Self.env(dir))
        #expect(again.status == 0, "\(again.stderr)")
        let written = ThumbCLITests.events(again).filter { $0["event"] as? String == "file-written" }
        #expect(written.map { $0["origin"] as? String } == ["cached-copy", "fetched"], "\(again.stdout)")
        #expect(written.map { $0["degraded"] as? Bool } == [true, false])
        #expect(try ThumbCLITests.pngSize(dir + "/t.png") == (320, 240), "the final picture is what stays")
        #expect(TestEnvironment.files(in: dir).sorted() == ["cache", "site", "t.png"], "temp files left")

        let missing = try await Subprocess.gpick(["thumb", server.url("nothing.jpg"), "-o", dir + "/u.png"], env: Self.env(dir))
        ThumbCLITests.expectOneLine(missing, status: 65, [server.url("nothing.jpg"), "HTTP 404"], "404")
        #expect(!FileManager.default.fileExists(atPath: dir + "/u.png"))
    }

    @Test func aCameraGivesItsNewestFrame() async throws {
        let dir = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["thumb", "camera:test", "--size", "64x64", "--fill", "-o", dir + "/c.png", "--json"],
                                           env: Self.env(dir))
        #expect(r.status == 0, "\(r.stderr)")
        let e = try ThumbCLITests.written(r)
        #expect(e["kind"] as? String == "camera" && e["origin"] as? String == "camera-frame", "\(e)")
        #expect(try ThumbCLITests.pngSize(dir + "/c.png") == (64, 64))
        let img = try await Media.rgb(dir + "/c.png")
        #expect(ThumbCLITests.mean(img, x: 0..<img.width, y: 0..<img.height).0 > 40, "a picture, not a black frame")

        let absent = try await Subprocess.gpick(["thumb", "camera:v4l2:/dev/video99", "-o", dir + "/d.png"], env: Self.env(dir), timeout: 30)
        #expect(absent.status != 0 && absent.stderrLines.count == 1, "\(absent.stderr)")
        #expect(absent.stderr.contains("/dev/video99"), "\(absent.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/d.png"))
    }

    /// Reliability check 29: bombs are refused from their headers, in one line, and the process
    /// never holds more than 300 MiB (a decoded 100000×100000 picture would need 28 GiB).
    @Test func bombsAreRefusedWithBoundedPeakMemory() async throws {
        let dir = TestEnvironment.tempDir()
        let site = dir + "/site"
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try ThumbCLITests.bomb(site + "/bomb.png")
        try ThumbCLITests.bars(site + "/huge.jpg", width: 64, height: 48)
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: site + "/huge.jpg"))
        try Data(try ImageBombs.claimingSize([UInt8](jpeg), width: 65500, height: 65500)).write(to: URL(fileURLWithPath: site + "/huge.jpg"))
        let server = try await StaticHTTPServer(folder: site)
        defer { server.stop() }

        for source in [site + "/bomb.png", site + "/huge.jpg", server.url("bomb.png"), server.url("huge.jpg")] {
            let r = try await Subprocess.run("/usr/bin/time", ["-f", "PEAK %M", TestEnvironment.binary, "thumb", source,
                                                               "--progressive", "-o", dir + "/t.png"], env: Self.env(dir), timeout: 30)
            let lines = r.stderrLines.filter { !$0.hasPrefix("PEAK ") && !$0.hasPrefix("Command exited") }
            #expect(r.status != 0 && lines.count == 1 && lines[0].contains("image too large") && lines[0].contains(source), "\(r.stderr)")
            let peak = try #require(r.stderrLines.last { $0.hasPrefix("PEAK ") }.flatMap { Int($0.dropFirst(5)) }, "\(r.stderr)")
            #expect(peak < 300 << 10, "\(source): peak RSS \(peak >> 10) MiB")
            #expect(!FileManager.default.fileExists(atPath: dir + "/t.png"))
        }
    }
}
