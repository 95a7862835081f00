import CGStreamer
import GpickBase

/// An appsink, delivering samples through a callback on the streaming thread.
public final class AppSink: Element, @unchecked Sendable {
    /// Wraps an element that must be an appsink.
    public init(_ element: Element) throws(GStreamerError) {
        guard cgst_is_app_sink(element.pointer) != 0 else {
            throw GStreamerError(domain: .core, code: 0, message: "element \"\(element.name)\" is not an appsink", source: element.name)
        }
        super.init(element.pointer, transfer: .none)
    }

    /// What the sink tells upstream after a sample.
    public enum Flow: Sendable {
        /// Keep the samples coming.
        case more
        /// End the stream: upstream's push returns EOS, so a source stops before it makes (or, for
        /// a live source, paints) another buffer, and sends EOS down.
        case enough
    }

    /// Sets the sink's callbacks: `onSample` gets each new sample (own reference), `onEOS` the end.
    /// Both run on the streaming thread: they must return quickly and never change states.
    public func setCallbacks(onSample: @escaping @Sendable (Sample) -> Void,
                             onEOS: (@Sendable () -> Void)? = nil) {
        setCallbacks(deciding: { onSample($0); return .more }, onEOS: onEOS)
    }

    /// The same, with `onSample` deciding whether the stream goes on.
    public func setCallbacks(deciding onSample: @escaping @Sendable (Sample) -> Flow,
                             onEOS: (@Sendable () -> Void)? = nil) {
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = appSinkNewSample
        callbacks.eos = appSinkEOS
        let box = Unmanaged.passRetained(AppSinkBox(onSample: onSample, onEOS: onEOS)).toOpaque()
        HappensBefore.release(box)  // read on a streaming thread, handed over through GStreamer
        gst_app_sink_set_callbacks(cgst_app_sink(pointer), &callbacks, box, releaseAppSinkBox)
    }
}

final class AppSinkBox: Sendable {
    let onSample: @Sendable (Sample) -> AppSink.Flow
    let onEOS: (@Sendable () -> Void)?
    init(onSample: @escaping @Sendable (Sample) -> AppSink.Flow, onEOS: (@Sendable () -> Void)?) {
        self.onSample = onSample
        self.onEOS = onEOS
    }
}

private let appSinkNewSample: @convention(c) (UnsafeMutablePointer<GstAppSink>?, gpointer?) -> GstFlowReturn = { sink, data in
    guard let sink, let data else { return GST_FLOW_ERROR }
    HappensBefore.acquire(data)
    let box = Unmanaged<AppSinkBox>.fromOpaque(data).takeUnretainedValue()
    // pull_sample returns a full reference: adopted by Sample.
    guard let s = gst_app_sink_pull_sample(sink) else { return GST_FLOW_EOS }
    switch box.onSample(Sample(adopting: s)) {
    case .more: return GST_FLOW_OK
    case .enough: return GST_FLOW_EOS
    }
}

private let appSinkEOS: @convention(c) (UnsafeMutablePointer<GstAppSink>?, gpointer?) -> Void = { _, data in
    guard let data else { return }
    HappensBefore.acquire(data)
    Unmanaged<AppSinkBox>.fromOpaque(data).takeUnretainedValue().onEOS?()
}

private let releaseAppSinkBox: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<AppSinkBox>.fromOpaque(data).release()
}

extension AppSink {
    /// The sample a paused pipeline prerolled, waiting at most `timeout` nanoseconds (0: only if
    /// it is there already); nil if none came.
    public func tryPullPreroll(timeout: UInt64 = 0) -> Sample? {
        gst_app_sink_try_pull_preroll(cgst_app_sink(pointer), GstClockTime(timeout)).map { Sample(adopting: $0) }
    }
}
