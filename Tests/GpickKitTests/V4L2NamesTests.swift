import Foundation
@testable import GpickKit
import GpickTestSupport
import Testing

/// A V4L2 camera plugged in again, on a /dev tree made as udev makes it (device files, and
/// by-id and by-path links to them): the camera is found by its by-id link wherever the kernel
/// put it, and not mistaken for the device that took its old number.
struct V4L2NamesTests {
    let fm = FileManager.default
    let c922 = "usb-046d_C922_Pro_Stream_Webcam_ABC123-video-index0"

    /// A /dev of its own: `dev/videoN` files and `by-id`, `by-path` folders.
    func tree() throws -> (String, V4L2Names) {
        let dir = TestEnvironment.tempDir()
        for d in ["dev", "by-id", "by-path"] { try fm.createDirectory(atPath: "\(dir)/\(d)", withIntermediateDirectories: true) }
        return (dir, V4L2Names(directories: ["\(dir)/by-id", "\(dir)/by-path"]))
    }

    func plug(_ dir: String, node: String, id: String?, port: String?) throws {
        fm.createFile(atPath: "\(dir)/dev/\(node)", contents: nil)
        if let id { try fm.createSymbolicLink(atPath: "\(dir)/by-id/\(id)", withDestinationPath: "../dev/\(node)") }
        if let port { try fm.createSymbolicLink(atPath: "\(dir)/by-path/\(port)", withDestinationPath: "../dev/\(node)") }
    }

    func unplug(_ dir: String, node: String, id: String?, port: String?) throws {
        try fm.removeItem(atPath: "\(dir)/dev/\(node)")
        if let id { try fm.removeItem(atPath: "\(dir)/by-id/\(id)") }
        if let port { try fm.removeItem(atPath: "\(dir)/by-path/\(port)") }
    }

    @Test func aWebcamPluggedBackInAsAnotherNodeIsFollowedByItsLink() throws {
        let (dir, names) = try tree()
        try plug(dir, node: "video0", id: c922, port: "pci-0000:00:14.0-usb-0:1:1.0-video-index0")
        let link = try #require(names.stableLink(for: "\(dir)/dev/video0"))
        #expect(link == "\(dir)/by-id/\(c922)", "by-id before by-path")
        let spec = SourceSpec.v4l2(device: "\(dir)/dev/video0", mode: try ModeRequest(parsing: "1280x720@30"))

        try unplug(dir, node: "video0", id: c922, port: "pci-0000:00:14.0-usb-0:1:1.0-video-index0")
        #expect(V4L2Names.returned(spec, link: link) == nil, "gone")
        // Another camera is plugged in first and takes video0; the C922 comes back as video2, in
        // another port.
        try plug(dir, node: "video0", id: "usb-Generic_Integrated_Camera-video-index0", port: nil)
        #expect(V4L2Names.returned(spec, link: link) == nil, "video0 is another camera now")
        try plug(dir, node: "video2", id: c922, port: "pci-0000:00:14.0-usb-0:2:1.0-video-index0")
        let back = V4L2Names.returned(spec, link: link)
        #expect(back == .v4l2(device: "\(dir)/dev/video2", mode: try ModeRequest(parsing: "1280x720@30")), "the new node, the mode asked kept: \(String(describing: back))")
    }

    @Test func aWebcamBackAtItsOwnNodeOrGivenByItsLinkKeepsItsSource() throws {
        let (dir, names) = try tree()
        try plug(dir, node: "video0", id: c922, port: nil)
        let byNode = SourceSpec.v4l2(device: "\(dir)/dev/video0")
        let byLink = SourceSpec.v4l2(device: "\(dir)/by-id/\(c922)")
        let link = names.stableLink(for: "\(dir)/dev/video0")
        #expect(names.stableLink(for: "\(dir)/by-id/\(c922)") == link)
        try unplug(dir, node: "video0", id: c922, port: nil)
        try plug(dir, node: "video0", id: c922, port: nil)
        #expect(V4L2Names.returned(byNode, link: link) == byNode)
        try unplug(dir, node: "video0", id: c922, port: nil)
        try plug(dir, node: "video4", id: c922, port: nil)
        #expect(V4L2Names.returned(byLink, link: link) == byLink, "a link given by the user stays the source")
    }

    /// A camera udev names not (a CSI camera under bcm2835-v4l2 has no by-id link) is back when
    /// its node is there again.
    @Test func aCameraWithoutLinksIsBackWhenItsNodeIs() throws {
        let (dir, names) = try tree()
        try plug(dir, node: "video0", id: nil, port: nil)
        #expect(names.stableLink(for: "\(dir)/dev/video0") == nil)
        let spec = SourceSpec.v4l2(device: "\(dir)/dev/video0")
        try unplug(dir, node: "video0", id: nil, port: nil)
        #expect(V4L2Names.returned(spec, link: nil) == nil)
        try plug(dir, node: "video0", id: nil, port: nil)
        #expect(V4L2Names.returned(spec, link: nil) == spec)
    }
}
