import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import GstCore
import Testing

/// The mode gpick runs a camera in, chosen from real cameras' tables: the nine `v4l2-ctl`
/// listings in `../shared/cameras/formats` and seven more from public threads (`ModeFacts`),
/// for the requests sessions make. Each expectation also says what v4l2src would have run the
/// camera at on its own (`v4l2src ! decodebin` lets it choose: since GStreamer 1.20 it prefers
/// the rate nearest 120 fps, then the size nearest 3840x2160), where that differs.
struct ModeChoiceTests {
    /// The requests: nothing, 640x480, 720p30, 1080p30, 1080p60, 4K (at the default 30 fps).
    enum Asked: String, CaseIterable, Sendable {
        case nothing, vga = "640x480", hd = "1280x720@30", fullHD = "1920x1080@30", fullHD60 = "1920x1080@60", uhd = "3840x2160"

        var request: ModeRequest {
            switch self {
            case .nothing: .automatic
            case .vga: .deliver(size: ModeSize(width: 640, height: 480), rate: nil)
            case .hd: .deliver(size: ModeSize(width: 1280, height: 720), rate: Fraction(30, 1))
            case .fullHD: .deliver(size: ModeSize(width: 1920, height: 1080), rate: Fraction(30, 1))
            case .fullHD60: .deliver(size: ModeSize(width: 1920, height: 1080), rate: Fraction(60, 1))
            case .uhd: .deliver(size: ModeSize(width: 3840, height: 2160), rate: nil)
            }
        }
    }

    /// Camera → (v4l2src's own choice, the choice for each request, in `Asked`'s order), each
    /// mode as `FORMAT WxH@FPS`.
    static let expected: [String: (v4l2src: String, chosen: [String])] = [
        "formats/3do-usb-camera-4k.txt": ("MJPG 1920x1080@60",
            ["MJPG 1920x1080@30", "YUYV 640x480@30", "MJPG 1280x720@30", "MJPG 1920x1080@30", "MJPG 1920x1080@60", "MJPG 3840x2160@30"]),
        "formats/genius-widecam-f100.txt": ("MJPG 1920x1080@30",
            ["MJPG 1920x1080@30", "YUYV 640x480@30", "MJPG 1280x720@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30"]),
        "formats/logitech-c525.txt": ("MJPG 1920x1080@30",
            ["MJPG 1920x1080@30", "YUYV 640x480@30", "MJPG 1280x720@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30"]),
        "formats/logitech-c922.txt": ("MJPG 1280x720@60",
            ["MJPG 1920x1080@30", "YUYV 640x480@30", "MJPG 1280x720@30", "MJPG 1920x1080@30", "MJPG 1280x720@60", "MJPG 1920x1080@30"]),
        "formats/ms2109-hdmi-usb-capture.txt": ("MJPG 1280x720@60",
            ["MJPG 1920x1080@30", "YUYV 640x480@30", "MJPG 1280x720@30", "MJPG 1920x1080@30", "MJPG 1280x720@60", "MJPG 1920x1080@30"]),
        "formats/rpi-camera-bcm2835-v4l2.txt": ("rates not listed",
            ["YU12 1920x1080@30", "YU12 640x480@30", "YU12 1280x720@30", "YU12 1920x1080@30", "YU12 1920x1080@60", "YU12 2592x1944@30"]),
        "formats/rpi-unicam-imx519.txt": ("rates not listed",
            ["YUYV 1920x1080@30", "YUYV 640x480@30", "YUYV 1280x720@30", "YUYV 1920x1080@30", "YUYV 1920x1080@60", "YUYV 3840x2160@30"]),
        "formats/usb20-camera-arducam-0c45-6366.txt": ("MJPG 1920x1080@30",
            ["MJPG 1920x1080@30", "YUYV 640x480@30", "MJPG 1280x720@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30"]),
        "formats/webcam-yg-u700-mjpg-h264.txt": ("MJPG 1920x1080@30",
            ["MJPG 1920x1080@30", "YUYV 640x480@30", "MJPG 1280x720@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30"]),
        "ir-lenovo-yoga-pro-7": ("GREY 640x360@30",
            ["GREY 640x360@30", "GREY 640x360@30", "GREY 640x360@30", "GREY 640x360@30", "GREY 640x360@30", "GREY 640x360@30"]),
        "ir-surface-laptop-3": ("GREY 480x480@60",
            ["GREY 480x480@60", "GREY 480x480@60", "GREY 480x480@60", "GREY 480x480@60", "GREY 480x480@60", "GREY 480x480@60"]),
        "laptop-thinkpad-x1-carbon-7": ("MJPG 1280x720@30",
            ["MJPG 1280x720@30", "MJPG 640x480@30", "MJPG 1280x720@30", "MJPG 1280x720@30", "MJPG 1280x720@30", "MJPG 1280x720@30"]),
        "logitech-brio": ("MJPG 640x480@120",
            ["NV12 1920x1080@30", "NV12 640x480@30", "NV12 1280x720@30", "NV12 1920x1080@30", "MJPG 1920x1080@60", "MJPG 3840x2160@30"]),
        "logitech-c920-h264": ("H264 1920x1080@30",
            ["MJPG 1920x1080@30", "YUYV 640x480@30", "MJPG 1280x720@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30", "MJPG 1920x1080@30"]),
        "stereo-3d-usb-camera": ("MJPG 1600x600@120",
            ["MJPG 1600x600@30", "MJPG 1280x480@30", "MJPG 3200x1200@30", "MJPG 3200x1200@30", "MJPG 3200x1200@60", "MJPG 3200x1200@30"]),
        "tis-dfm-27ur0135": ("GREY 640x480@120",
            ["GREY 1280x960@30", "GREY 640x480@30", "GREY 1280x720@30", "GREY 1280x960@30", "GREY 1280x960@60", "GREY 1280x960@30"]),
    ]

