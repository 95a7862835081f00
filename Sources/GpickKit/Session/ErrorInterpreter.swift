import GstCore

/// Turns GStreamer's errors into one line a user understands, naming the thing at fault.
/// GStreamer's own text (element paths, source locations, debug text) goes into `detail`, which
/// the CLI shows with --verbose.
enum ErrorInterpreter {
    static func describe(_ e: GStreamerError, source: SourceSpec, output: String? = nil) -> GpickError {
        let line = message(e, source: source, output: output)
        return GpickError(line.kind, line.message, detail: e.diagnostic, remedy: line.remedy)
    }

    private static func message(_ e: GStreamerError, source: SourceSpec, output: String?)
        -> (kind: GpickError.Kind, message: String, remedy: GpickError.Remedy?) {
        let path = e.sourcePath ?? ""
        let fromSource = path.hasSuffix(":src") || path.hasSuffix(":asrc") || e.source == "src" || e.source == "asrc"
        // Anything inside a camera's stage (a file source's demuxer and decoder too).
        let inStage = fromSource || path.contains(":source-")
        let device: String = { if case .v4l2(let d, _) = source { return d } else { return "\(source)" } }()
        if e.isMissingPlugin {
            return (.plugin, "missing GStreamer plugin: \(e.message)", .checkPlugins)
        }
        if e.isNoSpaceLeft {
            return (.output, "no space left on device writing \(output ?? "the output")", nil)
        }
        if fromSource, source.isCamera {
            if e.isResourceNotFound { return (.device, "no such camera: \(device)", nil) }
            if e.isResourceBusy { return (.device, "camera \(device) is busy (another program is using it)", nil) }
            if e.isResourceOpenReadWrite {
                return (.device, "permission denied opening \(device): add your user to the video group (sudo usermod -aG video $USER) and log in again", nil)
            }
            if e.isResourceRead { return (.device, "camera \(device) stopped delivering frames (unplugged?): \(e.message)", nil) }
        }
        if inStage, case .file(let file) = source, !e.isNotNegotiated {
            return (.input, "\(file) could not be read on: it is damaged or truncated (\(e.message.trimmedFullStop))", nil)
        }
        if fromSource, e.isResourceRead {
            return (.device, "source \(source) failed: \(e.message)", nil)
        }
        if e.isNotNegotiated {
            return (.input, "format not supported: \(source) cannot deliver the requested size/rate, or an encoder refused it (\(e.source ?? "?"))", nil)
        }
        if e.isResourceOpenWrite || e.isResourceWrite {
            return (.output, "cannot write \(output ?? "the output"): \(e.message)", nil)
        }
        return (.runtime, "\(inStage ? "\(source)" : e.source ?? "GStreamer"): \(e.message.trimmedFullStop)", nil)
    }
}

extension String {
    /// Without one final full stop: GStreamer's messages end with one, a clause in ours does not.
    var trimmedFullStop: String { hasSuffix(".") ? String(dropLast()) : self }
}
