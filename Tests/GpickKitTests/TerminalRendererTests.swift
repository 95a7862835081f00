import GpickTerminal
import Foundation
import GpickKit
import GpickTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct TerminalRendererTests {
    /// Four vertical bars (red, green, blue, white), each `width / 4` wide, with a brightness ramp
    /// down the rows so the upper and lower pixel of every cell differ. The row padding holds 0xAB,
    /// which must never show up on screen.
    static func bars(width: Int, height: Int, padding: Int = 5) -> Frame {
        var f = Frame(width: width, height: height, stride: width * 3 + padding)
        for y in 0..<height {
            for x in 0..<width { f[x, y] = barColour(x: x, y: y, width: width) }
        }
        return f
    }

    static func barColour(x: Int, y: Int, width: Int) -> RGB {
        let on = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)][x * 4 / width]
        let hi = UInt8(255 - 17 * y), lo = UInt8(7 * y)
        return RGB(on.0 == 1 ? hi : lo, on.1 == 1 ? hi : lo, on.2 == 1 ? hi : lo)
    }

    @Test func fourBarsDecodeToExactCellColours() {
        let f = Self.bars(width: 8, height: 6)
        var renderer = TerminalRenderer()
        var term = VirtualTerminal(rows: 4, columns: 8)
        let out = f.render(&renderer)
        term.feed(out)
        #expect(term.unknown.isEmpty, "unexpected sequences \(term.unknown)")
        #expect(term.drawn.count == 8 * 3)
        for row in 0..<3 {
            for x in 0..<8 {
                let cell = term.cells[row][x]
                #expect(cell?.glyph == "▀")
                #expect(cell?.fg == Self.barColour(x: x, y: 2 * row, width: 8), "cell \(row),\(x) top")
                #expect(cell?.bg == Self.barColour(x: x, y: 2 * row + 1, width: 8), "cell \(row),\(x) bottom")
            }
        }
        // A colour is only sent when it changes: once per bar and row, for each layer.
        #expect(Self.count("\u{1B}[38;2;", in: out) == 4 * 3)
        #expect(Self.count("\u{1B}[48;2;", in: out) == 4 * 3)
    }

    @Test func oddHeightLeavesTheLastRowOnTheDefaultBackground() {
        let f = Self.bars(width: 8, height: 5)
        var renderer = TerminalRenderer()
        var term = VirtualTerminal(rows: 4, columns: 8)
        term.feed(f.render(&renderer))
        #expect(term.unknown.isEmpty)
        #expect(term.drawn.count == 8 * 3)
        for x in 0..<8 {
            #expect(term.cells[1][x]?.bg == Self.barColour(x: x, y: 3, width: 8))
            #expect(term.cells[2][x]?.fg == Self.barColour(x: x, y: 4, width: 8))
            #expect(term.cells[2][x]?.bg == nil, "cell 2,\(x) should keep the default background")
        }
    }

    @Test func onlyChangedCellsAreRedrawn() {
        var f = Self.bars(width: 8, height: 6)
        var renderer = TerminalRenderer()
        var term = VirtualTerminal(rows: 4, columns: 8)
        term.feed(f.render(&renderer))
        let before = term.cells

        #expect(f.render(&renderer).isEmpty, "an identical frame needs no bytes")

        // Sensor noise (within the threshold) is not redrawn.
        let old = f[5, 3]
        f[5, 3] = RGB(old.r &+ 3, old.g, old.b &+ 2)
        #expect(f.render(&renderer).isEmpty)

        // A real change to one channel of one pixel redraws just its cell (row 1, column 5).
        f[5, 3] = RGB(old.r, 150, old.b)
        term.feed(f.render(&renderer))
        #expect(term.unknown.isEmpty)
        #expect(term.drawn.map { [$0.row, $0.column] } == [[1, 5]])
        #expect(term.cells[1][5]?.fg == f[5, 2])
        #expect(term.cells[1][5]?.bg == RGB(old.r, 150, old.b))
        var expected = before
        expected[1][5] = term.cells[1][5]
        #expect(term.cells == expected)
    }

    @Test func invalidateAndResizeRedrawEverything() {
        let f = Self.bars(width: 8, height: 6)
        var renderer = TerminalRenderer()
        var term = VirtualTerminal(rows: 6, columns: 12)
        term.feed(f.render(&renderer))
        renderer.invalidate()
        term.feed(f.render(&renderer))
        #expect(term.cleared)
        #expect(term.drawn.count == 8 * 3)

        let bigger = Self.bars(width: 12, height: 10)
        term.feed(bigger.render(&renderer))
        #expect(term.cleared)
        #expect(term.drawn.count == 12 * 5)
        #expect(term.cells[4][11]?.bg == Self.barColour(x: 11, y: 9, width: 12))
    }

    @Test func statusLineFitsTheWidth() {
        let f = Self.bars(width: 10, height: 4)
        var renderer = TerminalRenderer()
        var term = VirtualTerminal(rows: 3, columns: 10)
        term.feed(f.render(&renderer, status: "gpick preview · 1920×1080 · 30 fps · q quit"))
        #expect(term.unknown.isEmpty)
        #expect(term.text(row: 2) == "gpick pre…")

        #expect(f.render(&renderer, status: "gpick preview · 1920×1080 · 30 fps · q quit").isEmpty)

        term.feed(f.render(&renderer, status: "a\u{1B}[2Jb·×"))
        #expect(term.text(row: 2) == "a [2Jb·×", "control characters are shown as spaces")
        #expect(term.drawn.isEmpty, "only the status row changed")

        term.feed(f.render(&renderer, status: nil))
        #expect(term.text(row: 2) == "")
    }

    @Test func fullFrameIsFastEvenInADebugBuild() {
        var f = Frame(width: 200, height: 120, stride: 200 * 3)
        for y in 0..<120 {
            for x in 0..<200 { f[x, y] = RGB(UInt8((x * 7 + y) & 255), UInt8((y * 5 + x) & 255), UInt8((x * y) & 255)) }
        }
        var renderer = TerminalRenderer()
        // This thread's CPU time, not the wall clock: a loaded machine (two suites on two cores)
        // stretched the wall time of the same work past the ceiling.
        func cpuSeconds() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        var times: [Double] = []
        var bytes = 0
        for _ in 0..<7 {
            renderer.invalidate()
            let start = cpuSeconds()
            bytes = f.render(&renderer, status: "gpick preview · 1920×1080 · 30 fps · q quit · s snap · f flip").count
            times.append(cpuSeconds() - start)
        }
        let median = times.sorted()[times.count / 2]
        #expect(bytes > 200 * 60 * 3)
        // A ceiling against a pathological regression only; the preview's real cost is measured
        // in bench/ (terminal preview CPU).
        #expect(median < 0.25, "median \(median) CPU s for 200×60 cells")
    }

    static func count(_ needle: String, in bytes: [UInt8]) -> Int {
        let n = Array(needle.utf8)
        guard bytes.count >= n.count else { return 0 }
        return (0...(bytes.count - n.count)).filter { bytes[$0..<$0 + n.count].elementsEqual(n) }.count
    }
}

