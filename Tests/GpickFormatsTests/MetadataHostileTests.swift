import Foundation
import GpickTestSupport
import Testing
import GpickBase
@testable import GpickFormats

/// Every input is hostile: empty, truncated, bit-flipped, lying sizes. Each read must end
/// quickly with an error or a (partial) result, never a crash, a hang or a huge allocation.
@Suite struct MetadataHostileTests {
    /// Counts what a reader asks of its source (and bounds it).
    final class Counting: ByteSource, @unchecked Sendable {
        let base: MemoryBytes
        var reads = 0, bytes = 0
        init(_ b: [UInt8]) { base = MemoryBytes(b) }
        var size: Int { base.size }
        func read(at offset: Int, count: Int) throws(GpickError) -> [UInt8] {
            reads += 1
            let r = base.read(at: offset, count: count)
            bytes += r.count
            return r
        }
    }

    static let samples = ["exif.jpg", "google.jpg", "samsung.jpg", "samsung-old.jpg", "apple.jpg", "tagged.png", "exif.webp", "lossless.webp",
                          "i.gif", "exif.tiff", "exif.heic", "i.avif", "v.mp4", "keys.mov", "apple.mov", "v.mkv", "v.webm", "v.avi"]

    /// Reads that must not crash; the outcome itself is free (error or partial result).
    static func survive(_ bytes: [UInt8]) -> MediaMetadata? {
        try? MetadataReader.read(MemoryBytes(bytes))
    }

