import GstCore

/// Turns GStreamer's errors into one line a user understands, naming the thing at fault.
enum ErrorInterpreter {
    static func describe(_ e: GStreamerError, source: SourceSpec, output: String? = nil) -> GpickError {
        let path = e.sourcePath ?? ""
        let fromSource = path.hasSuffix(":src") || path.hasSuffix(":asrc") || e.source == "src" || e.source == "asrc"
        let device: String = { if case .v4l2(let d) = source { return d } else { return "\(source)" } }()
        if e.isMissingPlugin {
            return GpickError(.plugin, "missing GStreamer plugin: \(e.message) (run `gpick doctor` to see which package provides it)")
        }
        if e.isNoSpaceLeft {
            return GpickError(.output, "no space left on device writing \(output ?? "the output")")
        }
        if fromSource, source.isCamera {
            if e.isResourceNotFound { return GpickError(.device, "no such camera: \(device)") }
            if e.isResourceBusy { return GpickError(.device, "camera \(device) is busy (another program is using it)") }
            if e.isResourceOpenReadWrite {
                return GpickError(.device, "permission denied opening \(device): add your user to the video group (sudo usermod -aG video $USER) and log in again")
            }
            if e.isResourceRead { return GpickError(.device, "camera \(device) stopped delivering frames (unplugged?): \(e.message)") }
        }
        if fromSource, e.isResourceRead {
            return GpickError(.device, "source \(source) failed: \(e.message)")
        }
        if e.isNotNegotiated {
            return GpickError(.input, "format not supported: \(source) cannot deliver the requested size/rate, or an encoder refused it (\(e.source ?? "?"))")
        }
        if e.isResourceOpenWrite || e.isResourceWrite {
            return GpickError(.output, "cannot write \(output ?? "the output"): \(e.message)")
        }
        return GpickError(.runtime, "\(e.source ?? "GStreamer"): \(e.message)" + (e.debug.map { " [\($0.split(separator: "\n").first ?? "")]" } ?? ""))
    }
}
