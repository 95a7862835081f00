import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import Testing

/// Controls remembered per camera (`--save-controls`): the file, the camera's stable name, and
/// the order in which remembered and given controls are set.
struct ControlMemoryTests {
    static func settings(_ texts: String...) throws -> [ControlSetting] {
        try texts.map { try ControlSetting(parsing: $0) }
    }

    @Test func savedControlsComeBackPerCameraAndALaterValueReplacesAnEarlierOne() throws {
        let dir = TestEnvironment.tempDir()
        let memory = ControlMemory(path: "\(dir)/config/gpick/controls.conf", links: [])
        #expect(try memory.settings(for: "cam-a").isEmpty)  // no file yet: nothing remembered
        try memory.save(try Self.settings("exposure-mode=manual", "exposure-time=200"), for: "cam-a")
        try memory.save(try Self.settings("focus=40"), for: "cam-b")
        try memory.save(try Self.settings("exposure-time=300", "gain=10"), for: "cam-a")
        #expect(try memory.settings(for: "cam-a") == Self.settings("exposure-mode=manual", "exposure-time=300", "gain=10"))
        #expect(try memory.settings(for: "cam-b") == Self.settings("focus=40"))
        // Written whole, in place: nothing beside it.
        #expect(TestEnvironment.files(in: "\(dir)/config/gpick") == ["controls.conf"])
        let text = try String(contentsOfFile: memory.path, encoding: .utf8)
        #expect(text.contains("[cam-a]\nexposure-mode=manual\nexposure-time=300\ngain=10\n"), "\(text)")
    }

    /// Remembered first, then given: a control given now replaces its remembered value.
    @Test func givenControlsComeAfterRememberedOnes() throws {
        let merged = ControlMemory.merged(try Self.settings("focus-mode=manual", "focus=40", "gain=5"), try Self.settings("focus=10", "zoom=2"))
        #expect(merged == (try Self.settings("focus-mode=manual", "focus=10", "gain=5", "zoom=2")))
    }

    /// The camera is named by its by-id link (the same camera on any USB port, whatever number
    /// the kernel gave its node), else its by-path link, else the device path.
    @Test func aCameraIsNamedByItsStableLink() throws {
        let dir = TestEnvironment.tempDir()
        let fm = FileManager.default
        for d in ["dev", "by-id", "by-path"] { try fm.createDirectory(atPath: "\(dir)/\(d)", withIntermediateDirectories: true) }
        for n in ["video0", "video2", "video4"] { fm.createFile(atPath: "\(dir)/dev/\(n)", contents: nil) }
        try fm.createSymbolicLink(atPath: "\(dir)/by-id/usb-046d_C922_Pro_Stream_Webcam_ABC123-video-index0", withDestinationPath: "../dev/video0")
        try fm.createSymbolicLink(atPath: "\(dir)/by-path/pci-0000:00:14.0-usb-0:1:1.0-video-index0", withDestinationPath: "../dev/video0")
        try fm.createSymbolicLink(atPath: "\(dir)/by-path/platform-fe801000.csi-video-index0", withDestinationPath: "../dev/video2")
        let memory = ControlMemory(path: "\(dir)/controls.conf", links: ["\(dir)/by-id", "\(dir)/by-path"])
        #expect(memory.key(for: "\(dir)/dev/video0") == "usb-046d_C922_Pro_Stream_Webcam_ABC123-video-index0")
        #expect(memory.key(for: "\(dir)/dev/video2") == "platform-fe801000.csi-video-index0")
        #expect(memory.key(for: "\(dir)/dev/video4") == "\(dir)/dev/video4")
    }

    @Test func aDamagedFileIsOneLineNamingTheLine() throws {
        let dir = TestEnvironment.tempDir()
        try "# saved\n[cam-a]\nfocus=40\nthis is not a control\n".write(toFile: "\(dir)/controls.conf", atomically: true, encoding: .utf8)
        let memory = ControlMemory(path: "\(dir)/controls.conf", links: [])
        do {
            _ = try memory.settings(for: "cam-a")
            Issue.record("a damaged file was read")
        } catch {
            #expect(error.message == "\(dir)/controls.conf:4: expected [camera] or NAME=VALUE, found \"this is not a control\"")
        }
    }

    @Test func theUsersFileFollowsXDG() {
        #expect(ControlMemory.user(environment: ["XDG_CONFIG_HOME": "/x/conf", "HOME": "/home/u"])?.path == "/x/conf/gpick/controls.conf")
        #expect(ControlMemory.user(environment: ["HOME": "/home/u"])?.path == "/home/u/.config/gpick/controls.conf")
    }
}
