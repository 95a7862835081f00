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
}
