import GpickBase

/// A local page's event stream (Server-Sent Events), and what its end means. A page keeps one
/// stream open while it is shown; when the last one ends and none comes back within `grace` (a
/// reload reconnects at once, a dropped stream after the `retry` gap sent first), the user closed
/// the page, and `onGone` runs. The picker and the avatar editor each serve their page with one.
public final class PageEvents: Sendable {
    /// What the page's owner has to send next.
    public enum Next: Sendable {
        /// Nothing new within its wait: a keep-alive comment goes out, and it is asked again.
        case nothing
        /// A new state, numbered: sent as `event: NAME` with `data`; the next ask is past `version`.
        case state(version: Int, name: String, data: [UInt8])
        /// The owner has ended: the page hears `ended`, and the stream closes.
        case ended
    }

    private struct Presence {
        var pages = 0
        /// Bumped by each page that arrives: a page that left is gone only if none came since.
        var generation = 0
        /// The generation whose leaving was announced: two streams that end close together (a
        /// reload's old stream noticed late, then the new one) are one departure, not two.
        var announced = -1
    }

    private let presence = Locked(Presence())
    private let grace: Duration
    private let onGone: @Sendable () -> Void

    public init(grace: Duration = .seconds(3), onGone: @escaping @Sendable () -> Void) {
        self.grace = grace
        self.onGone = onGone
    }

    /// Serves one page's stream on `response`, on the server's thread for it, until the page
    /// hangs up or the owner has ended. A hang-up starts the grace at once. `next(version)` waits (some seconds at most) for what
    /// comes after `version` (-1 at first) and says it.
    public func serve(_ response: WebResponse, next: (Int) -> Next) {
        guard response.startStream(type: "text/event-stream", headers: ["Cache-Control": "no-store"]) else { return }
        // The browser's own retry delay is 3 s, as long as the grace: half a second keeps a
        // reconnect well inside it.
        guard response.write([Array("retry: 500\n\n".utf8)]) else { return }
        presence.withLock { p in
            p.pages += 1
            p.generation += 1
        }
        // The page has left when its stream ends, or when its client hangs up: heard at once,
        // while `next` may still be waiting seconds for news. Counted once either way.
        let leaving = Locked(false)
        let leave: @Sendable () -> Void = { [self] in
            if leaving.withLock({ done in defer { done = true }; return !done }) { left() }
        }
        response.whenClientHangsUp(leave)
        defer { leave() }
        var seen = -1
        while true {
            switch next(seen) {
            case .ended:
                _ = response.write([Array("event: ended\ndata: {}\n\n".utf8)])
                return
            case .nothing:
                guard response.write([Array(": keep-alive\n\n".utf8)]), !response.clientHungUp else { return }
            case .state(let version, let name, let data):
                seen = version
                guard response.write([Array("event: \(name)\ndata: ".utf8), data, Array("\n\n".utf8)]) else { return }
            }
        }
    }

    /// A page left: if none comes back within the grace, it was closed.
    private func left() {
        let generation = presence.withLock { p -> Int in
            p.pages -= 1
            return p.generation
        }
        Task { [self] in
            try? await Task.sleep(for: grace)
            let gone = presence.withLock { p -> Bool in
                guard p.pages == 0, p.generation == generation, p.announced != generation else { return false }
                p.announced = generation
                return true
            }
            if gone { onGone() }
        }
    }
}
