import CGStreamer

/// gpick's own lines in GStreamer's debug log (category "gpick"): `GST_DEBUG=gpick:5` shows
/// what gpick decided beside what GStreamer did, in one timeline. The message is built only when
/// its level is on.
public enum DebugLog {
    public enum Level: Sendable {
        /// `log` is GStreamer's level 6, for what happens on every buffer.
        case error, warning, info, debug, log

        var gst: GstDebugLevel {
            switch self {
            case .error: GST_LEVEL_ERROR
            case .warning: GST_LEVEL_WARNING
            case .info: GST_LEVEL_INFO
            case .debug: GST_LEVEL_DEBUG
            case .log: GST_LEVEL_LOG
            }
        }
    }

    public static func isOn(_ level: Level) -> Bool { cgst_gpick_log_enabled(level.gst) != 0 }

    /// Logs `message` at `level`, about `element` when given (the log names it).
    public static func log(_ level: Level, _ element: Element? = nil, _ message: @autoclosure () -> String) {
        guard isOn(level) else { return }
        let object = element.map { UnsafeMutableRawPointer($0.pointer).assumingMemoryBound(to: GObject.self) }
        cgst_gpick_log(level.gst, object, message())
    }
}
