import Foundation
import GpickTestSupport
import Testing

/// Real files for the tests, made with the tools a user has (gst-launch, exiftool, ffmpeg), and a
/// PNG writer and reader of the tests' own, independent of the code under test.
enum Fixture {
    /// A fresh directory for one test, with a cache base of its own inside (never ~/.cache).
    static func dir(_ name: String = #function) -> String { TestEnvironment.tempDir("thumb-" + name) }

    static func tool(_ exe: String, _ args: [String]) async throws {
        let r = try await Subprocess.run(exe, args, timeout: 30)
        guard r.status == 0 else { throw TestFailure("\(exe) \(args.joined(separator: " ")): \(r.stderr.suffix(400))") }
    }

    /// A `width`×`height` JPEG of GStreamer's test pattern; with `orientation`, an EXIF tag saying
    /// how to turn it upright (6: rotate 90° clockwise).
    static func jpeg(_ path: String, width: Int = 640, height: Int = 480, orientation: Int? = nil) async throws {
        try await tool("/usr/bin/gst-launch-1.0", ["-q", "videotestsrc", "num-buffers=1", "!",
                                                  "video/x-raw,width=\(width),height=\(height)", "!", "jpegenc", "!",
                                                  "filesink", "location=\(path)"])
        if let orientation {
            try await ExifTool.check(["-q", "-overwrite_original", "-Orientation#=\(orientation)", path])
        }
    }

    /// An H.264 MP4 of `seconds` of test pattern (320×240, 30 fps).
    static func video(_ path: String, seconds: Int = 3, pattern: String = "smpte") async throws {
        try await tool("/usr/bin/gst-launch-1.0", ["-q", "videotestsrc", "pattern=\(pattern)", "num-buffers=\(seconds * 30)", "!",
                                                  "video/x-raw,width=320,height=240,framerate=30/1,format=I420", "!",
                                                  "x264enc", "tune=zerolatency", "key-int-max=15", "!", "mp4mux", "!",
                                                  "filesink", "location=\(path)"])
    }

    /// Two seconds of black, then two of colour bars, in one MP4 (keyframes every half second).
    static func blackThenBars(_ path: String) async throws {
        try await tool("/usr/bin/ffmpeg", ["-loglevel", "error", "-y",
                                           "-f", "lavfi", "-i", "color=c=black:s=320x240:r=30:d=2",
                                           "-f", "lavfi", "-i", "smptebars=s=320x240:r=30:d=2",
                                           "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]",
                                           "-c:v", "libx264", "-g", "15", "-pix_fmt", "yuv420p", path])
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw TestFailure("cannot write \(path)") }
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func status(_ path: String) throws -> stat {
        var st = stat()
        guard stat(path, &st) == 0 else { throw TestFailure("no file \(path)") }
        return st
    }

    /// Sets a file's mtime (seconds since the epoch).
    static func setMTime(_ path: String, _ seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        utimensat(AT_FDCWD, path, &times, 0)
    }

    /// Decodes any image GStreamer reads to packed RGB (not through libvips).
    static func rgb(_ path: String) async throws -> (width: Int, height: Int, pixels: [UInt8]) {
        try await Media.rgb(path)
    }

    static func meanLuma(_ img: (width: Int, height: Int, pixels: [UInt8])) -> Double {
        var sum = 0.0
        for i in stride(from: 0, to: img.pixels.count, by: 3) {
            sum += 0.299 * Double(img.pixels[i]) + 0.587 * Double(img.pixels[i + 1]) + 0.114 * Double(img.pixels[i + 2])
        }
        return sum / Double(img.width * img.height)
    }
}

/// PNG bytes, written and read by the tests themselves: stored (uncompressed) deflate blocks, so
/// no zlib is needed, and a chunk reader for tEXt keys and IHDR.
enum TestPNG {
    /// An 8-bit RGBA PNG of `rgba` pixels, with tEXt chunks (zTXt with `compressed`) before IDAT.
    static func make(width: Int, height: Int, rgba: [UInt8], text: [(String, String)] = [], compressed: Bool = false) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height { raw.append(0); raw += rgba[(y * width * 4)..<((y + 1) * width * 4)] }
        var png: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0])
        for (k, v) in text {
            png += compressed ? chunk("zTXt", Array(k.utf8) + [0, 0] + zlib(Array(v.utf8))) : chunk("tEXt", Array(k.utf8) + [0] + Array(v.utf8))
        }
        png += chunk("IDAT", zlib(raw))
        png += chunk("IEND", [])
        return png
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlib(_ raw: [UInt8]) -> [UInt8] {
        var z: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let n = min(65535, raw.count - at)
            let last: UInt8 = at + n == raw.count ? 1 : 0
            z += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            z += raw[at..<(at + n)]
            at += n
        } while at < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        z += be32(b << 16 | a)
        return z
    }

    /// A PNG header claiming `width`×`height` RGBA pixels (IHDR with a right CRC), then garbage.
    static func bomb(width: Int, height: Int) -> [UInt8] {
        var png: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0])
        let garbage = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        png += chunk("IDAT", garbage)
        png += garbage
        return png
    }

    struct Header: Equatable { var width: Int; var height: Int; var bitDepth: Int; var colorType: Int; var interlace: Int }

    static func header(_ png: [UInt8]) -> Header? {
        guard let ihdr = chunks(png).first, ihdr.type == "IHDR" else { return nil }
        let d = ihdr.data
        return Header(width: Int(read32(d, 0)), height: Int(read32(d, 4)), bitDepth: Int(d[8]), colorType: Int(d[9]), interlace: Int(d[12]))
    }

    /// tEXt keys, and the names of the chunks that carry them.
    static func text(_ png: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        for c in chunks(png) where c.type == "tEXt" {
            guard let nul = c.data.firstIndex(of: 0) else { continue }
            out[String(decoding: c.data[..<nul], as: UTF8.self)] = String(decoding: c.data[(nul + 1)...], as: UTF8.self)
        }
        return out
    }

    static func chunks(_ png: [UInt8]) -> [(type: String, data: [UInt8])] {
        var out: [(String, [UInt8])] = []
        var at = 8
        while at + 12 <= png.count {
            let n = Int(read32(png, at))
            guard at + 12 + n <= png.count else { break }
            out.append((String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self), Array(png[(at + 8)..<(at + 8 + n)])))
            at += 12 + n
        }
        return out
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        return be32(UInt32(data.count)) + t + data + be32(crc(t + data))
    }

    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func read32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}
