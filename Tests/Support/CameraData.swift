import Foundation

/// What real cameras report, from public repositories and issue threads, with provenance in
/// `INDEX.txt` beside them: mode tables (`v4l2-ctl --list-formats-ext`), control tables, real
/// MJPEG frames and fixed-camera footage. Like `RealFiles`, they are not in this repository: they
/// live at `$GPICK_CAMERA_DATA`, else in `cameras/` of the shared folder beside the checkout
/// (`../shared/cameras`); each file is checked against its SHA-256, and the tests that need one
/// are skipped without it, saying so.
public enum CameraData {
    /// Path under the folder → SHA-256.
    public static let manifest: [String: String] = [
        "formats/3do-usb-camera-4k.txt": "b0add19d709ad0c834e798a2f36c5890276175fabe6725bbd478d2991480bdce",
        "formats/genius-widecam-f100.txt": "d73bd4991d2853311344717aeffeda74518cc8fe90785a868708caed177ff3c9",
        "formats/logitech-c525.txt": "7a624ca2dd7107b3e4875d66bc94634b3f16d545270a8547e4089e1cca7d37db",
        "formats/logitech-c922.txt": "3e4644473348a67d259866075a3a4395dd2c7d28f1ffe332a2d060efabfe1e3d",
        "formats/ms2109-hdmi-usb-capture.txt": "411a09884acc267142edc3dd6c455625f25540098a4e6758dea54705725a5ee9",
        "formats/rpi-camera-bcm2835-v4l2.txt": "3ceaaf8c3d392775271fe177beae8b4542a2fc489025a15da0f4a14abae1b843",
        "formats/rpi-unicam-imx519.txt": "451a855cc81356ff6b4652502770f98933ef77bceabaf7f59441e095b36d8d76",
        "formats/usb20-camera-arducam-0c45-6366.txt": "a823136d4554610dd116426e0d1df0fe1b237e1783accb5ce9465b8cc0f20310",
        "formats/webcam-yg-u700-mjpg-h264.txt": "4a566673f262238dd641cec53329b2d42249e129c6a6675b2164cc6505c29a59",
        "controls/3do-usb-camera-4k.txt": "9274ef32e4bbe164578d0ad163144b66cfd6f9cb9c2b7221d54260d63183adda",
        "controls/genius-widecam-f100.txt": "2cc3982a588f9badb6f8db639a79c53ba44bf6adec336f90b2317aa55cd6bebb",
        "controls/logitech-c525.txt": "0429a831bc953861d96227cff8c6ae8562ee2776216a3073382b1849e2de6053",
        "controls/logitech-c922.txt": "c45bcf8e83132cd4c0a144d7c7748cdc9857636c36f118db4f649d540197be7a",
        "controls/ms2109-hdmi-usb-capture.txt": "ffa9a9d519331cab1a168db4fc02c70e9ff888c0a8ded06d568029f04530e074",
        "controls/rpi-camera-bcm2835-v4l2.txt": "f6b082d91ba39a98cbec8d93d13491c827b52a6419604ac629cd966ad4e79993",
        "mjpeg/camera-streamer_broken.jpeg": "31727f2d85cca65dceb0807de46ba555a09f34380b42867467c35a0cde2662f8",
        "mjpeg/camera-streamer_capture.jpeg": "205f859ad2796f42d1ee90d4dcb984799dde678a560f78604b20ba05020adee8",
        "mjpeg/gst-uvch264demux_valid_h264_jpg.mjpg": "6359ff49a3f7477197974194f29ea72cd6ed36829f699090de37b97b99a1c04f",
        "mjpeg/gst-uvch264demux_valid_h264_yuy2.mjpg": "e7e66347d264fcb3f185cfa2580823a78447f36125a116994a271ef0ef1b444a",
        "footage/car-detection.mp4": "d31e0ebf194cc16e50eea784e7c3b0b1bb7976a4fb9b3fec26cb92a6704cca34",
        "footage/one-by-one-person-detection.mp4": "a5964aa259099a482a8b360ffc2c57b5a30f84d5919236a4dad01f8e929ac07c",
    ]

