import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit
import GstCore

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check what each command will use: the elements of its pipeline files, and for the window preview the sink it would open on this display.",
        discussion: "A missing element is named with the Debian package that provides it. Exit 69 when a command cannot run.")

    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func run() async throws {
        let events = Events(json: out.json, command: "doctor")
        try await reporting(events) {
            do throws(GStreamerError) { try await Gst.initialized() } catch { throw GpickError(.plugin, "GStreamer does not initialise: \(error.message)") }
            let library = pipelines.library
            var failed = false
            for check in Requirements.checks {
                let elements = try check.elements(library)
                let missingElements = elements.filter { !Gst.hasElement($0) }
                // A library gpick loads when a command first needs it, named with its package.
                let missingLibrary = check.library.flatMap { $0.loads() ? nil : $0 }
                let missing = missingElements + (missingLibrary.map { [$0.name] } ?? [])
                let packages = Array(Set(Requirements.packages(for: missingElements) + (missingLibrary.map { [$0.package] } ?? []))).sorted()
                failed = failed || !missing.isEmpty
                if out.json {
                    events.emit("check", ["check": check.name, "elements": elements, "missing": missing,
                                          "packages": packages, "ok": missing.isEmpty])
                } else if missing.isEmpty {
                    print("ok       \(check.name)")
                } else {
                    let named = missingElements.map { e in ElementPackages.package(for: e).map { "\(e) (\($0))" } ?? e }
                        + (missingLibrary.map { ["\($0.name) (\($0.package))"] } ?? [])
                    print("MISSING  \(check.name): \(named.joined(separator: ", ")); apt-get install \(packages.joined(separator: " "))")
                }
            }
            failed = mjpegDecoder(events) || failed
            failed = try previewWindow(library, events) || failed
            if !out.json { print(Gst.version) }
            events.finished(["ok": !failed])
            if failed { throw ExitCode(69) }
        }
    }

    /// What decodes a camera's MJPEG: decodebin takes the highest-ranked JPEG decoder. That is
    /// gpick's own (gpickjpegdec, over libjpeg-turbo), else libjpeg-turbo's jpegdec;
    /// a hardware one (v4l2jpegdec, vajpegdec) that ranks above them takes their place. Returns
    /// whether it failed (none installed).
    private func mjpegDecoder(_ events: Events) -> Bool {
        CameraJPEGDecoder.register()
        let decoder = Gst.readers(of: "image/jpeg").first
        if out.json {
            events.emit("check", ["check": "MJPEG cameras", "decoder": decoder.map { JSONValue.string($0) } ?? .null,
                                  "packages": decoder == nil ? ["gstreamer1.0-plugins-good"] : [], "ok": decoder != nil])
        } else if let decoder {
            print("ok       MJPEG cameras: decoded by \(decoder)")
        } else {
            print("MISSING  MJPEG cameras: no JPEG decoder; apt-get install gstreamer1.0-plugins-good")
        }
        return decoder == nil
    }

    /// The window preview: what `gpick preview --sink window` would open on this display. No
    /// display is not a failure: the terminal and HTTP previews remain. Returns whether it failed.
    private func previewWindow(_ library: PipelineLibrary, _ events: Events) throws -> Bool {
        let file = try library.load("preview-window")
        let display = WindowDisplay()
        guard let sinks = file.windowSinks else {
            throw GpickError(.pipeline, "\(file.path): a window preview needs window-sinks")
        }
        guard display.isAvailable else {
            if out.json {
                events.emit("check", ["check": "preview window", "ok": true, "display": JSONValue.null, "sink": JSONValue.null,
                                      "message": "no display: the terminal and HTTP previews remain"])
            } else {
                print("--       preview window: no display (DISPLAY and WAYLAND_DISPLAY are unset); the terminal and HTTP previews remain")
            }
            return false
        }
        let (report, _) = WindowSinkChooser.probe(sinks, display: display)
        if out.json {
            var fields: JSONFields = ["check": "preview window", "ok": report.chosen != nil, "display": display.description,
                                      "sink": report.chosen,
                                      "tried": report.attempts.map { a in
                                          JSONValue(fields: ["element": a.factory, "ok": a.failure == nil, "reason": a.failure, "package": a.package])
                                      }]
            if let failure = report.failure { fields["message"] = failure.message }
            events.emit("check", fields)
        } else if let chosen = report.chosen {
            print("ok       preview window: \(chosen) on \(display.description)")
        } else {
            print("MISSING  preview window: \(report.failure?.message ?? "no window sink works")")
        }
        return report.chosen == nil
    }
}

