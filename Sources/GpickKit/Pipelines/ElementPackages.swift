/// The Debian 12 package that provides each GStreamer element gpick uses, so a missing element is
/// named with the package that installs it. GStreamer cannot say this for an element that is not
/// installed, so the table is written out; PackageClosureTests checks every entry, and every
/// element that gpick's files, sources and tests name, against dpkg.
public enum ElementPackages {
    static let byPackage: [(package: String, elements: [String])] = [
        ("libgstreamer1.0-0", ["capsfilter", "fakesink", "fdsink", "filesink", "filesrc", "identity", "queue", "tee"]),
        ("gstreamer1.0-plugins-base", [
            "appsink", "appsrc", "audioconvert", "audioresample", "audiotestsrc", "decodebin", "opusenc",
            "uridecodebin", "videoconvert", "videoconvertscale", "videorate", "videoscale", "videotestsrc",
        ]),
        ("gstreamer1.0-plugins-good", [
            "aacparse", "autoaudiosrc", "flvmux", "jpegdec", "jpegenc", "matroskademux", "matroskamux", "mp4mux",
            "pngenc", "qtdemux", "qtmux", "rtph264pay", "rtpopuspay", "taginject", "v4l2src", "videoflip", "vp9enc", "webmmux",
        ]),
        ("gstreamer1.0-plugins-bad", ["h264parse", "mpegtsmux", "openh264enc", "rtmp2sink", "srtsink", "voaacenc", "waylandsink"]),
        ("gstreamer1.0-plugins-ugly", ["x264enc"]),
        ("gstreamer1.0-libav", ["avdec_h264"]),
        ("gstreamer1.0-gl", ["glimagesink"]),
        ("gstreamer1.0-x", ["textoverlay", "ximagesink", "xvimagesink"]),
        ("gstreamer1.0-pipewire", ["pipewiresrc"]),
        ("gstreamer1.0-libcamera", ["libcamerasrc"]),
        ("gstreamer1.0-rtsp", ["rtspclientsink"]),
    ]

    private static let packages: [String: String] = {
        var m: [String: String] = [:]
        for (package, elements) in byPackage { for e in elements { m[e] = package } }
        return m
    }()

    /// The package whose demuxer or decoder reads each format, for a file that cannot be played
    /// for want of one (the media types GStreamer's missing-plugin details name).
    public static let readers: [(mediaType: String, package: String)] = [
        ("video/quicktime", "gstreamer1.0-plugins-good"), ("video/x-matroska", "gstreamer1.0-plugins-good"),
        ("video/webm", "gstreamer1.0-plugins-good"), ("video/x-msvideo", "gstreamer1.0-plugins-good"),
        ("video/mpegts", "gstreamer1.0-plugins-bad"), ("application/ogg", "gstreamer1.0-plugins-base"),
        ("video/x-h264", "gstreamer1.0-libav"), ("video/x-h265", "gstreamer1.0-libav"),
        ("video/x-vp8", "gstreamer1.0-plugins-good"), ("video/x-vp9", "gstreamer1.0-plugins-good"),
        ("video/x-av1", "gstreamer1.0-plugins-bad"), ("video/x-theora", "gstreamer1.0-plugins-base"),
        ("image/jpeg", "gstreamer1.0-plugins-good"), ("image/png", "gstreamer1.0-plugins-good"),
        ("image/webp", "gstreamer1.0-plugins-bad"),
    ]

    public static func package(for element: String) -> String? { packages[element] }

    /// The package that reads a media type ("video/x-vp9" → gstreamer1.0-plugins-good).
    public static func package(reading mediaType: String) -> String? {
        readers.first { $0.mediaType == mediaType }?.package
    }

    /// Every element listed.
    public static var elements: [String] { byPackage.flatMap(\.elements) }
}