    public static let directory = SharedData.folder(env: "GPICK_CAMERA_DATA", name: "cameras", marker: "INDEX.txt")

    /// The files present with the right content.
    public static let verified = Set(SharedData.verified(manifest, in: directory))

    public static func path(_ name: String) -> String { "\(directory ?? "")/\(name)" }

    public static func text(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

    public static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }
}

/// Mode tables of cameras `../shared/cameras` lacks, as facts from public threads and
/// repositories (each mode as the source lists it; the source named beside it). Written as
/// `FOURCC WxH @ fps, fps, …` lines, which `ModeFacts.offers` turns into a table.
public enum ModeFacts {
    public struct Table: Sendable {
        public let camera: String
        public let source: String
        public let lines: [String]
    }

    public static let tables: [String: Table] = [
        // Kinds the shared tables lack: an IR camera (GREY), a laptop's own camera, a C920 that
        // still offers H.264, a 4K camera with 90 and 120 fps modes, high-rate cameras.
        "ir-surface-laptop-3": Table(camera: "Surface Laptop 3 infrared camera",
                                     source: "github.com/linux-surface/linux-surface/issues/428 (nakato, 2021-05-06)",
                                     lines: ["GREY 480x480 @ 60"]),
        "ir-lenovo-yoga-pro-7": Table(camera: "Lenovo Yoga Pro 7 14IRH8 IR camera",
                                      source: "github.com/EmixamPP/linux-enable-ir-emitter/issues/135",
                                      lines: ["GREY 640x360 @ 15, 30"]),
        "laptop-thinkpad-x1-carbon-7": Table(camera: "Lenovo X1 Carbon gen 7 camera (its YUYV list as far as the thread shows it)",
                                             source: "github.com/boltgolt/howdy/issues/312 (orclex, 2020-05-13); github.com/EmixamPP/linux-enable-ir-emitter/issues/11",
                                             lines: ["MJPG 1280x720 @ 30", "MJPG 320x180 @ 30", "MJPG 320x240 @ 30", "MJPG 352x288 @ 30",
                                                     "MJPG 424x240 @ 30", "MJPG 640x360 @ 30", "MJPG 640x480 @ 30", "MJPG 848x480 @ 30",
                                                     "MJPG 960x540 @ 30", "YUYV 1280x720 @ 10", "YUYV 320x180 @ 30"]),
        "logitech-c920-h264": Table(camera: "Logitech HD Pro Webcam C920 (with H.264)",
                                    source: "github.com/petminion/petminion docs/hardware.md @3564115",
                                    lines: c920),
        "logitech-brio": Table(camera: "Logitech BRIO", source: "github.com/suburbanmarine/opaleye V4L2_webcam_pipe.cpp @1c98479",
                               lines: brio),
        "stereo-3d-usb-camera": Table(camera: "3D USB Camera (stereo, side by side)",
                                      source: "github.com/Roblibs/rovi_ros_ws docs/stereo.md @f30bcbb",
                                      lines: ["MJPG 3200x1200 @ 60, 30, 25, 20, 15, 10", "MJPG 2560x720 @ 60, 30, 25, 20, 15, 10",
                                              "MJPG 1600x600 @ 120, 60, 30, 25, 20, 15, 10", "MJPG 1280x480 @ 120, 60, 30, 25, 20, 15, 10",
                                              "MJPG 640x240 @ 120, 60, 30, 25, 20, 15, 10", "YUYV 3200x1200 @ 2", "YUYV 2560x720 @ 2",
                                              "YUYV 1600x600 @ 10", "YUYV 1280x480 @ 15, 10", "YUYV 640x240 @ 60, 30, 25, 20, 15, 10"]),
        "tis-dfm-27ur0135": Table(camera: "The Imaging Source DFM 27UR0135-ML (global shutter)",
                                  source: "github.com/HaroldMurcia/tisCam2ROS Readme.md @50541ce",
                                  lines: ["GRBG 1280x960 @ 60, 50, 40, 30, 20, 10", "GRBG 1280x720 @ 80, 60, 50, 40, 30, 20, 10",
                                          "GRBG 1024x768 @ 80, 70, 60, 40, 30, 20, 10", "GRBG 640x480 @ 120, 90, 60, 30, 15, 10",
                                          "GREY 1280x960 @ 60, 50, 40, 30, 20, 10", "GREY 1280x720 @ 80, 60, 50, 40, 30, 20, 10",
                                          "GREY 1024x768 @ 80, 70, 60, 40, 30, 20, 10", "GREY 640x480 @ 120, 90, 60, 30, 15, 10",
                                          "Y16 1280x960 @ 70, 60, 50, 40, 30, 20, 10", "Y16 640x480 @ 120, 90, 60, 30, 15, 10"]),
    ]

