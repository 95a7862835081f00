import ArgumentParser
import Foundation
import GpickKit
import GstCore

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check which GStreamer elements each command needs, and which Debian package provides any that are missing.")

    @OptionGroup var out: OutputOptions

    func run() async throws {
        let events = Events(json: out.json, command: "doctor")
        try await reporting(events) {
            do { try Gst.initialize() } catch { throw GpickError(.plugin, "GStreamer does not initialise: \(error)") }
            var missingAny = false
            for (command, elements) in Requirements.byCommand {
                let missing = elements.filter { !Gst.hasElement($0) }
                missingAny = missingAny || !missing.isEmpty
                if out.json {
                    events.emit("check", ["command": command, "elements": elements, "missing": missing,
                                          "packages": Array(Set(missing.map { Requirements.package(for: $0) })).sorted()])
                    continue
                }
                if missing.isEmpty {
                    print("ok       \(command)")
                } else {
                    print("MISSING  \(command): " + missing.map { "\($0) (apt-get install \(Requirements.package(for: $0)))" }.joined(separator: ", "))
                }
            }
            if !out.json { print("GStreamer \(Gst.version)") }
            events.finished(["ok": !missingAny])
            if missingAny { throw ExitCode(69) }
        }
    }
}

/// Elements behind each command, and the Debian package of each element.
enum Requirements {
    static let session = ["videotestsrc", "videoconvert", "videoscale", "capsfilter", "tee", "queue", "appsink"]
    static let byCommand: [(String, [String])] = [
        ("snap", session + ["appsrc", "jpegenc", "pngenc"]),
        ("record (mp4/mkv)", session + ["x264enc", "h264parse", "mp4mux", "matroskamux", "fdsink", "avenc_aac", "aacparse", "audiotestsrc", "audioconvert", "audioresample"]),
        ("record (webm)", session + ["vp9enc", "webmmux", "opusenc", "fdsink"]),
        ("camera sources", ["v4l2src", "decodebin", "videorate", "autoaudiosrc"]),
        ("inspect", ["filesrc", "decodebin", "appsink", "jpegdec", "avdec_h264", "qtdemux", "matroskademux"]),
    ]

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
        "x264enc": "gstreamer1.0-plugins-ugly", "avenc_aac": "gstreamer1.0-libav", "avdec_h264": "gstreamer1.0-libav",
    ]

    static func package(for element: String) -> String { packages[element] ?? "libgstreamer1.0-0" }
}
