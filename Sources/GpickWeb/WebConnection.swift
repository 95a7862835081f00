import GpickBase
import NIOCore
import NIOHTTP1

/// One client's connection, as a handler's thread sees it: where its response goes, and whether
/// the client is still there.
///
/// The event loop owns the socket; a handler's thread writes through the channel and waits for
/// each write to leave (into the kernel), with a deadline, so a client that stops reading cannot
/// hold a handler forever, nor make the server queue without bound.
final class WebConnection: Sendable {
    let channel: any Channel
    private let state = Locked(State())

    private struct State {
        var hungUp = false
        var onHangUp: [@Sendable () -> Void] = []
    }

    init(_ channel: any Channel) { self.channel = channel }

    /// True once the client has closed its side, or the connection has gone.
    var hungUp: Bool { state.withLock { $0.hungUp } }

    /// Runs `body` once when the client hangs up (at once if it has): the event loop hears an
    /// EOF or a reset the moment it comes, where a handler would notice only at its next write.
    func whenHungUp(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if !s.hungUp { s.onHangUp.append(body) }
            return s.hungUp
        }
        if now { body() }
    }

    /// Called by the event loop: EOF, reset, or the channel closed.
    func hangUp() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.hungUp else { return [] }
            s.hungUp = true
            defer { s.onHangUp = [] }
            return s.onHangUp
        }
        for handler in handlers { handler() }
    }

    /// Writes `parts` and waits until they have left, at most `deadline`. False if the connection
    /// has gone, or the client took too long (the connection is then closed). Never called on the
    /// event loop: it waits.
    @available(*, noasync, message: "a task awaits the async write")
    func write(_ parts: [HTTPServerResponsePart], deadline: Duration) -> Bool {
        guard let left = send(parts, deadline: deadline) else { return false }
        return (try? left.wait()) != nil
    }

    /// The same, for a task: it awaits instead of waiting.
    func write(_ parts: [HTTPServerResponsePart], deadline: Duration) async -> Bool {
        guard let left = send(parts, deadline: deadline) else { return false }
        return (try? await left.get()) != nil
    }

    /// Hands `parts` to the channel: the future completes when they have left, and fails when the
    /// connection goes first, closed at `deadline` if the client has not taken them by then.
    private func send(_ parts: [HTTPServerResponsePart], deadline: Duration) -> EventLoopFuture<Void>? {
        guard let last = parts.last, channel.isActive else { return nil }
        let channel = channel
        let timeout = channel.eventLoop.scheduleTask(in: TimeAmount.duration(deadline)) { channel.close(promise: nil) }
        for part in parts.dropLast() { channel.write(part, promise: nil) }
        let left = channel.writeAndFlush(last)
        left.whenComplete { _ in timeout.cancel() }
        return left
    }

    /// Ends the connection once its answer has left (every response closes its connection).
    func close() { channel.close(promise: nil) }
}

extension TimeAmount {
    static func duration(_ d: Duration) -> TimeAmount {
        let (seconds, attoseconds) = d.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