    static let uvcRates = "30, 24, 20, 15, 10, 7.5, 5"

    static let c920: [String] = {
        let yuyv = ["640x480", "160x90", "160x120", "176x144", "320x180", "320x240", "352x288", "432x240", "640x360", "800x448"]
            .map { "YUYV \($0) @ \(uvcRates)" }
            + ["YUYV 800x600 @ 24, 20, 15, 10, 7.5, 5", "YUYV 864x480 @ 24, 20, 15, 10, 7.5, 5", "YUYV 960x720 @ 15, 10, 7.5, 5",
               "YUYV 1024x576 @ 15, 10, 7.5, 5", "YUYV 1280x720 @ 10, 7.5, 5", "YUYV 1600x896 @ 7.5, 5", "YUYV 1920x1080 @ 5",
               "YUYV 2304x1296 @ 2", "YUYV 2304x1536 @ 2"]
        let sizes = ["640x480", "160x90", "160x120", "176x144", "320x180", "320x240", "352x288", "432x240", "640x360", "800x448",
                     "800x600", "864x480", "960x720", "1024x576", "1280x720", "1600x896", "1920x1080"]
        return yuyv + sizes.map { "H264 \($0) @ \(uvcRates)" } + sizes.map { "MJPG \($0) @ \(uvcRates)" }
    }()

    static let brio: [String] = {
        let common = ["640x480", "160x120", "176x144", "320x180", "320x240", "352x288"]
        var lines = common.map { "YUYV \($0) @ \(uvcRates)" } + ["YUYV 340x340 @ 30"] + ["YUYV 424x240 @ \(uvcRates)", "YUYV 440x440 @ 30"]
        lines += ["480x270", "640x360", "800x448", "800x600", "848x480", "960x540", "1024x576", "1280x720", "1600x896", "1920x1080"]
            .map { "YUYV \($0) @ \(uvcRates)" }
        lines += ["MJPG 640x480 @ 120, 90, 60, \(uvcRates)"]
        lines += ["160x120", "176x144", "320x180", "320x240", "352x288", "424x240", "480x270", "640x360", "800x448", "800x600",
                  "848x480", "960x540", "1024x576"].map { "MJPG \($0) @ \(uvcRates)" }
        lines += ["MJPG 1280x720 @ 90, 60, \(uvcRates)", "MJPG 1600x896 @ \(uvcRates)", "MJPG 1920x1080 @ 60, \(uvcRates)",
                  "MJPG 2560x1440 @ \(uvcRates)", "MJPG 3840x2160 @ \(uvcRates)", "MJPG 4096x2160 @ \(uvcRates)"]
        lines += ["640x480", "640x360", "1280x720", "1920x1080"].map { "NV12 \($0) @ \(uvcRates)" }
        return lines
    }()
}
