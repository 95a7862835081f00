import Foundation
import GpickBase
@testable import GpickImages
import GpickTestSupport
import Testing

/// The freedesktop thumbnail cache, on real files: each test has its own directory and its own
/// cache base, never the user's ~/.cache.
struct ThumbnailCacheTests {
    static let version = "0.0-test"

    func cache(_ dir: String) -> ThumbnailCache { ThumbnailCache(base: "\(dir)/cache/thumbnails", version: Self.version) }

    @Test func namesTheKnownExampleAsTheStandardDoes() {
        let c = ThumbnailCache(base: "/nonexistent/thumbnails", version: Self.version)
        #expect(c.path(for: "/home/jens/photos/me.png", size: .normal)
                == "/nonexistent/thumbnails/normal/c6ee772d9e49320e97ec29a7eb5b1697.png")
        #expect(c.path(for: "/home/jens/photos/me.png", size: .xxLarge).hasPrefix("/nonexistent/thumbnails/xx-large/"))
        #expect(ThumbnailCache.Size.allCases.map(\.pixels) == [128, 256, 512, 1024])
    }

    @Test func uriIsCanonicalAndPercentEncodedAsGLibDoes() {
        // Spaces, non-ASCII bytes and '%' are encoded (upper-case hex); RFC 3986's path
        // sub-delimiters stay, as in the URI the file manager hashes.
        #expect(Subject("/tmp/a/../b c(1)é%.jpg").uri == "file:///tmp/b%20c(1)%C3%A9%25.jpg")
        #expect(Subject("/tmp//x/./y.png").uri == "file:///tmp/x/y.png")
        #expect(Subject("/tmp/x#y?z;.png").uri == "file:///tmp/x%23y%3Fz%3B.png")
    }

    @Test func writesAStandardThumbnailWithItsKeys() async throws {
        let dir = Fixture.dir()
        let photo = "\(dir)/photo one.jpg"
        try await Fixture.jpeg(photo)
        let c = cache(dir)
        let path = try await c.thumbnail(for: photo, mimeType: nil, size: .normal)
        #expect(path == c.path(for: photo, size: .normal))
        let png = try Fixture.bytes(path)
        #expect(TestPNG.header(png) == .init(width: 128, height: 96, bitDepth: 8, colorType: 6, interlace: 0))
        let st = try Fixture.status(photo)
        let keys = TestPNG.text(png)
        #expect(keys["Thumb::URI"] == "file://\(dir.replacingOccurrences(of: " ", with: "%20"))/photo%20one.jpg")
        #expect(keys["Thumb::MTime"] == String(st.st_mtim.tv_sec))
        #expect(keys["Thumb::Size"] == String(st.st_size))
        #expect(keys["Thumb::Mimetype"] == "image/jpeg")
        #expect(keys["Thumb::Image::Width"] == "640")
        #expect(keys["Thumb::Image::Height"] == "480")
        #expect(keys["Software"] == "gpick \(Self.version)")
        // Every key in a tEXt chunk, none compressed.
        #expect(!TestPNG.chunks(png).contains { $0.type == "zTXt" || $0.type == "iTXt" })
        // Modes: directories 0700, the file 0600, no temp files left.
        #expect(try Fixture.status(path).st_mode & 0o777 == 0o600)
        #expect(try Fixture.status("\(dir)/cache/thumbnails").st_mode & 0o777 == 0o700)
        #expect(try Fixture.status("\(dir)/cache/thumbnails/normal").st_mode & 0o777 == 0o700)
        #expect(TestEnvironment.files(in: "\(dir)/cache/thumbnails/normal") == [URL(fileURLWithPath: path).lastPathComponent])
        #expect(c.existing(for: photo, size: .normal) == path)
        #expect(c.existing(for: photo, size: .large) == nil)

        // exiftool reads the same keys.
        let r = try await ExifTool.run(["-s", "-PNG:all", path])
        #expect(r.stdout.contains(keys["Thumb::URI"]!))
        #expect(r.stdout.contains("ThumbMTime") && r.stdout.contains(String(st.st_mtim.tv_sec)))
        #expect(r.stdout.contains("ThumbImageWidth") && r.stdout.contains("Software"))
    }

    /// The bytes a caller gets are the thumbnail's: those just encoded when it is made (and the
    /// same as the cache file written beside them), the file's when it was there.
    @Test func givesThePNGItMadeAndTheOneItFound() async throws {
        let dir = Fixture.dir()
        let photo = "\(dir)/p.jpg"
        try await Fixture.jpeg(photo)
        let c = cache(dir)
        #expect(c.existingPNG(for: photo, size: .large) == nil)
        let made = try await c.thumbnailPNG(for: photo, mimeType: nil, size: .large)
        #expect(TestPNG.header(made)?.width == 256)
        #expect(TestPNG.text(made)["Thumb::URI"] == Subject(photo).uri)
        #expect(try Fixture.bytes(c.path(for: photo, size: .large)) == made)
        #expect(c.existingPNG(for: photo, size: .large) == made)
        #expect(try await c.thumbnailPNG(for: photo, mimeType: nil, size: .large) == made)
        // Stale once the photo changes: made again, not the old bytes.
        Fixture.setMTime(photo, 1_000_000_000)
        #expect(c.existingPNG(for: photo, size: .large) == nil)
        let again = try await c.thumbnailPNG(for: photo, mimeType: nil, size: .large)
        #expect(TestPNG.text(again)["Thumb::MTime"] == "1000000000")
    }

    @Test func appliesTheExifOrientationBeforeScaling() async throws {
        let dir = Fixture.dir()
        let photo = "\(dir)/sideways.jpg"
        try await Fixture.jpeg(photo, orientation: 6)
        let path = try await cache(dir).thumbnail(for: photo, mimeType: "image/jpeg", size: .large)
        let png = try Fixture.bytes(path)
        #expect(TestPNG.header(png)?.width == 192)
        #expect(TestPNG.header(png)?.height == 256)
        #expect(TestPNG.text(png)["Thumb::Image::Width"] == "480")
        #expect(TestPNG.text(png)["Thumb::Image::Height"] == "640")
    }

    @Test func usesAValidThumbnailAnotherProgramMade() async throws {
        let dir = Fixture.dir()
        let photo = "\(dir)/p.jpg"
        try await Fixture.jpeg(photo)
        let c = cache(dir)
        let st = try Fixture.status(photo)
        let path = c.path(for: photo, size: .normal)
        try FileManager.default.createDirectory(atPath: "\(dir)/cache/thumbnails/normal", withIntermediateDirectories: true)
        // Their keys in tEXt (GNOME), or compressed in zTXt (libvips, Qt for long values).
        for compressed in [false, true] {
            let theirs = TestPNG.make(width: 4, height: 3, rgba: [UInt8](repeating: 200, count: 48), text: [
                ("Thumb::URI", Subject(photo).uri), ("Thumb::MTime", String(st.st_mtim.tv_sec)), ("Software", "another program"),
            ], compressed: compressed)
            try Fixture.write(theirs, to: path)
            Fixture.setMTime(path, 1_000_000_000)
            let before = try Fixture.status(path)

            #expect(c.existing(for: photo, size: .normal) == path)
            #expect(c.existingPNG(for: photo, size: .normal) == theirs)
            #expect(try await c.thumbnail(for: photo, mimeType: nil, size: .normal) == path)
            #expect(try await c.thumbnailPNG(for: photo, mimeType: nil, size: .normal) == theirs)
            let after = try Fixture.status(path)
            #expect(after.st_ino == before.st_ino)
            #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec)
            #expect(try Fixture.bytes(path) == theirs)
        }
    }

    @Test func replacesAThumbnailWhoseMTimeDiffers() async throws {
        let dir = Fixture.dir()
        let photo = "\(dir)/p.jpg"
        try await Fixture.jpeg(photo)
        let c = cache(dir)
        let st = try Fixture.status(photo)
        let path = c.path(for: photo, size: .normal)
        try FileManager.default.createDirectory(atPath: "\(dir)/cache/thumbnails/normal", withIntermediateDirectories: true)
        // Newer than the file, not older: a plain `>` would keep it.
        let stale = TestPNG.make(width: 2, height: 2, rgba: [UInt8](repeating: 9, count: 16), text: [
            ("Thumb::URI", Subject(photo).uri), ("Thumb::MTime", String(st.st_mtim.tv_sec + 100)),
        ])
        try Fixture.write(stale, to: path)
        let before = try Fixture.status(path)
        #expect(c.existing(for: photo, size: .normal) == nil)
        #expect(try await c.thumbnail(for: photo, mimeType: nil, size: .normal) == path)
        let png = try Fixture.bytes(path)
        #expect(try Fixture.status(path).st_ino != before.st_ino)
        #expect(TestPNG.text(png)["Thumb::MTime"] == String(st.st_mtim.tv_sec))
        #expect(TestPNG.header(png)?.width == 128)

        // A recorded Size that differs makes it stale too.
        let sized = TestPNG.make(width: 2, height: 2, rgba: [UInt8](repeating: 9, count: 16), text: [
            ("Thumb::URI", Subject(photo).uri), ("Thumb::MTime", String(st.st_mtim.tv_sec)), ("Thumb::Size", "1"),
        ])
        try Fixture.write(sized, to: path)
        #expect(c.existing(for: photo, size: .normal) == nil)
    }

    /// A PNG's damage is told the same way every time (libvips alone thumbnailed this file in 9
    /// runs of 40): a critical chunk's checksum, and a file cut before IEND. A damaged text chunk
    /// is only ignored, as libpng does.
    @Test func aDamagedPNGIsRefusedEveryTime() async throws {
        let dir = Fixture.dir()
        var png = TestPNG.make(width: 64, height: 64, rgba: [UInt8](repeating: 120, count: 64 * 64 * 4), text: [("Comment", "hello")])
        let good = "\(dir)/good.png", flipped = "\(dir)/flipped.png", cut = "\(dir)/cut.png", text = "\(dir)/text.png"
        try Fixture.write(png, to: good)
        try Fixture.write(Array(png.dropLast(12)), to: cut)
        // A byte of the text chunk's keyword changed, its CRC left as it was.
        var badText = png
        let at = try #require((0..<png.count - 4).first { png[$0..<$0 + 4].elementsEqual("tEXt".utf8) })
        badText[at + 5] ^= 0x01
        try Fixture.write(badText, to: text)
        for i in stride(from: png.count / 2, to: png.count / 2 + 40, by: 4) { png[i] ^= 0x5A }
        try Fixture.write(png, to: flipped)
        for _ in 0..<20 {
            do {
                _ = try await StillImage.thumbnail(at: flipped, box: .square(128))
                Issue.record("flipped.png was decoded")
            } catch {
                #expect(error.kind == .input && error.message.contains(flipped) && error.message.contains("IDAT chunk's checksum"), "\(error.message)")
            }
        }
        await #expect(throws: GpickError.self) { _ = try await StillImage.thumbnail(at: cut, box: .square(128)) }
        #expect(try await StillImage.thumbnail(at: good, box: .square(128)).width == 64)
        #expect(try await StillImage.thumbnail(at: text, box: .square(128)).width == 64, "a damaged text chunk is only ignored")
    }

    @Test func remembersFilesThatCannotBeDecodedUntilTheyChange() async throws {
        let dir = Fixture.dir()
        let c = cache(dir)
        let good = "\(dir)/good.jpg"
        try await Fixture.jpeg(good)
        let jpeg = try Fixture.bytes(good)
        let truncated = "\(dir)/truncated.jpg", empty = "\(dir)/empty.jpg", flipped = "\(dir)/flipped.png", text = "\(dir)/notes.jpg"
        try Fixture.write(Array(jpeg.prefix(jpeg.count / 2)), to: truncated)
        try Fixture.write([], to: empty)
        var png = TestPNG.make(width: 64, height: 64, rgba: [UInt8](repeating: 120, count: 64 * 64 * 4))
        for i in stride(from: png.count / 2, to: png.count / 2 + 40, by: 4) { png[i] ^= 0x5A }
        try Fixture.write(png, to: flipped)
        try Fixture.write(Array("not an image at all\n".utf8), to: text)

        for file in [truncated, empty, flipped, text] {
            let start = Date()
            do {
                _ = try await c.thumbnail(for: file, mimeType: nil, size: .normal)
                Issue.record("\(file) was thumbnailed")
            } catch {
                #expect(error.kind == .input)
                #expect(error.message.contains(file))
                #expect(!error.message.contains("\n"))
                #expect(!error.message.lowercased().contains("vips"), "\(error.message)")
            }
            // A hang guard, not a timing: on the suite's loaded 2 cores the first call (libvips and
            // GStreamer starting under one lock, GStreamer's registry built afresh) has taken 16 s
            // and 30 s; alone it takes 0.2-0.5 s. A hang never ends, so the bound is wide.
            let took = Date().timeIntervalSince(start)
            #expect(took < HangBound.seconds(120), "\(file) took \(took) s")
            let fail = c.failPath(for: file)
            #expect(fail.hasPrefix("\(dir)/cache/thumbnails/fail/gpick-\(Self.version)/"))
            let record = try Fixture.bytes(fail)
            #expect(TestPNG.text(record)["Thumb::URI"] == Subject(file).uri)
            #expect(TestPNG.text(record)["Thumb::MTime"] == String(try Fixture.status(file).st_mtim.tv_sec))
            #expect(try Fixture.status(fail).st_mode & 0o777 == 0o600)
            #expect(FileManager.default.fileExists(atPath: c.path(for: file, size: .normal)) == false)

            // Not tried again while it is unchanged: the record stays, the error says so.
            let inode = try Fixture.status(fail).st_ino
            await #expect(throws: GpickError.self) { try await c.thumbnail(for: file, mimeType: nil, size: .normal) }
            do { _ = try await c.thumbnail(for: file, mimeType: nil, size: .normal) } catch {
                #expect(error.message.contains("failed before"))
            }
            #expect(try Fixture.status(fail).st_ino == inode)
        }

        // Once the file changes, it is tried again (and this time it decodes).
        try Fixture.write(jpeg, to: truncated)
        Fixture.setMTime(truncated, Int(Date().timeIntervalSince1970) + 10)
        let path = try await c.thumbnail(for: truncated, mimeType: nil, size: .normal)
        #expect(TestPNG.header(try Fixture.bytes(path))?.width == 128)
    }

    @Test func refusesADecompressionBombFromItsHeader() async throws {
        let dir = Fixture.dir()
        let c = cache(dir)
        let bomb = "\(dir)/bomb.png"
        try Fixture.write(TestPNG.bomb(width: 100_000, height: 100_000), to: bomb)
        // A JPEG whose SOF claims 65500×65500.
        let small = "\(dir)/small.jpg", big = "\(dir)/big.jpg"
        try await Fixture.jpeg(small, width: 64, height: 48)
        let original: [UInt8] = try Fixture.bytes(small)
        let isSOF = { (i: Int) -> Bool in original[i] == 0xFF && (original[i + 1] == 0xC0 || original[i + 1] == 0xC2) }
        let sof: Int = try #require((0..<(original.count - 9)).first(where: isSOF))
        var jpeg = original
        jpeg[sof + 5] = 0xFF; jpeg[sof + 6] = 0xDC; jpeg[sof + 7] = 0xFF; jpeg[sof + 8] = 0xDC
        try Fixture.write(jpeg, to: big)

        // Peak memory is checked on the command (ThumbCLITests): this process runs other tests at once.
        for (file, size) in [(bomb, "100000×100000"), (big, "65500×65500")] {
            // Refused from the header: the message names the size the header claims, and no
            // decode of 10^10 pixels (minutes, or out of memory with another message) happens
            // within the hang bound (timed without the cache's queue).
            let start = Date()
            let direct = await OffPool.run { () -> GpickError? in
                do throws(GpickError) { _ = try StillImage.thumbnail(path: file, box: .square(256)); return nil } catch { return error }
            }
            #expect(Date().timeIntervalSince(start) < HangBound.seconds(30))
            #expect(direct?.message == "\(file): image too large: \(size) pixels (limit 1000 MP)")
            do {
                _ = try await c.thumbnail(for: file, mimeType: nil, size: .large)
                Issue.record("\(file) was decoded")
            } catch {
                #expect(error.message == "\(file): image too large: \(size) pixels (limit 1000 MP)")
            }
            #expect(FileManager.default.fileExists(atPath: c.failPath(for: file)))
        }
    }

    @Test func refusesFilesInsideTheCacheAndMissingFiles() async throws {
        let dir = Fixture.dir()
        let c = cache(dir)
        let photo = "\(dir)/p.jpg"
        try await Fixture.jpeg(photo, width: 64, height: 64)
        let thumb = try await c.thumbnail(for: photo, mimeType: nil, size: .normal)
        await #expect(throws: GpickError.self) { try await c.thumbnail(for: thumb, mimeType: nil, size: .normal) }
        #expect(c.existing(for: thumb, size: .normal) == nil)
        // Through a symlink to the cache, too.
        try FileManager.default.createSymbolicLink(atPath: "\(dir)/link", withDestinationPath: "\(dir)/cache/thumbnails/normal")
        await #expect(throws: GpickError.self) {
            try await c.thumbnail(for: "\(dir)/link/\(URL(fileURLWithPath: thumb).lastPathComponent)", mimeType: nil, size: .normal)
        }
        do { _ = try await c.thumbnail(for: "\(dir)/nothing.jpg", mimeType: nil, size: .normal) } catch {
            #expect(error.message == "no such file: \(dir)/nothing.jpg")
        }
        #expect(!FileManager.default.fileExists(atPath: c.failPath(for: "\(dir)/nothing.jpg")))
        // A small image is not enlarged.
        #expect(TestPNG.header(try Fixture.bytes(try await c.thumbnail(for: photo, mimeType: nil, size: .large)))?.width == 64)
    }

    @Test func theDecodeGateBoundsWorkAndLetsCancelledWaitersGo() async throws {
        let gate = DecodeGate(limit: 1)
        let count = Monitor((running: 0, peak: 0))
        let enter: @Sendable () -> Void = { count.withLock { $0.running += 1; $0.peak = max($0.peak, $0.running) } }
        let leave: @Sendable () -> Void = { count.withLock { $0.running -= 1 } }
        let release = Signal()
        let first = Task {
            try await gate.run { () async throws(GpickError) in
                enter()
                await release.wait(timeout: 5)
                leave()
            }
        }
        while count.withLock({ $0.running }) == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        // A waiter whose task is cancelled leaves the queue at once, with a typed error.
        let waiter = Task { () async -> GpickError? in
            do throws(GpickError) { try await gate.run { () async throws(GpickError) in }; return nil } catch { return error }
        }
        try await Task.sleep(nanoseconds: 20_000_000)
        waiter.cancel()
        #expect(await waiter.value?.kind == .interrupted)
        // The others run one at a time once the first is done.
        let others = (0..<4).map { _ in
            Task {
                try await gate.run { () async throws(GpickError) in
                    enter()
                    try? await Task.sleep(nanoseconds: 2_000_000)
                    leave()
                }
            }
        }
        release.fire()
        try await first.value
        for o in others { try await o.value }
        #expect(count.withLock { $0.peak } == 1)
    }

    /// A cut photo asked for many times at once (a page's batch and its cell's retry): every
    /// answer gives the same reason. (libvips' error text is one buffer for the whole process:
    /// two failures of one file at once could leave one of them without its text.)
    @Test func aDamagedPhotoAskedForAtOnceFailsTheSameWayEveryTime() async throws {
        let dir = Fixture.dir()
        let c = cache(dir)
        let good = "\(dir)/good.jpg"
        try await Fixture.jpeg(good, width: 1280, height: 960)
        let jpeg = try Fixture.bytes(good)
        let cut = "\(dir)/cut.jpg"
        try Fixture.write(Array(jpeg.prefix(jpeg.count * 2 / 3)), to: cut)
        let reasons = await withTaskGroup(of: String.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    do {
                        _ = try await c.thumbnailPNG(for: cut, mimeType: "image/jpeg", size: .normal)
                        return "thumbnailed"
                    } catch {
                        return (error as? GpickError)?.message ?? "\(error)"
                    }
                }
            }
            var out: [String] = []
            for await r in group { out.append(r) }
            return out
        }
        #expect(reasons.allSatisfy { $0.contains("the file is truncated or damaged") }, "\(reasons)")
    }

    @Test func manyRequestsAtOnceAllSucceed() async throws {
        let dir = Fixture.dir()
        let c = cache(dir)
        var files: [String] = []
        for i in 0..<6 {
            let f = "\(dir)/p\(i).jpg"
            try await Fixture.jpeg(f, width: 320 + 16 * i, height: 240)
            files.append(f)
        }
        // Each file asked for three times at once.
        let paths = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for f in files + files + files {
                group.addTask { (f, try await c.thumbnail(for: f, mimeType: nil, size: .normal)) }
            }
            var out: [String: Set<String>] = [:]
            for try await (f, p) in group { out[f, default: []].insert(p) }
            return out
        }
        for f in files {
            #expect(paths[f] == [c.path(for: f, size: .normal)])
            #expect(TestPNG.header(try Fixture.bytes(c.path(for: f, size: .normal)))?.width == 128)
        }
        #expect(TestEnvironment.files(in: "\(dir)/cache/thumbnails/normal").count == files.count)
    }
}
