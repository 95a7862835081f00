import GstCore

/// What a script may change in a running session: properties of the session's own elements
/// (`set src.pattern ball`), looking in the current camera's stage first. Elements of outputs,
/// and anything that names a file, a device or an address, are out of reach.
extension CaptureSession {
    public func setProperty(element: String, property: String, value: String) throws(GpickError) {
        guard let pipeline else { throw GpickError(.runtime, "the session is not running") }
        let stageBin = state.withLock { $0.stage?.bin }
        guard let e = stageBin?.directChild(named: element) ?? pipeline.directChild(named: element) else {
            let names = ((stageBin?.children ?? []) + pipeline.children).map(\.name)
                .filter { $0 != element && !$0.hasPrefix("source-") && !$0.hasPrefix("recording-") }
            let hint = Suggest.closest(to: element, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
            throw GpickError(.input, "no element \"\(element)\" in the session\(hint)")
        }
        let factory = e.factoryName ?? ""
        if PipelineBuilder.fileSinks[factory] != nil || PipelineBuilder.networkPrefixes.contains(where: { factory.hasPrefix($0) })
            || ["location", "fd", "device", "host", "uri"].contains(property) {
            throw GpickError(.input, "\(element).\(property) cannot be set from a script (it names a file, device or address)")
        }
        do {
            try e.set(property, .string(value))
        } catch {
            throw GpickError(.input, error.message)
        }
    }
}
