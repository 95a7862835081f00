/// The Debian 12 package that provides each GStreamer element gpick's own pipeline files use,
/// so a missing element can be named with the command that installs it.
public enum ElementPackages {
    static let packages: [String: String] = [
        "videotestsrc": "gstreamer1.0-plugins-base", "videoconvert": "gstreamer1.0-plugins-base",
        "videoscale": "gstreamer1.0-plugins-base", "appsink": "gstreamer1.0-plugins-base",
        "appsrc": "gstreamer1.0-plugins-base", "audiotestsrc": "gstreamer1.0-plugins-base",
        "audioconvert": "gstreamer1.0-plugins-base", "audioresample": "gstreamer1.0-plugins-base",
        "decodebin": "gstreamer1.0-plugins-base", "videorate": "gstreamer1.0-plugins-base",
        "opusenc": "gstreamer1.0-plugins-base", "pngenc": "gstreamer1.0-plugins-good",
        "jpegenc": "gstreamer1.0-plugins-good", "jpegdec": "gstreamer1.0-plugins-good",
        "mp4mux": "gstreamer1.0-plugins-good", "qtdemux": "gstreamer1.0-plugins-good",
        "matroskamux": "gstreamer1.0-plugins-good", "matroskademux": "gstreamer1.0-plugins-good",
        "webmmux": "gstreamer1.0-plugins-good", "vp9enc": "gstreamer1.0-plugins-good",
        "v4l2src": "gstreamer1.0-plugins-good", "autoaudiosrc": "gstreamer1.0-plugins-good",
        "aacparse": "gstreamer1.0-plugins-good", "h264parse": "gstreamer1.0-plugins-bad",
        "x264enc": "gstreamer1.0-plugins-ugly", "openh264enc": "gstreamer1.0-plugins-bad", "voaacenc": "gstreamer1.0-plugins-bad", "avdec_h264": "gstreamer1.0-libav",
    ]

    public static func package(for element: String) -> String? { packages[element] }
}