    static func table(_ name: String) throws -> [ModeOffer] {
        if let facts = ModeFacts.tables[name] { return V4L2FormatListing(parsing: Self.listing(facts.lines)).offers }
        return V4L2FormatListing(parsing: try CameraData.text(name)).offers
    }

    /// Facts written out as `v4l2-ctl --list-formats-ext` prints them (the current layout), so
    /// they reach the choice through the same reader as a pasted listing.
    static func listing(_ lines: [String]) -> String {
        var out = "ioctl: VIDIOC_ENUM_FMT\n\tType: Video Capture\n\n"
        var index = 0
        var current = ""
        for line in lines {
            let parts = line.split(separator: " ", maxSplits: 3)
            let (code, size) = (String(parts[0]), String(parts[1]))
            if code != current {
                out += "\t[\(index)]: '\(code)' (\(code))\n"
                index += 1
                current = code
            }
            out += "\t\tSize: Discrete \(size)\n"
            for rate in parts[3].split(separator: ",") {
                let fps = Double(rate.trimmingCharacters(in: .whitespaces))!
                out += "\t\t\tInterval: Discrete \(String(format: "%.3f", 1 / fps))s (\(String(format: "%.3f", fps)) fps)\n"
            }
        }
        return out
    }

    /// v4l2src's own fixation in GStreamer 1.20 and later, with no preference from downstream:
    /// the rate nearest 120 fps (whole frames per second), then the area nearest 3840x2160; the
    /// first listed on a tie.
    static func v4l2srcChoice(_ offers: [ModeOffer]) -> CameraMode? {
        let modes = offers.flatMap { $0.modes(sizes: [], rate: Fraction(30, 1)) }.filter(\.rateListed)
        return modes.enumerated().min { a, b in
            func key(_ m: CameraMode) -> (Int, Int) { (abs(m.rate.numerator / max(m.rate.denominator, 1) - 120), abs(m.area - 3840 * 2160)) }
            return key(a.element) != key(b.element) ? key(a.element) < key(b.element) : a.offset < b.offset
        }?.element
    }

    static func short(_ m: CameraMode) -> String { "\(m.format) \(m.sizeText)@\(ModeRate.text(m.rate))" }

