import Foundation
import GpickTestSupport
import Testing

/// Each bad input: one line on stderr naming the thing, a non-zero exit, nothing left behind.
@Suite(.serialized) struct BadInputTests {
    struct Case: CustomStringConvertible, Sendable {
        let args: [String]
        let mentions: String
        var description: String { args.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(args: ["record", "--duration", "1", "-o", "OUT/x.mp4", "--source", "foo:bar"], mentions: "unknown source scheme \"foo\""),
        Case(args: ["record", "--duration", "1", "-o", "OUT/x.mp4", "--source", "v4l2:/dev/video99"], mentions: "/dev/video99"),
        // A character device that is no camera: gpick's own line, not v4l2src's refusal.
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "v4l2:/dev/null"], mentions: "/dev/null is not a camera (not a V4L2 device)"),
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "test", "--width", "0"], mentions: "width 0"),
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "test", "--height", "-4"], mentions: "height -4"),
        Case(args: ["record", "--duration", "1", "-o", "OUT/x.mp4", "--source", "test", "--width", "641"], mentions: "641 must be even"),
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "test", "--width", "9000"], mentions: "9000"),
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "test", "--format", "gif"], mentions: "gif"),
        Case(args: ["snap", "-o", "OUT/x.bmp", "--source", "test"], mentions: ".bmp"),
        Case(args: ["record", "--duration", "1", "-o", "OUT/x.avi", "--source", "test"], mentions: ".avi"),
        Case(args: ["record", "--duration", "0", "-o", "OUT/x.mp4", "--source", "test"], mentions: "--duration"),
        Case(args: ["record", "--duration", "-3", "-o", "OUT/x.mp4", "--source", "test"], mentions: "--duration -3"),
        Case(args: ["record", "--duration", "1", "-o", "OUT/missing/x.mp4", "--source", "test"], mentions: "output directory does not exist: OUT/missing"),
        Case(args: ["snap", "-o", "OUT/missing/x.jpg", "--source", "test"], mentions: "OUT/missing"),
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "test:smtpe"], mentions: "did you mean \"smpte\""),
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "test?id=22"], mentions: "id \"22\""),
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "test?latency=9s"], mentions: "latency \"9s\" must be a duration of 0…5 s"),
        Case(args: ["record", "--duration", "1", "-o", "OUT/x.mp4", "--source", "test", "--set", "quantiser=20"], mentions: "did you mean \"quantizer\""),
        Case(args: ["record", "--duration", "1", "-o", "OUT/x.mp4", "--source", "test", "--set", "quantizer=99"], mentions: "out of range"),
        // Header space for less than the recording (reliability check 5): mp4mux would fail it, or
        // a part would end before its boundary and the recording with it, exit 0.
        Case(args: ["record", "--duration", "20", "-o", "OUT/x.mp4", "--source", "test", "--set", "reserve=1s"],
             mentions: "reserve 1 s is less than this recording needs (25 s)"),
        Case(args: ["record", "--duration", "6", "--split", "3", "-o", "OUT/x.mp4", "--source", "test", "--set", "reserve=5s"],
             mentions: "reserve 5 s is less than this recording needs (33 s)"),
        Case(args: ["snap", "-o", "OUT/x.jpg", "--source", "file:OUT/none.mp4"], mentions: "no such file: OUT/none.mp4"),
        Case(args: ["inspect", "OUT/none.mp4"], mentions: "no such file: OUT/none.mp4"),
    ]

    @Test(arguments: cases)
    func rejected(_ c: Case) async throws {
        let dir = TestEnvironment.tempDir("bad")
        let r = try await Subprocess.gpick(c.args.map { $0.replacingOccurrences(of: "OUT", with: dir) }, timeout: 30)
        #expect(r.status != 0)
        #expect(r.stderrLines.count == 1, "stderr: \(r.stderr)")
        #expect(r.stderr.contains(c.mentions.replacingOccurrences(of: "OUT", with: dir)), "stderr: \(r.stderr)")
        #expect(TestEnvironment.files(in: dir).isEmpty, "left behind: \(TestEnvironment.files(in: dir))")
    }

    @Test func readOnlyDirectory() async throws {
        let ro = try TmpfsMount(sizeKiB: 1024, readOnly: true)
        defer { ro.unmount() }
        for args in [["snap", "-o", "\(ro.path)/x.jpg"], ["record", "--duration", "1", "-o", "\(ro.path)/x.mp4"]] {
            let r = try await Subprocess.gpick(args + ["--source", "test"])
            #expect(r.status != 0)
            #expect(r.stderrLines.count == 1 && r.stderr.contains(ro.path), "\(r.stderr)")
        }
    }

    /// A disk too small for the recording never holds a torn file: either the recording stopped
    /// while it could still finish (one line saying the disk is full, exit 73, and the file plays
    /// with the frames it says), or a write failed first (one line saying so, and no file at all).
    /// Which one comes first depends on how soon the first frames are written.
    @Test func aDiskTooSmallNeverHoldsATornFile() async throws {
        let tiny = try TmpfsMount(sizeKiB: 300)
        defer { tiny.unmount() }
        let r = try await Subprocess.gpick(["record", "--duration", "5", "--source", "test", "--width", "640", "--height", "360", "--json",
                                            "-o", "\(tiny.path)/x.mp4"], timeout: 30)
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains(tiny.path), "\(r.stderr)")
        if r.stderr.contains("no space left") {
            #expect(r.stderr.contains("\(tiny.path)/x.mp4") && TestEnvironment.files(in: tiny.path).isEmpty, "\(r.stderr)")
        } else {
            #expect(r.stderr.contains("is full") && r.stderr.contains("the recording stopped there"), "\(r.stderr)")
            let written = r.events
                .first { $0["event"] as? String == "file-written" }
            let frames = try #require(written?["frames"] as? Int)
            let stamps = try await Media.stampIndices("\(tiny.path)/x.mp4")
            #expect(stamps.count == frames && Media.isConsecutive(stamps, from: 0), "\(stamps.count) decoded of \(frames)")
        }
    }

    @Test func missingPluginIsNamedWithItsPackage() async throws {
        // A plugin directory with everything but x264, and a registry of its own.
        let dir = TestEnvironment.tempDir()
        let plugins = "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"
        for f in TestEnvironment.files(in: plugins) where f.hasSuffix(".so") && !f.contains("x264") {
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/\(f)", withDestinationPath: "\(plugins)/\(f)")
        }
        let out = TestEnvironment.tempDir()
        let r = try await Subprocess.gpick(["record", "--duration", "1", "--source", "test", "-o", "\(out)/x.mp4"],
                                           env: ["GST_PLUGIN_SYSTEM_PATH_1_0": dir, "GST_REGISTRY": "\(dir)/registry.bin"])
        #expect(r.status != 0)
        #expect(r.stderrLines.count == 1 && r.stderr.contains("x264enc") && r.stderr.contains("gstreamer1.0-plugins-ugly"), "\(r.stderr)")
        #expect(TestEnvironment.files(in: out).isEmpty)
    }
}