extension TerminalRendererTests {
    /// The tty side, on a pseudo-terminal standing in for the user's terminal.
    @Suite(.serialized) struct Screen {
        @Test func entersAndRestoresTheTerminal() throws {
            let pty = try Pty()
            defer { pty.close() }
            pty.setSize(columns: 100, rows: 30)
            let original = pty.modes()
            let screen = try TerminalScreen(fd: pty.slave, input: pty.slave)
            let entered = pty.read(until: "\u{1B}[?25l")
            #expect(entered.contains("\u{1B}[?1049h"))
            #expect(entered.contains("\u{1B}[?25l"))
            let raw = pty.modes()
            #expect(raw.c_lflag & tcflag_t(ICANON | ECHO) == 0)
            let size = TerminalScreen.size(fd: pty.slave)
            #expect(size?.columns == 100 && size?.rows == 30)

            screen.write(Array("frame".utf8))
            #expect(pty.read(until: "frame").hasSuffix("frame"))

            screen.restore()
            let left = pty.read(until: "\u{1B}[?1049l")
            #expect(left.contains("\u{1B}[?25h"))
            #expect(left.contains("\u{1B}[?1049l"))
            let back = pty.modes()
            #expect(back.c_lflag == original.c_lflag)
            #expect(back.c_iflag == original.c_iflag)

            screen.restore()
            screen.write(Array("late".utf8))
            #expect(pty.read(until: nil, timeout: 0.2) == "", "restore() is idempotent and closes writes")
        }

