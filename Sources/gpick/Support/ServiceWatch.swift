import GpickBase
import GpickKit

/// A long-running command (serve, publish, record) under systemd: `READY=1` once its stream is up, with
/// a status line, and the watchdog (`WatchdogSec=`) fed only while its cameras' frames flow. A
/// pipeline that stalls (a hung driver, a camera gone silent, a deadlock) stops the pings, and
/// systemd restarts the service; a placeholder frame is not a frame that flows. Under no service
/// manager it does nothing.
final class ServiceWatch: Sendable {
    private let notifier: ServiceNotifier
    private let pinging: Task<Void, Never>?

    /// Says the service is ready (`status`: what it serves), and starts the watchdog's pings.
    /// Nil without a service manager.
    static func ready(_ status: String, sessions: [CaptureSession], notifier: ServiceNotifier? = .current) -> ServiceWatch? {
        guard let notifier else { return nil }
        notifier.notify("READY=1", "STATUS=\(status)")
        return ServiceWatch(notifier: notifier, sessions: sessions)
    }

    private init(notifier: ServiceNotifier, sessions: [CaptureSession]) {
        self.notifier = notifier
        pinging = notifier.watchdogInterval.map { interval in
            Task {
                var seen = sessions.map(\.deliveredFrames)
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    // Every camera delivered since the last look: the service is alive.
                    let now = sessions.map(\.deliveredFrames)
                    if zip(now, seen).allSatisfy({ $0 > $1 }), !Task.isCancelled { notifier.notify("WATCHDOG=1") }
                    seen = now
                }
            }
        }
    }

    /// Says the service is stopping (no watchdog while it finalises its files).
    func stopping() {
        pinging?.cancel()
        notifier.notify("STOPPING=1")
    }
}
