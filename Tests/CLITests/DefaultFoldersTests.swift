import Foundation
import GpickTestSupport
import Testing

/// The library's default folders are a guess: a new account has ~/Pictures and no ~/Videos, and
/// a scan says nothing of the missing one. A folder the user named (user-dirs.dirs here) that is
/// missing is said, once.
@Suite struct DefaultFoldersTests {
    @Test func aMissingDefaultFolderIsSkippedWithoutAWord() async throws {
        let f = try await MediaFixtures.get()
        let home = TestEnvironment.tempDir()
        try FileManager.default.createDirectory(atPath: home + "/Pictures", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: f.path("a.jpg"), toPath: home + "/Pictures/a.jpg")
        let env = ["HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config", "GPICK_LIBRARY": ""]
        let scan = try await Subprocess.gpick(["library", "scan"], env: env)
        #expect(scan.status == 0 && scan.stderr.isEmpty, "\(scan.stderr)")
        let list = try await Subprocess.gpick(["library", "list", "--json"], env: env)
        #expect(LibraryCLI.events(list.stdout).contains { ($0["path"] as? String)?.hasSuffix("/Pictures/a.jpg") == true }, "\(list.stdout)")
        // A video imported then goes to the Videos folder, made for it, and is indexed there.
        let imported = try await Subprocess.gpick(["library", "import", f.path("v.mp4")], env: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        let again = try await Subprocess.gpick(["library", "list", "--json"], env: env)
        #expect(LibraryCLI.events(again.stdout).contains { ($0["path"] as? String)?.contains("/Videos/") == true }, "\(again.stdout)")

        // Named by user-dirs, a missing folder is the user's word: said.
        try FileManager.default.createDirectory(atPath: home + "/config", withIntermediateDirectories: true)
        try "XDG_PICTURES_DIR=\"$HOME/Pictures\"\nXDG_VIDEOS_DIR=\"$HOME/Films\"\n"
            .write(toFile: home + "/config/user-dirs.dirs", atomically: false, encoding: .utf8)
        let named = try await Subprocess.gpick(["library", "scan"], env: env)
        #expect(named.stderrLines.count == 1 && named.stderr.contains(home + "/Films"), "\(named.stderr)")
    }
}
