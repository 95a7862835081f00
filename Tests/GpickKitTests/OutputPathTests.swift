import Foundation
import GpickKit
import GpickTestSupport
import Testing

@Suite(.serialized) struct OutputPathTests {
    @Test func literalNamesAndNumbering() throws {
        let dir = TestEnvironment.tempDir()
        let p = try OutputPath("\(dir)/shot %s.jpg")
        #expect(p.name == "shot %s.jpg")
        #expect(p.numbered(7, of: 100).name == "shot %s-007.jpg")
        #expect(p.numbered(12, of: 5000).name == "shot %s-0012.jpg")
    }

    @Test func confinedToDirectory() throws {
        let root = TestEnvironment.tempDir()
        try FileManager.default.createDirectory(atPath: "\(root)/sub", withIntermediateDirectories: true)
        #expect(try OutputPath("sub/a.jpg", confinedTo: root).path == "\(root)/sub/a.jpg")
        for escape in ["../../x.jpg", "sub/../../x.jpg", "/etc/x.jpg"] {
            #expect(throws: GpickError.self) { try OutputPath(escape, confinedTo: root) }
        }
        try FileManager.default.createSymbolicLink(atPath: "\(root)/out", withDestinationPath: "/tmp")
        #expect(throws: GpickError.self) { try OutputPath("out/x.jpg", confinedTo: root) }
    }

    @Test func atomicWriteLeavesNoTemp() throws {
        let dir = TestEnvironment.tempDir()
        let p = try OutputPath("\(dir)/a.bin")
        try AtomicWrite.write([1, 2, 3], to: p)
        #expect(TestEnvironment.files(in: dir) == ["a.bin"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: p.path)) == Data([1, 2, 3]))
        #expect(throws: GpickError.self) { try OutputPath("\(dir)/nope/a.bin") }
        #expect(throws: GpickError.self) { try OutputPath("\(dir)") }
    }
}
