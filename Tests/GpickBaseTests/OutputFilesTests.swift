import Foundation
import GpickBase
import Testing

/// Where outputs go and how they are written: names are literal, nothing escapes the chosen
/// folder, and a reader never sees half a file. On a real file system, in a folder of its own.
@Suite struct OutputFilesTests {
    static func folder() throws -> String {
        let dir = NSTemporaryDirectory() + "gpick-base-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func namesAreLiteralAndNumberedNamesToo() throws {
        let dir = try Self.folder()
        let p = try OutputPath("\(dir)/100% %d shot.jpg")
        #expect(p.name == "100% %d shot.jpg" && p.directory == dir)
        #expect(p.numbered(7, of: 12).name == "100% %d shot-007.jpg")
        #expect(p.numbered(7, of: 1200).name == "100% %d shot-0007.jpg")
        #expect(try OutputPath("\(dir)/noext").numbered(1, of: 2).name == "noext-001")
    }

    /// A killed writer's temp file is held by nobody and goes; one being written (by this
    /// process here; by another gpick the same) is held and stays, as do other names and files.
    @Test func onlyTempFilesNobodyHoldsAreLeftovers() throws {
        let dir = try Self.folder()
        let live = try TempFile(for: try OutputPath("\(dir)/loop-003.mp4"))
        try live.write([1, 2, 3])
        // What a killed writer leaves: a temp file of the same pattern that nobody holds.
        FileManager.default.createFile(atPath: "\(dir)/.loop-004.mp4.gpick-Ab12Cd", contents: Data([0]))
        for name in [".other-001.mp4.gpick-Ab12Cd", "loop-001.mp4", ".loop-005.mp4.gpick-toolong"] {
            FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data([0]))
        }
        #expect(TempFile.removeLeftovers(in: dir, prefix: "loop-") == [".loop-004.mp4.gpick-Ab12Cd"])
        #expect(FileManager.default.fileExists(atPath: live.tempPath))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
                == [".loop-005.mp4.gpick-toolong", ".other-001.mp4.gpick-Ab12Cd", (live.tempPath as NSString).lastPathComponent, "loop-001.mp4"].sorted())
        try live.finish()
        #expect(FileManager.default.fileExists(atPath: "\(dir)/loop-003.mp4"))
    }

    @Test func nothingEscapesTheChosenFolder() throws {
        let dir = try Self.folder()
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/in/out", withDestinationPath: "/tmp")
        for escape in ["../x.jpg", "/etc/x.jpg", "sub/../../x.jpg", "out/x.jpg"] {
            #expect(throws: GpickError.self, "\(escape)") { try OutputPath(escape, confinedTo: dir + "/in") }
        }
        #expect(try OutputPath("x.jpg", confinedTo: dir + "/in").path == dir + "/in/x.jpg")
    }

    @Test func badPlacesAreOneReasonEach() throws {
        let dir = try Self.folder()
        func reason(_ given: String) -> String {
            do { _ = try OutputPath(given); return "" } catch { return error.message }
        }
        #expect(reason("") == "empty output path")
        #expect(reason("\(dir)/nowhere/x.jpg") == "output directory does not exist: \(dir)/nowhere")
        #expect(reason("\(dir)/") .contains("names a directory"))
        try FileManager.default.createDirectory(atPath: dir + "/taken", withIntermediateDirectories: true)
        #expect(reason("\(dir)/taken") == "\(dir)/taken is a directory")
        #expect(reason("\(dir)/" + String(repeating: "n", count: 256)).hasPrefix("file name too long"))
    }

    @Test func aTempFileIsSeenWholeOrNotAtAll() throws {
        let dir = try Self.folder()
        let target = try OutputPath("\(dir)/still.jpg")
        let file = try TempFile(for: target)
        try file.write(Array("half".utf8))
        #expect(!FileManager.default.fileExists(atPath: target.path), "visible before it was whole")
        #expect(file.tempPath.hasPrefix(dir + "/."), "the temp file is hidden, beside the target: \(file.tempPath)")
        try file.write(Array(" and whole".utf8))
        try file.finish()
        #expect(try String(contentsOfFile: target.path, encoding: .utf8) == "half and whole")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["still.jpg"])
        // A symlink at the name is replaced, never written through.
        try FileManager.default.removeItem(atPath: target.path)
        try FileManager.default.createSymbolicLink(atPath: target.path, withDestinationPath: dir + "/elsewhere")
        let again = try TempFile(for: target)
        try again.write([1, 2, 3])
        try again.finish()
        #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere"))
        #expect(try FileManager.default.attributesOfItem(atPath: target.path)[.type] as? FileAttributeType == .typeRegular)
    }

    @Test func aDiscardedTempFileLeavesNothing() throws {
        let dir = try Self.folder()
        let file = try TempFile(for: try OutputPath("\(dir)/clip.mp4"))
        try file.write(Array(repeating: 7, count: 4096))
        file.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}
