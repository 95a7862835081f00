import Dispatch
import Foundation
import GpickBase

/// SIGINT and SIGTERM turned into a call on a queue of their own (no work in a C handler), as
/// gpick's own commands take them (`library watch` ends its loop; a page's command cancels).
package final class WatchSignals: Sendable {
    private let queue = DispatchQueue(label: "gpick.library.signals")
    private let state = Locked(State())

    private struct State {
        var sources: [DispatchSourceSignal] = []
        var received: Int32 = 0
    }

    package init(_ handler: @escaping @Sendable (Int32) -> Void) {
        state.withLock { s in
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { [weak self] in
                    self?.state.withLock { if $0.received == 0 { $0.received = sig } }
                    handler(sig)
                }
                source.resume()
                s.sources.append(source)
            }
        }
    }

    /// The first signal received, 0 when none was.
    package var received: Int32 { state.withLock { $0.received } }
}
