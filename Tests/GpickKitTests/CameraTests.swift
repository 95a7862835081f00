import GpickBase
import GpickKit
import GstCore
import Testing

/// Camera sources without a camera: parsing, the `auto` rule, and format summaries of caps as
/// V4L2 and PipeWire providers report them.
struct CameraTests {
    @Test func pipewireAndLibcameraSourcesParseLiterally() throws {
        #expect(try SourceSpec.parse("pipewire") == .pipewire(target: nil))
        #expect(try SourceSpec.parse("pipewire:testcam") == .pipewire(target: "testcam"))
        #expect(try SourceSpec.parse("pipewire:42") == .pipewire(target: "42"))
        #expect(try SourceSpec.parse("libcamera") == .libcamera(name: nil))
        // libcamera names hold slashes, colons and @: everything after the first colon is the name.
        let name = "/base/soc/i2c0mux/i2c@1/imx219@10"
        #expect(try SourceSpec.parse("libcamera:\(name)") == .libcamera(name: name))
        #expect(try SourceSpec.parse("pipewire:a:b c") == .pipewire(target: "a:b c"))
        for text in ["pipewire", "pipewire:testcam", "libcamera", "libcamera:\(name)"] {
            #expect("\(try SourceSpec.parse(text))" == text)
        }
        #expect(try SourceSpec.parse("pipewire:x").isCamera && SourceSpec.libcamera(name: nil).cameraKind == .libcamera)
        for bad in ["pipewire:", "libcamera:"] {
            #expect(throws: GpickError.self) { try SourceSpec.parse(bad) }
        }
        do {
            _ = try SourceSpec.parse("pipwire:x")
            Issue.record("an unknown scheme parsed")
        } catch {
            #expect(error.message.contains("pipewire[:NAME|ID]") && error.message.contains("libcamera[:NAME]"), "\(error.message)")
        }
    }

    /// A V4L2 camera's mode by hand, as scripts give it (`source v4l2:/dev/video0?mode=…`).
    @Test func v4l2SourcesTakeAModeByHand() throws {
        #expect(try SourceSpec.parse("v4l2:/dev/video0") == .v4l2(device: "/dev/video0"))
        let exact = ModeRequest.exact(size: ModeSize(width: 1280, height: 720), rate: Fraction(60, 1), format: "MJPG")
        #expect(try SourceSpec.parse("v4l2:/dev/video2?mode=1280x720@60/MJPG") == .v4l2(device: "/dev/video2", mode: exact))
        #expect(try SourceSpec.parse("v4l2:/dev/video0?mode=max") == .v4l2(device: "/dev/video0", mode: .largest))
        for text in ["v4l2:/dev/video0", "v4l2:/dev/video2?mode=1280x720@60/MJPG", "v4l2:/dev/video0?mode=max"] {
            #expect("\(try SourceSpec.parse(text))" == text)
        }
        do {
            _ = try SourceSpec.parse("v4l2:/dev/video0?mode=fast")
            Issue.record("a bad mode parsed")
        } catch {
            #expect(error.kind == .usage && error.message.hasPrefix("v4l2:/dev/video0?mode=fast: mode \"fast\""), "\(error.message)")
        }
    }

    static let pw = Camera(kind: .pipewire, name: "Test Camera", source: .pipewire(target: "testcam"))
    static let lc = Camera(kind: .libcamera, name: "/base/imx219", source: .libcamera(name: "/base/imx219"))
    static let v4l2Missing = Camera(kind: .v4l2, name: "Gone", source: .v4l2(device: "/dev/video-gpick-none"))

    /// `auto` is a camera or an error naming what was looked for: never the test source.
    @Test func autoPrefersPipeWireThenLibcameraThenV4L2AndSaysWhenThereIsNone() throws {
        let shared = try AutoCamera.choose(pipewireRunning: true, cameras: [Self.lc, Self.pw])
        #expect(shared.source == .pipewire(target: "testcam") && shared.kind == .pipewire)
        #expect(shared.reason.contains("PipeWire is running") && shared.reason.contains("Test Camera"), "\(shared.reason)")
        // A PipeWire node seen while no daemon answers is not chosen.
        let libcamera = try AutoCamera.choose(pipewireRunning: false, cameras: [Self.pw, Self.lc])
        #expect(libcamera.source == .libcamera(name: "/base/imx219"))
        #expect(libcamera.reason.hasPrefix("PipeWire is not running; libcamera has"), "\(libcamera.reason)")
        #expect(throws: GpickError.self) { try AutoCamera.choose(pipewireRunning: true, cameras: [Self.v4l2Missing]) }
        do {
            _ = try AutoCamera.choose(pipewireRunning: true, cameras: [Self.v4l2Missing])
        } catch {
            #expect(error.kind == .device && error.remedy == .useTestSource)
            #expect(error.message == "no camera found: PipeWire is running but shares no camera; libcamera found no camera; no such camera: /dev/video-gpick-none",
                    "\(error.message)")
        }
        do {
            _ = try AutoCamera.choose(pipewireRunning: false, cameras: [])
            Issue.record("no camera was chosen as one")
        } catch {
            #expect(error.message == "no camera found: PipeWire is not running; libcamera found no camera; no V4L2 camera")
        }
    }

    static func summary(_ caps: String) throws -> [String] {
        try Gst.initialize()
        return FormatSummary.of(try Caps(caps).structures).map(\.line)
    }

    @Test func formatsShowRangesAsRanges() throws {
        // What a UVC webcam's V4L2 provider reports: one structure per size, rates listed.
        let webcam = """
            video/x-raw, format=YUY2, width=640, height=480, framerate={ 30/1, 15/1 }; \
            video/x-raw, format=YUY2, width=1280, height=720, framerate={ 10/1, 5/1 }; \
            image/jpeg, width=1920, height=1080, framerate={ 30/1, 15/1 }; \
            image/jpeg, width=640, height=480, framerate=30/1
            """
        #expect(try Self.summary(webcam) == ["YUY2 640x480…1280x720 @ 5–30 fps", "MJPG 640x480…1920x1080 @ 15–30 fps"])
        // PipeWire's test node: any size and rate, two formats that share them.
        let node = "video/x-raw, format={ RGB, UYVY }, width=[ 1, 2147483647 ], height=[ 1, 2147483647 ], framerate=[ 0/1, 2147483647/1 ]"
        #expect(try Self.summary(node) == ["RGB, UYVY any size @ any rate"])
        // A libcamera-like range, and a fractional rate.
        let ranged = "video/x-raw, format=NV12, width=[ 32, 3280 ], height=[ 32, 2464 ], framerate=[ 15/2, 30/1 ]"
        #expect(try Self.summary(ranged) == ["NV12 32x32…3280x2464 @ 7.5–30 fps"])
        #expect(try Self.summary("video/x-raw, format=GRAY8, width=320, height=240, framerate=60/1") == ["GRAY8 320x240 @ 60 fps"])
    }
}
