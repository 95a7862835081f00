import Dispatch
import FoundationEssentials
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// The tty side of the terminal preview: the alternate screen with the cursor hidden, keys read
/// one at a time without echo, resize notices, and writes that never fail loudly.
///
/// `restore()` puts the terminal back; the CLI calls it on its graceful path (its SignalStopper
/// owns SIGINT/SIGTERM). As a safety net it also runs at exit, and on SIGINT/SIGTERM/SIGHUP when
/// nobody else handles them (the default action would otherwise leave the terminal unusable).
///
/// Its state is in two locks: the handlers and their dispatch sources in `watching`; whether
/// writes still go out in `output`, held for a whole write so a frame never interleaves with
/// another or with the leave sequence.
public final class TerminalScreen: Sendable {
    /// Where frames go, and where keys come from.
    public let fd: Int32
    public let input: Int32
    private let saved: termios?
    private let queue = DispatchQueue(label: "gpick.terminal")
    private let watching = Locked(Watching())
    private let output = Locked(Output())

    private struct Watching {
        var restored = false
        var keyHandler: (@Sendable (UInt8) -> Void)?
        var resizeHandler: (@Sendable (Int, Int) -> Void)?
        var keySource: DispatchSourceRead?
        var resizeSource: DispatchSourceSignal?
        /// Ctrl-C bytes read so far (the second one raises SIGINT).
        var ctrlC = 0
    }

    private struct Output {
        var closed = false
        /// A write failed: the terminal is gone.
        var broken = false
    }

    /// The terminal's size in cells, or nil when `fd` is not a terminal.
    public static func size(fd: Int32 = 1) -> (columns: Int, rows: Int)? {
        var ws = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }

    public init(fd: Int32 = 1, input: Int32 = 0) throws(GpickError) {
        guard isatty(fd) != 0 else { throw GpickError(.usage, "the terminal preview needs a terminal on stdout") }
        self.fd = fd
        self.input = input
        var original = termios()
        saved = isatty(input) != 0 && tcgetattr(input, &original) == 0 ? original : nil
        // Armed before the terminal changes, so a signal during setup still puts it back.
        EmergencyRestore.arm(output: fd, input: input, termios: saved)
        if var raw = saved {
            // Keys arrive at once and unechoed. Ctrl-C arrives as a byte (read as "quit") rather
            // than a signal; Ctrl-S would otherwise stop output and stall the frame writer.
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
            raw.c_iflag &= ~tcflag_t(IXON)
            withUnsafeMutableBytes(of: &raw.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            _ = tcsetattr(input, TCSANOW, &raw)
        }
        write(Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[0m\u{1B}[2J".utf8))
    }

    deinit { restore() }

    /// Shows the cursor, leaves the alternate screen, resets attributes and gives the terminal its
    /// original modes back. Later calls, and later writes, do nothing.
    public func restore() {
        let first = watching.withLock { w -> Bool in
            if w.restored { return false }
            w.restored = true
            // Cancelling does not wait for a running handler, so it is safe under the lock.
            w.keySource?.cancel()
            w.resizeSource?.cancel()
            w.keySource = nil
            w.resizeSource = nil
            w.keyHandler = nil
            w.resizeHandler = nil
            return true
        }
        guard first else { return }
        EmergencyRestore.disarm()
        output.withLock { o in
            if !o.broken { put(Array("\u{1B}[?1004l\u{1B}[?2026l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8), &o) }
            o.closed = true
        }
        if var original = saved { _ = tcsetattr(input, TCSAFLUSH, &original) }
    }

    /// Puts back the terminal a screen still holds (one that was never restored), as exit's hook
    /// would: for a process that ends with `_exit`, which runs no atexit hook.
    public static func restoreBeforeExit() {
        EmergencyRestore.run()
    }

    /// Calls `handler` with the new (columns, rows) when the terminal is resized, on a queue of
    /// the screen's own. A later call replaces the handler.
    public func onResize(_ handler: @escaping @Sendable (Int, Int) -> Void) {
        watching.withLock { w in
            guard !w.restored else { return }
            w.resizeHandler = handler
            guard w.resizeSource == nil else { return }
            signal(SIGWINCH, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue)
            source.setEventHandler { [weak self] in self?.resized() }
            source.resume()
            w.resizeSource = source
        }
    }

    /// Calls `handler` with each byte typed, on a queue of the screen's own (never the cooperative
    /// pool): the first Ctrl-C arrives as "q"; a second one raises SIGINT, as the terminal would
    /// have, for when quitting hangs. Keys are only read when `input` is a terminal.
    /// Runs `work` after `delay` on the queue that hands out keys: never between two bytes of
    /// one read (an escape sequence the terminal sent at once is whole by then).
    public func afterKeys(_ delay: DispatchTimeInterval, _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + delay, execute: work)
    }

    public func onKey(_ handler: @escaping @Sendable (UInt8) -> Void) {
        watching.withLock { w in
            guard !w.restored else { return }
            w.keyHandler = handler
            guard w.keySource == nil, isatty(input) != 0 else { return }
            let source = DispatchSource.makeReadSource(fileDescriptor: input, queue: queue)
            source.setEventHandler { [weak self] in self?.readKeys() }
            source.resume()
            w.keySource = source
        }
    }

    /// Writes all of `bytes`, waiting out short writes and a full non-blocking terminal. A failure
    /// (the terminal is gone) turns this and later writes into no-ops.
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        output.withLock { o in
            if !o.closed && !o.broken { put(bytes, &o) }
        }
    }

    /// The write loop, inside `output`'s lock.
    private func put(_ bytes: [UInt8], _ o: inout Output) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 1000)
                    continue
                }
                o.broken = true
                return
            }
        }
    }