    @Test(arguments: expected.keys.sorted())
    func eachRealCameraGetsTheModeItsRequestNeeds(_ name: String) throws {
        try #require(ModeFacts.tables[name] != nil || CameraData.verified.contains(name),
                     "\(name) is not in ../shared/cameras (or not the file it should be): the camera tests need it")
        let offers = try Self.table(name)
        let e = try #require(Self.expected[name])
        let choices = try Asked.allCases.map { Self.short(try ModeChoice.choose(from: offers, for: $0.request).mode) }
        for (asked, (got, want)) in zip(Asked.allCases, zip(choices, e.chosen)) {
            #expect(got == want, "\(name), asked \(asked.rawValue): \(got)")
        }
        #expect((Self.v4l2srcChoice(offers).map(Self.short) ?? "rates not listed") == e.v4l2src, "\(name): v4l2src alone")
    }
}

/// The reader of pasted `v4l2-ctl --list-formats-ext` listings: both layouts, log prefixes,
/// `--all` output around the list, ranges, and formats gpick cannot take.
struct V4L2FormatListingTests {
    /// How many sizes of each format the real listings hold (their notes in INDEX.txt agree).
    @Test(arguments: [
        ("formats/logitech-c525.txt", ["YUYV": 25, "MJPG": 25]),        // old layout (Index/Pixel Format)
        ("formats/logitech-c922.txt", ["YUYV": 19, "MJPG": 17]),        // "/dev/video0 | " before each line
        ("formats/ms2109-hdmi-usb-capture.txt", ["MJPG": 11, "YUYV": 11]),  // --all: its "Format Video Capture" is not a mode
        ("formats/3do-usb-camera-4k.txt", ["MJPG": 27, "YUYV": 27]),
        ("formats/usb20-camera-arducam-0c45-6366.txt", ["MJPG": 4, "YUYV": 2, "H264": 4]),  // two nodes; sizes listed twice once
        ("formats/webcam-yg-u700-mjpg-h264.txt", ["MJPG": 10, "H264": 10, "YUYV": 7]),
    ])
    func realListingsReadWhole(_ name: String, _ counts: [String: Int]) throws {
        try #require(CameraData.verified.contains(name), "\(name) is not in ../shared/cameras: the camera tests need it")
        let offers = V4L2FormatListing(parsing: try CameraData.text(name)).offers
        #expect(Dictionary(grouping: offers, by: \.format.fourcc).mapValues(\.count) == counts)
    }

    /// A crowsnest log: a timestamp before each line, sizes as ranges and no rates at all.
    @Test func aLogWithStepwiseSizesAndNoRates() throws {
        let name = "formats/rpi-camera-bcm2835-v4l2.txt"
        try #require(CameraData.verified.contains(name), "\(name) is not in ../shared/cameras")
        let offers = V4L2FormatListing(parsing: try CameraData.text(name)).offers
        #expect(offers.count == 14)
        #expect(offers.allSatisfy { $0.sizes == .stepwise(minWidth: 32, minHeight: 32, maxWidth: 2592, maxHeight: 1944, stepWidth: 2, stepHeight: 2) })
        #expect(offers.allSatisfy { $0.rates == .unlisted })
        let chosen = try ModeChoice.choose(from: offers, for: .automatic)
        #expect(chosen.reason.contains("lists no frame rates"), "\(chosen.reason)")
    }

    /// unicam lists Bayer and packed formats gpick does not take: they are named, not chosen.
    @Test func formatsGpickCannotTakeAreNamedAndLeftOut() throws {
        let name = "formats/rpi-unicam-imx519.txt"
        try #require(CameraData.verified.contains(name), "\(name) is not in ../shared/cameras")
        let listing = V4L2FormatListing(parsing: try CameraData.text(name))
        #expect(listing.skipped.contains("pRAA") && listing.skipped.contains("RG10"))
        #expect(listing.offers.map(\.format.fourcc) == ["YUYV", "UYVY", "YVYU", "VYUY", "RGBP", "RGB3", "BGR3", "RGB4", "GREY"])
        #expect(listing.card == "unicam")
    }