        @Test func keysAndResizesReachTheirHandlers() throws {
            let pty = try Pty()
            defer { pty.close() }
            let screen = try TerminalScreen(fd: pty.slave, input: pty.slave)
            defer { screen.restore() }
            let keys = Collected<UInt8>()
            let sizes = Collected<[Int]>()
            screen.onKey { keys.append($0) }
            screen.onResize { sizes.append([$0, $1]) }

            pty.type([UInt8(ascii: "s"), 0x03])
            #expect(keys.wait(count: 2) == [UInt8(ascii: "s"), UInt8(ascii: "q")], "Ctrl-C arrives as q")

            pty.setSize(columns: 120, rows: 40)
            kill(getpid(), SIGWINCH)  // the pty has no foreground process group to signal
            #expect(sizes.wait(count: 1) == [[120, 40]])
        }

        @Test func refusesAnOutputThatIsNotATerminal() {
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            defer { Glibc.close(fds[0]); Glibc.close(fds[1]) }
            let error = #expect(throws: GpickError.self) { try TerminalScreen(fd: fds[1], input: fds[0]) }
            #expect(error?.kind == .usage)
        }
    }
}

// MARK: - Test helpers

extension TerminalRendererTests {
    struct RGB: Equatable, CustomStringConvertible {
        var r, g, b: UInt8
        init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { (self.r, self.g, self.b) = (r, g, b) }
        var description: String { "(\(r),\(g),\(b))" }
    }

    /// A packed-RGB frame with row padding, as GStreamer hands them over.
    struct Frame {
        let width, height, stride: Int
        var bytes: [UInt8]

        init(width: Int, height: Int, stride: Int) {
            (self.width, self.height, self.stride) = (width, height, stride)
            bytes = [UInt8](repeating: 0xAB, count: stride * height)
        }

        subscript(x: Int, y: Int) -> RGB {
            get { let o = y * stride + x * 3; return RGB(bytes[o], bytes[o + 1], bytes[o + 2]) }
            set { let o = y * stride + x * 3; (bytes[o], bytes[o + 1], bytes[o + 2]) = (newValue.r, newValue.g, newValue.b) }
        }

        func render(_ renderer: inout TerminalRenderer, status: String? = nil) -> [UInt8] {
            bytes.withUnsafeBytes { renderer.render(rgb: $0, width: width, height: height, stride: stride, statusLine: status) }
        }
    }

    /// Just enough of an xterm to replay the renderer's output: cursor moves, truecolor and default
    /// SGR, erase screen/line, private modes (ignored) and UTF-8 text.
    struct VirtualTerminal {
        struct Cell: Equatable {
            var glyph: Character
            var fg: RGB?
            var bg: RGB?
        }

        var cells: [[Cell?]]
        var row = 0, column = 0
        var fg: RGB?, bg: RGB?
        /// Glyph cells written by the last `feed`, and whether it cleared the screen.
        var drawn: [(row: Int, column: Int)] = []
        var cleared = false
        var unknown: [String] = []

        init(rows: Int, columns: Int) {
            cells = Array(repeating: Array(repeating: nil, count: columns), count: rows)
        }

        func text(row: Int) -> String {
            String(cells[row].compactMap { $0?.glyph }).trimmingCharacters(in: .whitespaces)
        }

