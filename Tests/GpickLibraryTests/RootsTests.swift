import Foundation
import Testing
@testable import GpickLibrary

@Suite struct RootsTests {
    @Test func userDirsReadsHomeRelativeAndAbsoluteValues() {
        let text = """
        # This file is written by xdg-user-dirs-update
        XDG_DESKTOP_DIR="$HOME/"
        XDG_PICTURES_DIR="$HOME/Bilder"
          XDG_VIDEOS_DIR="/media/films"
        XDG_MUSIC_DIR=relative/not/allowed
        XDG_DOCUMENTS_DIR="$HOME/My \\"Docs\\""
        #XDG_DOWNLOAD_DIR="$HOME/Downloads"
        """
        let dirs = UserDirs.parse(text, home: "/home/ann")
        #expect(dirs == ["PICTURES": "/home/ann/Bilder", "VIDEOS": "/media/films", "DOCUMENTS": "/home/ann/My \"Docs\""])
    }

    @Test func explicitFoldersWinOverTheEnvironmentAndUserDirs() throws {
        let home = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: home.path + "/cfg", withIntermediateDirectories: true)
        try "XDG_PICTURES_DIR=\"$HOME/Fotos\"\n".write(toFile: home.path + "/cfg/user-dirs.dirs", atomically: false, encoding: .utf8)
        let env = ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/cfg"]
        // user-dirs names Fotos (kept, there or not: the user said so); the default Videos is a
        // guess, kept only while it exists.
        #expect(MediaRoots.resolve(explicit: [], environment: env).paths == [home.path + "/Fotos"])
        try FileManager.default.createDirectory(atPath: home.path + "/Videos", withIntermediateDirectories: true)
        #expect(MediaRoots.resolve(explicit: [], environment: env).paths == [home.path + "/Fotos", home.path + "/Videos"])
        #expect(MediaRoots.resolve(explicit: [], environment: env.merging(["GPICK_LIBRARY": "/a:/b"]) { $1 }).paths == ["/a", "/b"])
        #expect(MediaRoots.resolve(explicit: ["/c"], environment: env.merging(["GPICK_LIBRARY": "/a"]) { $1 }).paths == ["/c"])
        // No user-dirs file and neither default there: both, so that a scan says what is missing.
        #expect(MediaRoots.resolve(explicit: [], environment: ["HOME": "/nowhere"]).paths == ["/nowhere/Pictures", "/nowhere/Videos"])
    }

    @Test func theIndexLivesUnderXDGDataHome() {
        #expect(LibraryPaths.indexPath(environment: ["HOME": "/h", "XDG_DATA_HOME": "/d"]) == "/d/gpick/library.sqlite")
        #expect(LibraryPaths.indexPath(environment: ["HOME": "/h"]) == "/h/.local/share/gpick/library.sqlite")
        // A relative XDG_DATA_HOME is invalid by the spec, and ignored.
        #expect(LibraryPaths.indexPath(environment: ["HOME": "/h", "XDG_DATA_HOME": "rel"]) == "/h/.local/share/gpick/library.sqlite")
    }

    @Test func aPathBelongsToTheRootThatHoldsIt() {
        let roots = MediaRoots(paths: ["/x/Pictures", "/x/Videos"])
        #expect(roots.root(of: "/x/Pictures/a.jpg") == "/x/Pictures")
        #expect(roots.root(of: "/x/Pictures2/a.jpg") == nil)
        #expect(roots.root(of: "/x/Videos") == "/x/Videos")
    }
}

/// A folder for one test, removed when the value goes.
final class TemporaryFolder: Sendable {
    let path: String
    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = "/tmp/gpick-tests/lib-\(safe)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