    /// Ranges of rates, NTSC rates written as v4l2-ctl writes them, output formats skipped.
    @Test func intervalRangesAndNTSCRates() throws {
        let text = """
            ioctl: VIDIOC_ENUM_FMT
            \tType: Video Capture

            \t[0]: 'NV12' (Y/UV 4:2:0)
            \t\tSize: Continuous 16x16 - 1920x1080
            \t\t\tInterval: Continuous 0.033s - 1.000s (1.000-30.000 fps)
            \t[1]: 'YUYV' (YUYV 4:2:2)
            \t\tSize: Discrete 1280x720
            \t\t\tInterval: Discrete 0.033s (29.970 fps)
            \t\t\tInterval: Discrete 0.017s (59.940 fps)
            \t[2]: 'S920' (vendor)
            \t\tSize: Discrete 640x480

            ioctl: VIDIOC_ENUM_FMT
            \tType: Video Output

            \t[0]: 'RGB3' (24-bit RGB 8-8-8)
            \t\tSize: Discrete 640x480
            """
        let listing = V4L2FormatListing(parsing: text)
        #expect(listing.offers.count == 2)
        #expect(listing.offers.first?.rates == .range(Fraction(1, 1)...Fraction(30, 1)))
        #expect(listing.offers.last?.rates == .discrete([Fraction(30000, 1001), Fraction(60000, 1001)]))
        #expect(listing.skipped == ["S920"])
        // 29.97 is not 30: asked for 1280x720 at 30, the YUYV mode keeps it only at 59.94.
        let chosen = try ModeChoice.choose(from: [listing.offers[1]], for: .deliver(size: ModeSize(width: 1280, height: 720), rate: Fraction(30, 1)))
        #expect(chosen.mode.rate == Fraction(60000, 1001))
        // A range takes the rate asked for.
        let ranged = try ModeChoice.choose(from: [listing.offers[0]], for: .deliver(size: ModeSize(width: 1280, height: 720), rate: Fraction(25, 1)))
        #expect(ranged.mode.sizeText == "1280x720" && ranged.mode.rate == Fraction(25, 1))
    }
}

/// Modes chosen by hand (`--mode`), and how a request is written.
struct ModeRequestTests {
    static let c922: [ModeOffer] = V4L2FormatListing(parsing: ModeChoiceTests.listing([
        "YUYV 640x480 @ 30, 24, 20, 15, 10, 7.5, 5", "YUYV 1280x720 @ 10, 7.5, 5", "YUYV 1920x1080 @ 5",
        "MJPG 1280x720 @ 60, 30", "MJPG 1920x1080 @ 30, 24",
    ])).offers

    @Test(arguments: [
        ("1280x720@60", "MJPG 1280x720@60"), ("1920x1080@30/MJPG", "MJPG 1920x1080@30"), ("1280x720", "MJPG 1280x720@30"),
        ("1920x1080@5", "YUYV 1920x1080@5"), ("1920x1080@5/yuyv", "YUYV 1920x1080@5"), ("max", "MJPG 1920x1080@30"),
        ("640x480@7.5", "YUYV 640x480@7.5"), ("1280x720@60/1", "MJPG 1280x720@60"),
    ])
    func byHand(_ text: String, _ expected: String) throws {
        let chosen = try ModeChoice.choose(from: Self.c922, for: try ModeRequest(parsing: text))
        #expect(ModeChoiceTests.short(chosen.mode) == expected)
    }

    /// A mode the camera lacks is an error that names the nearest ones it has.
    @Test(arguments: [
        ("1920x1080@60", "the camera has no mode 1920x1080@60; nearest: MJPG 1920x1080 @ 30 fps"),
        ("1024x768", "the camera has no mode 1024x768; nearest: "),
        ("1280x720@60/YUYV", "the camera has no mode 1280x720@60/YUYV; nearest: "),
    ])
    func aModeTheCameraLacksNamesTheNearest(_ text: String, _ start: String) throws {
        do {
            _ = try ModeChoice.choose(from: Self.c922, for: try ModeRequest(parsing: text))
            Issue.record("\(text) was chosen")
        } catch {
            #expect(error.kind == .usage)
            #expect(error.message.hasPrefix(start), "\(error.message)")
            #expect(error.message.components(separatedBy: " fps").count - 1 <= 3, "\(error.message)")
        }
    }

    @Test(arguments: [
        ("1920x1080@", "the frame rate is not a positive number"), ("1920@30", "the size is not WxH"),
        ("1920x1080@30/HEVC", "HEVC is not a format gpick can take"), ("axb", "the size is not WxH"), ("1280x720@-5", "the frame rate"),
    ])
    func badModesSayWhatIsWrong(_ text: String, _ part: String) {
        do {
            _ = try ModeRequest(parsing: text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.kind == .usage && error.message.contains(part) && error.message.contains("\"\(text)\""), "\(error.message)")
        }
    }

