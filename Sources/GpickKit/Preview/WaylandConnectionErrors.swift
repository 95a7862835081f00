import CWaylandLog
import GpickBase

/// Protocol errors that end this process's Wayland connections. A compositor that ends a window
/// sink's connection leaves its window empty for good, and the sink says nothing: libwayland's
/// log is the only place the reason appears ("xdg_surface@14: error 3: xdg_surface has never
/// been configured", when waylandsink's 100 ms wait for the first configure runs out on a busy
/// compositor).
enum WaylandConnectionErrors {
    private struct Listeners: ~Copyable {
        var next: UInt64 = 0
        var handlers: [UInt64: @Sendable (String) -> Void] = [:]
    }
    private static let listeners = Locked(Listeners())

    /// Calls `handler` (on the thread that read the error) with each protocol error until
    /// `stop(_:)`. nil when libwayland-client is not loaded: no Wayland sink is in use.
    static func watch(_ handler: @escaping @Sendable (String) -> Void) -> UInt64? {
        let id = listeners.withLock { l -> UInt64 in
            l.next += 1
            l.handlers[l.next] = handler
            return l.next
        }
        let watching = gpick_wayland_watch_errors { message in
            guard let message else { return }
            let text = String(cString: message)
            for handler in WaylandConnectionErrors.listeners.withLock({ Array($0.handlers.values) }) { handler(text) }
        }
        if watching == 0 { stop(id); return nil }
        return id
    }

    static func stop(_ id: UInt64) {
        _ = listeners.withLock { $0.handlers.removeValue(forKey: id) }
    }
}