    private func resized() {
        guard let handler = watching.withLock({ $0.restored ? nil : $0.resizeHandler }),
              let size = Self.size(fd: fd) else { return }
        handler(size.columns, size.rows)
    }

    private func readKeys() {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if n <= 0 {
            // End of input or a dead terminal: stop watching rather than spin on it.
            if n == 0 || (errno != EINTR && errno != EAGAIN) { watching.withLock { $0.keySource?.cancel() } }
            return
        }
        for byte in buffer[0..<n] {
            // The first Ctrl-C is "q"; the second raises SIGINT. Counted under the lock, though
            // only the screen's queue reads keys.
            let (handler, ctrlC) = watching.withLock { w -> ((@Sendable (UInt8) -> Void)?, Int) in
                if byte == 0x03 { w.ctrlC += 1 }
                return (w.restored ? nil : w.keyHandler, w.ctrlC)
            }
            guard let handler else { return }
            if byte != 0x03 { handler(byte) } else if ctrlC == 1 { handler(UInt8(ascii: "q")) } else { kill(getpid(), SIGINT) }
        }
    }
}

/// What the atexit hook and the fatal-signal handlers need to put the terminal back. They can
/// neither capture context nor take locks (a signal handler must stay async-signal-safe), so the
/// state lives in memory allocated once, and `active` is set last when arming and cleared first.
private struct EmergencyState {
    var active: Int32 = 0
    var output: Int32 = -1
    var input: Int32 = -1
    var hasTermios: Int32 = 0
    var termios = Glibc.termios()
}

private enum EmergencyRestore {
    nonisolated(unsafe) static let state: UnsafeMutablePointer<EmergencyState> = {
        let p = UnsafeMutablePointer<EmergencyState>.allocate(capacity: 1)
        p.initialize(to: EmergencyState())
        return p
    }()

    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Registered once per process, on first use.
    static let atexitHook: Void = { atexit { EmergencyRestore.run() } }()

    static func arm(output: Int32, input: Int32, termios: termios?) {
        _ = atexitHook
        let s = state
        s.pointee.active = 0
        s.pointee.output = output
        s.pointee.input = input
        s.pointee.hasTermios = termios == nil ? 0 : 1
        if let termios { s.pointee.termios = termios }
        s.pointee.active = 1
        // Only signals still at their default action: a handler the app installed (the CLI's
        // SignalStopper) runs its graceful path, which calls restore().
        for sig in signals {
            var current = sigaction()
            guard sigaction(sig, nil, &current) == 0, handlerAddress(current) == 0 else { continue }
            var ours = sigaction()
            ours.__sigaction_handler.sa_handler = onFatalSignal
            ours.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
            sigemptyset(&ours.sa_mask)
            _ = sigaction(sig, &ours, nil)
        }
    }

    /// Clears the slot and hands signals we took back to their default action, unless someone
    /// has installed a handler of their own since.
    static func disarm() {
        state.pointee.active = 0
        for sig in signals {
            var current = sigaction()
            guard sigaction(sig, nil, &current) == 0, handlerAddress(current) == ourAddress else { continue }
            signal(sig, SIG_DFL)
        }
    }

    /// Async-signal-safe: write(2) and tcsetattr(3) only, best effort.
    static func run() {
        let s = state
        guard s.pointee.active != 0 else { return }
        s.pointee.active = 0
        // CAN first: it aborts an escape sequence a frame write may have been cut off in.
        let leave: StaticString = "\u{18}\u{1B}[?1004l\u{1B}[?2026l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"
        _ = Glibc.write(s.pointee.output, leave.utf8Start, leave.utf8CodeUnitCount)
        if s.pointee.hasTermios != 0 { _ = tcsetattr(s.pointee.input, TCSANOW, &s.pointee.termios) }
    }

    static func handlerAddress(_ action: sigaction) -> Int {
        unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }

    static var ourAddress: Int {
        let handler: @convention(c) (Int32) -> Void = onFatalSignal
        return unsafeBitCast(handler, to: Int.self)
    }
}

/// Restores the terminal, then lets the signal do what it would have: SA_RESETHAND put the default
/// action back on entry, and the re-raised signal is delivered once this handler returns.
private func onFatalSignal(_ sig: Int32) {
    EmergencyRestore.run()
    raise(sig)
}