    @Test func ratesAreWrittenAsPeopleWriteThem() {
        #expect(ModeRate.parse("30") == Fraction(30, 1))
        #expect(ModeRate.parse("29.97") == Fraction(30000, 1001))
        #expect(ModeRate.parse("59.94") == Fraction(60000, 1001))
        #expect(ModeRate.parse("23.976") == Fraction(24000, 1001))
        #expect(ModeRate.parse("7.5") == Fraction(15, 2))
        #expect(ModeRate.parse("30000/1001") == Fraction(30000, 1001))
        #expect(ModeRate.parse("0") == nil && ModeRate.parse("x") == nil && ModeRate.parse("1/0") == nil)
        #expect(!ModeRate.atLeast(Fraction(30000, 1001), Fraction(30, 1)))
        #expect(ModeRate.atLeast(Fraction(60, 2), Fraction(30, 1)) && ModeRate.equal(Fraction(60, 2), Fraction(30, 1)))
    }
}

/// The chosen mode as the camera's stage negotiates it: a stand-in for the camera that
/// advertises a real camera's modes (videotestsrc, and jpegenc for MJPEG, behind a filter of the
/// table's caps) runs through `source-v4l2.yaml`'s own text, with only the element that would
/// open /dev/video0 replaced. The mode filter then carries exactly the chosen caps.
struct ModeNegotiationTests {
    /// The table's modes of one encoding, written as a device's caps (lists of rates).
    /// The caps a device with `offers` advertises, as CapsModes writes them for a stand-in.
    static func advertised(_ offers: [ModeOffer], _ encoding: ModeEncoding) -> String {
        offers.filter { $0.format.encoding == encoding }.map { CapsModes.caps(for: $0) }.joined(separator: "; ")
    }

    @Test(arguments: [(ModeChoiceTests.Asked.fullHD, "image/jpeg", 1920, 1080), (.vga, "video/x-raw", 640, 480), (.fullHD60, "image/jpeg", 1280, 720)])
    func theStageNegotiatesTheChosenMode(_ asked: ModeChoiceTests.Asked, _ media: String, _ width: Int, _ height: Int) async throws {
        let name = "formats/logitech-c922.txt"
        try #require(CameraData.verified.contains(name), "\(name) is not in ../shared/cameras: the camera tests need it")
        let offers = try ModeChoiceTests.table(name)
        let chosen = try ModeChoice.choose(from: offers, for: asked.request).mode
        let caps = Self.advertised(offers, chosen.format.encoding)
        // What GStreamer reads back from the device's caps is the table it came from.
        let roundTrip = CapsModes.offers(from: try Caps(caps).structures)
        #expect(roundTrip == offers.filter { $0.format.encoding == chosen.format.encoding })

        let file = try PipelineLibrary().load("source-v4l2")
        let standIn = "videotestsrc name=src is-live=true num-buffers=4" + (chosen.format.encoding == .mjpeg ? " ! jpegenc" : "")
            + " ! capsfilter caps=\"\(caps)\""
        let text = file.pipeline.value.replacingOccurrences(of: "v4l2src name=src", with: standIn) + " ! appsink name=out sync=false"
        #expect(text.contains("capsfilter name=mode"))
        let pipeline = try await Pipeline.parse(text)
        try pipeline.requireElement(named: "mode").set("caps", caps: try Caps(CapsModes.caps(for: chosen)))
        let sink = try AppSink(pipeline.requireElement(named: "out"))
        let (frames, frame) = AsyncStream<Void>.makeStream()
        sink.setCallbacks(onSample: { _ in frame.yield() }, onEOS: { frame.finish() })
        try await pipeline.setState(.playing)
        var count = 0
        for await _ in frames { count += 1; if count == 2 { break } }
        let negotiated = try #require(try pipeline.requireElement(named: "mode").staticPad("src")?.currentCaps)
        try await pipeline.setState(.null)
        #expect(count == 2)
        #expect(negotiated.mediaType == media && negotiated.int("width") == width && negotiated.int("height") == height, "\(negotiated)")
        #expect(negotiated.fraction("framerate").map { Fraction($0.0, $0.1) } == chosen.rate, "\(negotiated)")
    }
}
