import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit
import GstCore

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
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
            if !out.json { print(Gst.version) }
            events.finished(["ok": !missingAny])
            if missingAny { throw ExitCode(69) }
        }
    }
}

/// Elements behind each command, and the Debian package of each element.
enum Requirements {
    static let session = ["videotestsrc", "videoconvert", "videoscale", "capsfilter", "tee", "queue", "appsink", "appsrc"]
    static let byCommand: [(String, [String])] = [
        ("snap", session + ["appsrc", "jpegenc", "pngenc"]),
        ("record (mp4/mkv)", session + ["x264enc", "h264parse", "mp4mux", "matroskamux", "fdsink", "voaacenc", "aacparse", "audiotestsrc", "audioconvert", "audioresample"]),
        ("record (webm)", session + ["vp9enc", "webmmux", "opusenc", "fdsink"]),
        ("live", session + ["openh264enc", "h264parse", "voaacenc", "aacparse", "mp4mux", "qtmux", "jpegenc"]),
        ("preview", session + ["autovideosink", "videorate", "jpegenc"]),
        ("camera sources", ["v4l2src", "decodebin", "videorate", "autoaudiosrc", "videoflip"]),
        ("inspect", ["filesrc", "decodebin", "appsink", "jpegdec", "avdec_h264", "qtdemux", "matroskademux"]),
    ]

    static func package(for element: String) -> String { ElementPackages.package(for: element) ?? "libgstreamer1.0-0" }
}
