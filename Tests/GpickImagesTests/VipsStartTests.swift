import Foundation
@testable import GpickImages
import Testing

/// libvips as gpick starts it: only the modules of the loaders it allows are in the process, each
/// once a file needs it, and no VIPSHOME is left behind for the programs gpick runs.
struct VipsStartTests {
    @Test func onlyTheAllowedLoadersModulesAreLoaded() throws {
        try Vips.start()
        // Whichever tests of this process came first, both are needed now.
        Vips.loadModules(forHead: [0, 0, 0, 0x1C] + Array("ftypheic".utf8))
        Vips.loadModules(forHead: [0xFF, 0x0A, 0xFA])
        // Read, not stat'ed: /proc files say they are empty.
        let maps = String(decoding: try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() ?? Data(), as: UTF8.self)
        let modules = Set(maps.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.contains("/vips-modules-") else { return nil }
            return String(path.split(separator: "/").last ?? "")
        })
        #expect(modules == ["vips-heif.so", "vips-jxl.so"], "\(modules)")
        #expect(ProcessInfo.processInfo.environment["VIPSHOME"] == nil)
    }

    /// The first bytes that decide which module a file may need, as the modules' loaders check
    /// them. (`StartupTests` shows which modules a JPEG's, a HEIC's or a JPEG XL's command opens.)
    @Test func aFilesFirstBytesNameTheModuleItNeeds() {
        typealias M = Vips.Module
        let box = { (brand: String) in [0, 0, 0, 0x18] + Array("ftyp\(brand)".utf8) }
        #expect(M.needed(byHead: box("heic")) == [.heif])
        #expect(M.needed(byHead: box("avif")) == [.heif])
        #expect(M.needed(byHead: box("mif1")) == [.heif])
        #expect(M.needed(byHead: [0xFF, 0x0A, 0xFA, 0x7F]) == [.jxl])
        #expect(M.needed(byHead: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == [.jxl])
        #expect(M.needed(byHead: [0xFF, 0xD8, 0xFF, 0xE1, 0, 0x10, 0x45, 0x78, 0x69, 0x66, 0, 0]) == [])
        #expect(M.needed(byHead: [0x89] + Array("PNG\r\n".utf8)) == [])
        #expect(M.needed(byHead: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)) == [])
        // Cut short: too little to be either.
        #expect(M.needed(byHead: [0, 0, 0, 0x18, 0x66, 0x74]) == [])
        #expect(M.needed(byHead: [0xFF]) == [])
        #expect(M.needed(byHead: []) == [])
    }
}