        mutating func feed(_ bytes: [UInt8]) {
            drawn = []
            cleared = false
            var i = 0
            var run: [UInt8] = []
            func flush(_ t: inout VirtualTerminal) {
                for ch in String(decoding: run, as: UTF8.self) { t.put(ch) }
                run = []
            }
            while i < bytes.count {
                guard bytes[i] == 0x1B else { run.append(bytes[i]); i += 1; continue }
                flush(&self)
                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") else { unknown.append("ESC"); i += 1; continue }
                var j = i + 2
                while j < bytes.count, !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                guard j < bytes.count else { unknown.append("truncated"); break }
                let params = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
                control(params, Character(UnicodeScalar(bytes[j])))
                i = j + 1
            }
            flush(&self)
        }

        private mutating func put(_ ch: Character) {
            guard row < cells.count, column < cells[row].count else { unknown.append("glyph off screen"); return }
            cells[row][column] = Cell(glyph: ch, fg: fg, bg: bg)
            if ch == "▀" { drawn.append((row, column)) }
            column += 1
        }

        private mutating func control(_ params: String, _ final: Character) {
            if params.hasPrefix("?") { return }
            let n = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
            switch final {
            case "H":
                row = max(1, n.first ?? 1) - 1
                column = max(1, n.count > 1 ? n[1] : 1) - 1
            case "J" where n == [2]:
                cells = cells.map { $0.map { _ in nil } }
                cleared = true
            case "K" where n == [2]:
                if row < cells.count { cells[row] = cells[row].map { _ in nil } }
            case "m":
                var k = 0
                while k < n.count {
                    switch n[k] {
                    case 0: fg = nil; bg = nil
                    case 39: fg = nil
                    case 49: bg = nil
                    case let layer where (layer == 38 || layer == 48) && k + 4 < n.count && n[k + 1] == 2:
                        let c = RGB(UInt8(n[k + 2]), UInt8(n[k + 3]), UInt8(n[k + 4]))
                        if layer == 38 { fg = c } else { bg = c }
                        k += 4
                    default: unknown.append("SGR \(params)")
                    }
                    k += 1
                }
            default: unknown.append("CSI \(params)\(final)")
            }
        }
    }

    /// A pseudo-terminal pair; the test plays the user's terminal on the master side.
    struct Pty {
        let master: Int32
        let slave: Int32

        init() throws {
            var m: Int32 = -1, s: Int32 = -1
            guard openpty(&m, &s, nil, nil, nil) == 0 else { throw GpickError(.runtime, "openpty failed: \(errno)") }
            (master, slave) = (m, s)
            _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        }

        func close() { Glibc.close(master); Glibc.close(slave) }

        func setSize(columns: Int, rows: Int) {
            var ws = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &ws)
        }

        func modes() -> termios {
            var t = termios()
            _ = tcgetattr(slave, &t)
            return t
        }

        func type(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) } }

        /// What the program wrote, read until `marker` shows up (or the timeout passes).
        func read(until marker: String?, timeout: Double = 2) -> String {
            var got: [UInt8] = []
            let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
            while Date() < deadline {
                var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 20) > 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if n > 0 { got += buffer[0..<n] }
                if let marker, String(decoding: got, as: UTF8.self).contains(marker) { break }
            }
            return String(decoding: got, as: UTF8.self)
        }
    }

    /// Values handed over by a handler on another queue.
    /// `@unchecked Sendable` invariant: `items` is only touched under `lock`.
    final class Collected<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [T] = []

        func append(_ item: T) { lock.withLock { items.append(item) } }

        func wait(count: Int, timeout: Double = 2) -> [T] {
            let deadline = Date().addingTimeInterval(HangBound.seconds(timeout))
            while Date() < deadline {
                if let done = lock.withLock({ items.count >= count ? items : nil }) { return done }
                usleep(10_000)
            }
            return lock.withLock { items }
        }
    }
}
