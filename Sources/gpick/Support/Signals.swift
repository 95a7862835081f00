import GpickCLI
import Dispatch
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT/SIGTERM turned into a call on a queue of its own (never a C handler doing work), so a
/// command can stop gracefully: finish its recording, restore the terminal.
final class SignalStopper: Sendable {
    private let queue = DispatchQueue(label: "gpick.signals")
    private let state = Locked(State())

    private struct State {
        var sources: [DispatchSourceSignal] = []
        var handler: (@Sendable (Int32) -> Void)?
        /// The first signal received, 0 until then.
        var received: Int32 = 0
    }

    init() {
        // Made inside the lock: the sources belong to the state from the start.
        state.withLock { s in
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { [weak self] in self?.received(sig) }
                source.resume()
                s.sources.append(source)
            }
        }
    }

    /// On `queue`, like `onSignal`, so a handler is called once per signal.
    private func received(_ sig: Int32) {
        let handler = state.withLock { s in
            if s.received == 0 { s.received = sig }
            return s.handler
        }
        handler?(sig)
    }

    /// Calls `h` with every signal from now on, and at once with one that came before.
    func onSignal(_ h: @escaping @Sendable (Int32) -> Void) {
        queue.sync {
            let earlier = state.withLock { s in
                s.handler = h
                return s.received
            }
            if earlier != 0 { h(earlier) }
        }
    }

    var signalled: Int32 { state.withLock { $0.received } }
}