    @Test func emptyFileIsAnError() async throws {
        let f = try await MediaFixtures.get()
        let path = f.path("empty-\(UUID().uuidString.prefix(6)).jpg")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: GpickError.self) { try MetadataReader.read(path: path) }
        do { _ = try MetadataReader.read(path: path) } catch {
            #expect(error.message == "\(path): empty file" && error.kind == .input)
        }
        #expect(throws: GpickError.self) { try MetadataReader.read(MemoryBytes([])) }
    }

    @Test func fileErrorsNameThePath() async throws {
        do { _ = try MetadataReader.read(path: "/nonexistent/x.jpg") } catch {
            #expect(error.message == "cannot read /nonexistent/x.jpg: no such file or directory")
        }
        do { _ = try MetadataReader.read(path: "/tmp") } catch {
            #expect(error.message == "cannot read /tmp: it is a directory")
        }
        // A FIFO must not block the scanner on open.
        let f = try await MediaFixtures.get()
        let fifo = f.path("fifo-\(UUID().uuidString.prefix(6))")
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        do { _ = try MetadataReader.read(path: fifo) } catch {
            #expect(error.message == "cannot read \(fifo): not a regular file")
        }
        let garbage = f.path("garbage-\(UUID().uuidString.prefix(6)).jpg")
        _ = FileManager.default.createFile(atPath: garbage, contents: Data("hello, not an image".utf8))
        defer { try? FileManager.default.removeItem(atPath: garbage) }
        do { _ = try MetadataReader.read(path: garbage) } catch {
            #expect(error.message == "\(garbage): unknown file type")
        }
    }

    /// FileBytes on an fd the caller owns: not closed by it.
    @Test func fileBytesOnABorrowedFD() async throws {
        let f = try await MediaFixtures.get()
        let fd = open(f.path("exif.jpg"), O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        do {
            let src = try FileBytes(fd: fd, path: f.path("exif.jpg"))
            #expect(try MetadataReader.read(src).orientation == 6)
            #expect(try src.read(at: src.size - 2, count: 100) == [0xFF, 0xD9], "short read at the end")
            #expect(try src.read(at: src.size + 5, count: 10).isEmpty)
        }
        #expect(fcntl(fd, F_GETFD) != -1, "still open")
    }

    /// Cut at many offsets: every prefix of the header region, then spread over the rest.
    @Test func truncatedAnywhere() async throws {
        let f = try await MediaFixtures.get()
        for name in Self.samples {
            let bytes = try f.bytes(name)
            var cuts = Array(stride(from: 0, to: min(bytes.count, 600), by: 7))
            cuts += stride(from: 600, to: bytes.count, by: max(1, bytes.count / 40))
            for n in cuts { _ = Self.survive(Array(bytes[..<n])) }
        }
        // A truncated motion photo keeps its still, and the video is no longer trusted.
        let google = try f.bytes("google.jpg")
        let cut = try #require(Self.survive(Array(google.dropLast(1000))))
        #expect(cut.motionPhoto == nil && cut.motionPhotoProblem != nil && cut.width == 640)
    }

    /// Seeded bit flips, concentrated on the headers where the parsing happens.
    @Test func bitFlipped() async throws {
        let f = try await MediaFixtures.get()
        var rng = SeededRandom(state: 0x6770_6963_6B21)
        for name in Self.samples {
            let original = try f.bytes(name)
            for _ in 0..<60 {
                var b = original
                for _ in 0..<(1 + rng.below(8)) {
                    let at = rng.below(3) == 0 ? rng.below(b.count) : rng.below(min(b.count, 4096))
                    b[at] ^= UInt8(1 << rng.below(8))
                }
                _ = Self.survive(b)
            }
        }
    }

    @Test func hugeSOFIsJustReported() throws {
        var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 8, 0xFF, 0xDC, 0xFF, 0xDC, 3]
        jpeg += [1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        jpeg += [0xFF, 0xD9]
        let m = try MetadataReader.read(MemoryBytes(jpeg))
        #expect(m.width == 65500 && m.height == 65500 && m.container == .jpeg)
    }

    @Test func jpegWithoutFrameHeader() {
        #expect(throws: GpickError.self) { try MetadataReader.read(MemoryBytes([0xFF, 0xD8, 0xFF, 0xD9])) }
        do { _ = try MetadataReader.read(MemoryBytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0])) } catch {
            #expect(error.message == "not a JPEG image: no frame header before the end of the file")
        }
    }

    static func box(_ type: String, _ payload: [UInt8], size: UInt32? = nil) -> [UInt8] {
        let s = size ?? UInt32(payload.count + 8)
        return [UInt8(s >> 24), UInt8(s >> 16 & 0xFF), UInt8(s >> 8 & 0xFF), UInt8(s & 0xFF)] + Array(type.utf8) + payload
    }
    static let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isommp41".utf8))

    @Test func boxesWithLyingSizes() {
        let mvhd = Self.box("mvhd", [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + [0, 0, 0x03, 0xE8, 0, 0, 0x0B, 0xB8] + [UInt8](repeating: 0, count: 80))
        // moov with size 0: runs to the end of the file.
        let toEnd = Self.ftyp + Self.box("moov", mvhd, size: 0)
        #expect((try? MetadataReader.read(MemoryBytes(toEnd)))?.duration == 3)
        // moov with a 64-bit largesize.
        let large = Self.ftyp + [0, 0, 0, 1] + Array("moov".utf8) + [0, 0, 0, 0, 0, 0, 0, UInt8(16 + mvhd.count)] + mvhd
        #expect((try? MetadataReader.read(MemoryBytes(large)))?.duration == 3)
        // largesize smaller than its header; a 2 GiB mdat in a tiny file; a box of size 3.
        let bad: [[UInt8]] = [
            Self.ftyp + [0, 0, 0, 1] + Array("moov".utf8) + [0, 0, 0, 0, 0, 0, 0, 4],
            Self.ftyp + Self.box("mdat", [1, 2, 3], size: 0x7FFF_FFFF) + Self.box("moov", mvhd),
            Self.ftyp + Self.box("free", [], size: 3) + Self.box("moov", mvhd),
            Self.ftyp + [0, 0, 0, 1] + Array("mdat".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            Self.ftyp + Self.box("moov", Self.box("trak", Self.box("tkhd", [1]) + Self.box("mdia", [], size: 0))),
            Self.ftyp + Self.box("moov", Self.box("meta", Self.box("keys", [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]) + Self.box("ilst", []))),
        ]
        for b in bad {
            do { _ = try MetadataReader.read(MemoryBytes(b)) } catch {
                #expect(error.kind == .input && !error.message.isEmpty)
            }
        }
        do { _ = try MetadataReader.read(MemoryBytes(Self.ftyp + Self.box("mdat", [1, 2, 3]))) } catch {
            #expect(error.message == "truncated MP4: no moov box")
        }
    }

    /// Samsung trailers, IFDs and XMP that lie about their sizes and counts.
    @Test func lyingTrailersAndDirectories() async throws {
        let f = try await MediaFixtures.get()
        let jpeg = try f.bytes("a.jpg")
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let trailers: [[UInt8]] = [
            Array("SEFH".utf8) + le32(101) + le32(0x7FFF_FFFF) + le32(24) + Array("SEFT".utf8),
            Array("SEFH".utf8) + le32(101) + le32(1) + [0, 0, 0x30, 0x0A] + le32(1 << 30) + le32(8) + le32(24) + Array("SEFT".utf8),
            le32(0xFFFF) + Array("SEFT".utf8),
        ]
        for t in trailers {
            let m = try MetadataReader.read(MemoryBytes(jpeg + t))
            #expect(m.motionPhoto == nil && m.width == 640)
        }
        // An IFD claiming 65535 entries; Exif pointers outside the data.
        let tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0xFF, 0xFF, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]
        let app1 = [0xFF, 0xE1, 0, UInt8(2 + 6 + tiff.count)] + Array("Exif\0\0".utf8) + tiff
        let m = try MetadataReader.read(MemoryBytes(Array(jpeg[..<2]) + app1 + Array(jpeg[2...])))
        #expect(m.orientation == nil && m.width == 640)
        // 60 KiB of namespace declarations: scanned in bounded time.
        let junk = String(repeating: "xmlns:a=\"http://ns.google.com/photos/1.0/camera/\" ", count: 1200)
        #expect(XMPFacts(Array(junk.utf8)).motionPhoto == false)
    }

    /// The scanner's budget: a handful of reads per file, never the media data.
    @Test func readsOnlyHeaders() async throws {
        let f = try await MediaFixtures.get()
        for (name, maxReads) in [("exif.jpg", 4), ("google.jpg", 5), ("samsung.jpg", 6), ("tagged.png", 3), ("v.mp4", 6),
                                 ("keys.mov", 6), ("exif.heic", 5), ("v.mkv", 3)] {
            let bytes = try f.bytes(name)
            let src = Counting(bytes)
            _ = try MetadataReader.read(src)
            #expect(src.reads <= maxReads, "\(name): \(src.reads) reads")
            // The head block, the moov or meta box, a few headers: never the whole file.
            #expect(src.bytes <= 64 * 1024 + 256 * 1024 || src.bytes < bytes.count / 2, "\(name): \(src.bytes) of \(bytes.count) bytes")
        }
        // A 4 MiB photo: one read of its head, nothing of its image data or its tail.
        let big = Counting(try f.bytes("exif.jpg") + [UInt8](repeating: 0, count: 4 << 20))
        #expect(try MetadataReader.read(big).orientation == 6)
        #expect(big.reads == 1 && big.bytes == 64 * 1024)
    }
}
