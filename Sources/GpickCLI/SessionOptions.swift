import ArgumentParser
import GpickKit

/// The camera and pipeline options every capturing command takes (`snap`, `record`, `preview`,
/// and `pick`, which runs in gpick-library): shared so both executables spell them the same.
package struct PipelineOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: "Directory of pipeline files (overrides $GPICK_PIPELINES and the installed ones).")
    package var pipelines: String?

    package var library: PipelineLibrary { PipelineLibrary(override: pipelines) }
}

package struct SourceOptions: ParsableArguments {
    package init() {}

    @Option(name: [.customLong("source"), .customLong("back")],
            help: "The (back) camera: auto (PipeWire, libcamera, then V4L2; none is an error) | test[:PATTERN][?id=N&fail-after=N&stall-after=N&warmup=SECONDS&latency=SECONDS&moves=FROM-TO,…] | v4l2:/dev/videoN[?mode=MODE] | pipewire[:NAME|ID] | libcamera[:NAME] | file:PATH (gpick devices lists cameras)")
    package var source = "auto"

    @Option(name: .long, help: "The front camera, for flips, of any kind (default: a second test source, or another camera found).")
    package var front: String?

    @Flag(name: .customLong("mirror-front"), help: "Mirror the front camera left-right, as phones show selfies.")
    package var mirrorFront = false

    @Option(name: .long, parsing: .unconditional, help: "Frame width in pixels (even, 16…8192; default 1280, or with none of --width, --height and --fps a camera's own mode: its largest up to 1920x1080 that keeps 30 fps).")
    package var width: Int?

    @Option(name: .long, parsing: .unconditional, help: "Frame height in pixels (even, 16…8192; default 720, or a camera's own, as for --width).")
    package var height: Int?

    @Option(name: .long, parsing: .unconditional, help: "Frames per second (1…240; default 30, or a camera's own, as for --width).")
    package var fps: Int?

    /// What the session delivers: as given, else a camera's own mode (`formatFromCamera`),
    /// else 1280x720 at 30 fps.
    package var format: SessionFormat { SessionFormat(width: width ?? 1280, height: height ?? 720, fps: fps ?? 30) }

    @Option(name: .long, help: "Sound: none, test (a tone) or auto (the default microphone).")
    package var audio = "none"

    package mutating func validate() throws {
        do { _ = try SourceSpec.parse(source) } catch { throw ValidationError("--source: " + error.message) }
        if let front {
            do { _ = try SourceSpec.parse(front) } catch { throw ValidationError("--front: " + error.message) }
            if front == "auto" { throw ValidationError("--front auto is not allowed: name the front camera, or leave --front out") }
        }
        do { try format.validate() } catch { throw ValidationError(error.message) }
        guard AudioSpec(rawValue: audio) != nil else {
            throw ValidationError("unknown --audio \"\(audio)\" (use none, test or auto)")
        }
    }

    package func configuration(library: PipelineLibrary, audioDefault: AudioSpec = .none) throws(GpickError) -> SessionConfiguration {
        var c = SessionConfiguration()
        c.source = try SourceSpec.parse(source, patterns: library.testPatterns)
        if let front { c.front = try SourceSpec.parse(front, patterns: library.testPatterns) }
        c.mirrorFront = mirrorFront
        c.audio = AudioSpec(rawValue: audio) ?? audioDefault
        c.format = format
        c.formatFromCamera = width == nil && height == nil && fps == nil
        c.library = library
        return c
    }
}


/// `--mode` and `--control`: a V4L2 camera's mode chosen by hand and its controls, for the
/// commands that capture (the script commands' `--mode` is photo or live; a script's camera takes
/// `?mode=` in its source).
package struct CameraOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: ArgumentHelp("The camera's mode by hand: WxH, WxH@FPS or WxH@FPS/FORMAT (1920x1080@30/MJPG), or max; default: the cheapest the camera has that keeps --width, --height and --fps (gpick devices lists them).", valueName: "MODE"))
    package var mode: String?

    @Option(name: .long, help: ArgumentHelp("A V4L2 camera's control, set as it opens (repeatable): exposure-mode=manual, exposure-time=200, focus-mode=auto, focus=40, white-balance=4500, gain, zoom, pan, tilt, brightness, contrast, saturation, sharpness, backlight-compensation, power-line-frequency=50, or any control by the kernel's name.", valueName: "NAME=VALUE"))
    package var control: [String] = []

    @Flag(name: .customLong("save-controls"), help: "Remember these --control values for this camera (in ~/.config/gpick/controls.conf): they are set each time it opens, before any --control given then.")
    package var saveControls = false

    package func validate() throws {
        if let mode { do { _ = try ModeRequest(parsing: mode) } catch { throw ValidationError("--mode: " + error.message) } }
        for c in control { do { _ = try ControlSetting(parsing: c) } catch { throw ValidationError("--control: " + error.message) } }
        if saveControls, control.isEmpty { throw ValidationError("--save-controls remembers --control values: give at least one --control NAME=VALUE") }
    }

    /// Sets the mode on `c`. A mode of a given size and rate is also what the session delivers,
    /// unless --width, --height or --fps say otherwise.
    package func apply(to c: inout SessionConfiguration, capture: SourceOptions) throws(GpickError) {
        c.controls = try control.map { (text: String) throws(GpickError) in try ControlSetting(parsing: text) }
        c.controlMemory = ControlMemory.user()
        c.saveControls = saveControls
        guard let mode else { return }
        let request = try ModeRequest(parsing: mode)
        c.mode = request
        guard case .exact(let size, let rate, _) = request else { return }
        if capture.width == nil && capture.height == nil { c.format.width = size.width; c.format.height = size.height }
        if capture.fps == nil, let rate { c.format.fps = Int(rate.value.rounded(.up)) }
        do { try c.format.validate() } catch { throw GpickError(.usage, "--mode \(mode): \(error.message); give --width, --height and --fps for the session") }
    }
}