/// What each command builds, from the pipeline files it loads (so a copied file with another
/// encoder is checked as it is), plus the few elements gpick adds itself.
enum Requirements {
    struct Check {
        let name: String
        let files: [String]
        let extra: [String]
        var library: Library? = nil
        func elements(_ library: PipelineLibrary) throws(GpickError) -> [String] {
            var seen = Set<String>(), out: [String] = []
            for f in files { for e in try library.load(f).elementFactories where seen.insert(e).inserted { out.append(e) } }
            for e in extra where seen.insert(e).inserted { out.append(e) }
            return out
        }
    }

    /// A shared library loaded on first use (not linked), and the Debian package it comes in.
    struct Library {
        let name: String
        let package: String
        let loads: @Sendable () -> Bool
    }

    /// Every camera's stage ends in an appsink that hands its frames to the session.
    static let session = ["source-test", "session"]
    static let checks: [Check] = [
        Check(name: "snap", files: ["source-test", "session", "still-jpeg", "still-png"], extra: ["appsink"]),
        Check(name: "record mp4", files: session + ["audio-test", "record-mp4"], extra: ["appsink"]),
        Check(name: "record mkv", files: session + ["audio-test", "record-mkv"], extra: ["appsink"]),
        Check(name: "record webm", files: session + ["audio-test", "record-webm"], extra: ["appsink"]),
        Check(name: "live", files: session + ["audio-test", "live-ring", "live-clip", "live-clip-mov", "still-jpeg"], extra: ["appsink"]),
        Check(name: "watch --record", files: session + ["motion-ring", "motion-clip", "still-jpeg"], extra: ["appsink"]),
        Check(name: "timelapse", files: session + ["timelapse"], extra: ["appsink"]),
        Check(name: "preview terminal", files: session + ["preview-terminal"], extra: ["appsink"]),
        Check(name: "preview http", files: session + ["preview-http"], extra: ["appsink"]),
        Check(name: "serve rtsp", files: session + ["serve-rtsp"], extra: ["appsink"],
              library: Library(name: "gst-rtsp-server", package: RTSPServer.package, loads: { RTSPServer.isAvailable })),
        Check(name: "publish srt", files: session + ["publish-srt"], extra: ["appsink"]),
        Check(name: "publish rtmp", files: session + ["publish-rtmp"], extra: ["appsink"]),
        Check(name: "publish rtsp", files: session + ["publish-rtsp"], extra: ["appsink"]),
        // --mirror-front adds a videoflip after the front camera.
        Check(name: "camera sources", files: ["source-v4l2", "source-file", "audio-auto"], extra: ["videoflip"]),
        Check(name: "pipewire cameras", files: ["source-pipewire"], extra: []),
        Check(name: "libcamera cameras", files: ["source-libcamera"], extra: []),
        // Discovery and decoding autoplug the demuxers and decoders of what gpick writes.
        Check(name: "inspect", files: ["decode-frames"],
              extra: ["uridecodebin", "qtdemux", "matroskademux", "h264parse", "avdec_h264", "jpegdec"]),
    ]

    static func packages(for missing: [String]) -> [String] {
        Array(Set(missing.compactMap(ElementPackages.package(for:)))).sorted()
    }
}
