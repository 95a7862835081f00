import GpickTerminal
import GpickBase
import GpickKit
#if canImport(Glibc)
import Glibc
#endif

/// The terminal the picker draws on: the controlling terminal (/dev/tty), not stdout, so that
/// `files=$(gpick pick --ui terminal)` works as it does with fzf; and which pictures it can
/// show, learnt by asking it (kitty graphics, then sixel from its device attributes, else
/// truecolor half blocks). Inside tmux the answer is tmux's own, so pictures fall back to what
/// tmux passes on.
public struct TerminalPickerScreen: Sendable {
    public let screen: TerminalScreen
    public let graphics: TerminalGraphics
    /// One character cell in pixels (kitty and sixel pictures are sized with it).
    public let cellPixels: PixelBox
    /// Keys typed while the terminal was being asked, in order.
    public let typedAhead: [UInt8]
    /// The terminal's background colour (0xRRGGBB), if it answered OSC 11: a theme of `auto`
    /// follows it.
    public let background: UInt32?

    /// Opens /dev/tty and asks it what it can draw, waiting at most `timeout` seconds for its
    /// answer (every terminal answers the device-attributes request at once; a silent one gets
    /// half blocks). `graphics` skips the question of pictures; `askBackground` still asks for
    /// the background colour.
    public static func open(graphics chosen: TerminalGraphics? = nil, askBackground: Bool = true,
                            timeout: Double = 0.5) throws(GpickError) -> TerminalPickerScreen {
        let fd = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let why = String(cString: strerror(errno))
            throw GpickError(.usage, "no terminal to draw the picker on (/dev/tty: \(why))", remedy: .useWebPicker)
        }
        let screen: TerminalScreen
        do { screen = try TerminalScreen(fd: fd, input: fd) } catch { close(fd); throw error }
        var probe = TerminalGraphicsProbe()
        if chosen == nil || askBackground {
            screen.write(chosen == nil ? TerminalGraphicsProbe.query : TerminalGraphicsProbe.backgroundQuery)
            let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { break }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ms = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                guard poll(&p, 1, ms) > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                if probe.feed(buffer[0..<n]) { break }
            }
            // No answer in time: a half-read sequence was a key the user typed.
            if !probe.answered { probe.finish() }
        }
        var ws = winsize()
        var cell = PixelBox(width: 10, height: 20)
        if ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_xpixel > 0, ws.ws_ypixel > 0, ws.ws_col > 0, ws.ws_row > 0 {
            cell = PixelBox(width: max(1, Int(ws.ws_xpixel) / Int(ws.ws_col)), height: max(1, Int(ws.ws_ypixel) / Int(ws.ws_row)))
        }
        return TerminalPickerScreen(screen: screen, graphics: chosen ?? probe.choice, cellPixels: cell, typedAhead: probe.leftover,
                                    background: probe.background)
    }
}
