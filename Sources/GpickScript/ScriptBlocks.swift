import FoundationEssentials
import GpickKit

/// Folds `on motion …` / `end` and the lines between into one statement, for a whole file
/// (`ScriptParser.parse`) and for `gpick session`'s lines as they come. What may run inside a
/// block is what makes sense each time motion starts: stills, live photos, recordings of a set
/// length, waits, checks, settings, flips and echoes.
public struct ScriptBlocks: Sendable {
    private var open: ScriptStatement?
    private var body: [ScriptStatement] = []

    public init() {}

    /// True while an `on` block waits for its `end`.
    public var isOpen: Bool { open != nil }

    /// One parsed statement: what can run now (a plain statement, or a whole block once its
    /// `end` came); nil while a block is open.
    public mutating func feed(_ s: ScriptStatement) throws(ScriptSyntaxError) -> ScriptStatement? {
        switch s.command {
        case .onMotion:
            if let open { throw ScriptSyntaxError(line: s.line, column: 1, message: "on inside the on block of line \(open.line) (end that one first)") }
            open = s
            body = []
            return nil
        case .end:
            guard var block = open, case .onMotion(let zone, let cooldown, _) = block.command else {
                throw ScriptSyntaxError(line: s.line, column: 1, message: "end without an on block to close")
            }
            guard !body.isEmpty else { throw ScriptSyntaxError(line: s.line, column: 1, message: "the on block of line \(block.line) has no lines to run") }
            block.command = .onMotion(zone: zone, cooldown: cooldown, body: body)
            open = nil
            body = []
            return block
        default:
            guard let open else { return s }
            if let word = Self.refused(s.command) {
                throw ScriptSyntaxError(line: s.line, column: 1,
                                        message: "\(word) cannot run inside the on block of line \(open.line) (it runs each time motion starts)")
            }
            for name in Self.names(s.command) {
                do throws(GpickError) { try MotionClips.checkPercentSigns(name) } catch {
                    let column = (try? ScriptLexer.tokens(s.text, lineNumber: s.line))?.first { $0.text == name }?.column ?? 1
                    throw ScriptSyntaxError(line: s.line, column: column, message: error.message)
                }
            }
            body.append(s)
            return nil
        }
    }

    /// The script has ended: a block still open is an error at its `on` line.
    public func finish() throws(ScriptSyntaxError) {
        if let open { throw ScriptSyntaxError(line: open.line, column: 1, message: "this on block has no end") }
    }

    /// The file names a command writes or reads: `%n` and `%t` are filled in there.
    static func names(_ c: ScriptCommand) -> [String] {
        switch c {
        case .snap(let p), .burst(_, let p, _), .record(_, let p), .live(let p), .expect(let p, _): [p]
        default: []
        }
    }

    /// The command's word when it cannot run inside a block.
    static func refused(_ c: ScriptCommand) -> String? {
        switch c {
        case .snap, .burst, .record, .live, .wait, .set, .flip, .expect, .echo, .countdown: nil
        case .source: "source"
        case .preview: "preview"
        case .serve: "serve"
        case .publish: "publish"
        case .recordStart, .recordLoop: "record start"
        case .recordStop: "record stop"
        case .waitMotion: "wait motion"
        case .zone: "zone"
        case .mask: "mask"
        case .suspend: "suspend"
        case .resume: "resume"
        case .mode: "mode"
        case .onMotion, .end: "on"
        case .timelapse: "timelapse"
        case .clipsStart: "clips start"
        case .clipsStop: "clips stop"
        }
    }
}
