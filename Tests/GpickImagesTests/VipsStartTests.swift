import Foundation
@testable import GpickImages
import Testing

/// libvips as gpick starts it: only the modules of the loaders it allows are in the process, and
/// no VIPSHOME is left behind for the programs gpick runs.
struct VipsStartTests {
    @Test func onlyTheAllowedLoadersModulesAreLoaded() throws {
        try Vips.start()
        // Read, not stat'ed: /proc files say they are empty.
        let maps = String(decoding: try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() ?? Data(), as: UTF8.self)
        let modules = Set(maps.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.contains("/vips-modules-") else { return nil }
            return String(path.split(separator: "/").last ?? "")
        })
        #expect(modules == ["vips-heif.so", "vips-jxl.so"], "\(modules)")
        #expect(ProcessInfo.processInfo.environment["VIPSHOME"] == nil)
    }
}
