import Foundation
import GpickTestSupport
import Testing

/// What every command pays before its first line runs.
@Suite struct StartupTests {
    /// gpick links FoundationEssentials only: Foundation (and with it ICU, NSRegularExpression,
    /// NSString) made every one-shot command load and relocate ~50 MB more. One `import Foundation`
    /// in the library or the CLI brings it all back. (After an import is removed, an incremental
    /// debug build may keep the old link entries of files it did not recompile: build clean.)
    @Test func executableDoesNotLinkFoundation() async throws {
        let r = try await Subprocess.run("/usr/bin/readelf", ["-d", TestEnvironment.binary])
        #expect(r.status == 0, "\(r.stderr)")
        let needed = r.stdoutLines.filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("[libgstreamer-1.0.so.0]") }, "\(needed)")
        let full = needed.filter { $0.contains("[libFoundation.so]") || $0.contains("Internationalization") || $0.contains("ICU") }
        #expect(full.isEmpty, "gpick links \(full): a module of the library or the CLI imports Foundation (use FoundationEssentials)")
    }

    /// libvips' HEIF and JPEG XL modules (libheif's codecs, libjxl) load when a file needs
    /// them, not for every still: `thumb` and `inspect` of a JPEG, PNG or WebP open neither, and
    /// no command opens libvips' other modules (ImageMagick's, poppler's, OpenSlide's). The same
    /// with VIPSHOME set as libvips leaves it for the programs started after its own start.
    /// The loader's own record (LD_DEBUG, written to files: gpick keeps libraries' text off
    /// stderr) says which shared objects each run opened.
    @Test(arguments: [("a.jpg", [String]()), ("lossy.webp", []), ("p.png", []), ("i.heic", ["vips-heif"]),
                      ("i.avif", ["vips-heif"]), ("i.jxl", ["vips-jxl"])])
    func libvipsModulesLoadForTheFilesThatNeedThem(_ file: String, _ expected: [String]) async throws {
        let f = try await MediaFixtures.get()
        let dir = TestEnvironment.tempDir()
        let runs: [([String], [String: String])] = [
            (["inspect", f.path(file)], [:]), (["thumb", f.path(file), "-o", "\(dir)/t.png"], [:]),
            (["thumb", f.path(file), "-o", "\(dir)/u.png"], ["VIPSHOME": "/usr"]),
        ]
        for (n, (args, env)) in runs.enumerated() {
            let log = "\(dir)/ld-\(n)"
            let r = try await Subprocess.gpick(args, env: env.merging(["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": log]) { a, _ in a })
            #expect(r.status == 0, "\(args) \(env): \(r.stderr)")
            let logs = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("ld-\(n).") }
            let text = try logs.map { try String(contentsOfFile: "\(dir)/\($0)", encoding: .utf8) }.joined()
            #expect(text.contains("libvips.so"), "\(args): the record shows no libvips at all")
            let opened = ["vips-heif", "vips-jxl", "vips-magick", "vips-poppler", "vips-openslide"].filter { text.contains("/\($0).so") }
            #expect(opened == expected, "\(args[0]) \(file) \(env) opened \(opened)")
        }
    }
}
