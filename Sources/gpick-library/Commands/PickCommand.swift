import GpickTerminal
import ArgumentParser
import Foundation
import GpickBase
import GpickCLI
import GpickImages
import GpickKit
import GpickLibrary
import GpickPicker
import GpickPickCLI

/// `gpick pick`: the picker. What is chosen goes to stdout, one path per line, as fzf and
/// `zenity --file-selection` hand results back; cancelling exits 130 with nothing printed.
struct PickCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pick",
        abstract: "Pick photos and videos from the library, or take one with the live camera cell; prints the chosen paths.",
        discussion: """
            The picker is a page served by gpick on 127.0.0.1 (its URL, with a private token, is printed on \
            stderr and opened when there is a display), or a grid drawn in the terminal (kitty graphics, sixel \
            or half blocks, whichever the terminal answers for). Without --ui: the browser when there is a \
            display, the terminal when stdout is one. Keys: arrows or hjkl move, space selects, Enter \
            confirms (on the camera cell: takes a photo), f flips, s snaps, l toggles live, r records, Esc or q cancels. \
            Exit status: 0 chosen (or an action), 130 cancelled, as fzf.
            """
    )

    enum UI: String, ExpressibleByArgument, CaseIterable { case web, terminal }

    @Option(name: .long, help: "web (a page in the browser) or terminal. Default: the browser when there is a display, else the terminal.")
    var ui: UI?

    enum Graphics: String, ExpressibleByArgument, CaseIterable { case auto, kitty, sixel, blocks }

    @Option(name: .long, help: "Pictures in the terminal: auto (ask the terminal), kitty, sixel or blocks (truecolor half blocks).")
    var graphics: Graphics = .auto

    @Option(name: .customLong("action"), help: ArgumentHelp("An action item shown first (repeatable, at most 2); choosing it prints action:NAME.", valueName: "NAME"))
    var actions: [String] = []

    @Flag(name: .customLong("no-camera"), help: "No camera cell: the camera is never opened.")
    var noCamera = false

    @Flag(name: .customLong("take-or-pick"), help: "Ask first: \"Take photo\" or \"Choose from library\" (straight to the library, with a notice, when no camera can be opened).")
    var takeOrPick = false

    @Option(name: .customLong("camera-mode"), help: "photo, or photo-and-live (live photos, with their pre-roll).")
    var cameraMode: PickerConfiguration.CameraMode = .photo

    @Option(name: .customLong("longest-video"), help: ArgumentHelp("A video taken in the picker stops by itself at this length and joins the grid, as a stopped one does (e.g. 30s, 10m; 1s…24h, default 10m).", valueName: "DURATION"))
    var longestVideo = "10m"

    @Flag(name: .customLong("save-to-library"), help: "Captures also go into the library (imported and indexed at once); otherwise into --output-dir.")
    var saveToLibrary = false

    @Option(name: .customLong("output-dir"), help: "Folder for captures made in the picker.")
    var outputDirectory = "."

    @Option(name: .long, parsing: .unconditional, help: "Items per row (per column with --scroll horizontal).")
    var columns = 4

    @Option(name: .long, help: "vertical, or horizontal (a keyboard-like strip).")
    var scroll: PickerConfiguration.ScrollDirection = .vertical

    typealias Appearance = PickerConfiguration.Appearance

    @Option(name: .long, help: "auto (light or dark as the browser prefers or, in the terminal, as its background is), light or dark.")
    var theme: Appearance.Theme = .auto

    @Option(name: .long, help: ArgumentHelp("The colour of the focus ring, the selection and the Choose button, as #rgb or #rrggbb; text on it is black or white, whichever reads better.", valueName: "COLOR"))
    var accent = Appearance.defaultAccent

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Pixels between the page's cells (\(Appearance.spacingRange.lowerBound)…\(Appearance.spacingRange.upperBound)).", valueName: "PX"))
    var spacing = Appearance().spacing

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Pixels between the page's grid and the window's edges (\(Appearance.insetsRange.lowerBound)…\(Appearance.insetsRange.upperBound)).", valueName: "PX"))
    var insets = Appearance().insets

    @Option(name: .long, help: ArgumentHelp("A stylesheet the page applies after gpick's own (its rules win); read again on each reload of the page.", valueName: "FILE"))
    var style: String?

    @Flag(name: .long, help: "Allow choosing several items.")
    var multi = false

    @Flag(name: .long, help: "End each printed path with a NUL byte instead of a newline.")
    var print0 = false

    @Option(name: .long, parsing: .unconditional, help: "Port on 127.0.0.1 for the page (0: any free port).")
    var port = 0

    @Flag(name: .customLong("no-open"), help: "Do not open the page in a browser; only print its URL.")
    var noOpen = false

    @OptionGroup var library: LibraryOptions
    @OptionGroup var filter: QueryOptions
    @OptionGroup var camera: SourceOptions
    @OptionGroup var pipelines: PipelineOptions

    func validate() throws {
        guard columns >= 1 else { throw ValidationError("--columns must be 1 or more, not \(columns)") }
        guard columns <= 50 else { throw ValidationError("--columns must be 50 or fewer, not \(columns)") }
        guard actions.count <= PickerConfiguration.maxActions else {
            throw ValidationError("--action is given \(actions.count) times: at most \(PickerConfiguration.maxActions) action items")
        }
        guard Appearance.rgb(accent) != nil else {
            throw ValidationError("--accent must be a hex colour, #rgb or #rrggbb, not \"\(accent)\"")
        }
        guard Appearance.spacingRange.contains(spacing) else {
            throw ValidationError("--spacing must be \(Appearance.spacingRange.lowerBound)…\(Appearance.spacingRange.upperBound) pixels, not \(spacing)")
        }
        guard Appearance.insetsRange.contains(insets) else {
            throw ValidationError("--insets must be \(Appearance.insetsRange.lowerBound)…\(Appearance.insetsRange.upperBound) pixels, not \(insets)")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port) is out of range (0-65535)") }
        guard let longest = DurationText.parse(longestVideo), PickerConfiguration.Capture.videoDurationRange.contains(longest) else {
            throw ValidationError("--longest-video \(longestVideo) must be a duration of 1s…24h (e.g. 30s, 10m)")
        }
        if takeOrPick && noCamera {
            throw ValidationError("--take-or-pick offers the camera: leave out --no-camera (or drop --take-or-pick to only pick)")
        }
        if takeOrPick && !actions.isEmpty {
            throw ValidationError("--take-or-pick asks its own question: it takes no --action")
        }
        if graphics != .auto && ui == .web {
            throw ValidationError("--graphics is for --ui terminal; the page draws its own pictures")
        }
    }

    /// The answer is printed as soon as it is chosen, and the process leaves at once (HelperMain
    /// ends it without destructors): a native library still starting on another thread (the
    /// GStreamer registry being rebuilt for a video thumbnail, seconds on a loaded machine) is
    /// not waited for.
    func run() async throws {
        let events = Events(json: library.json, command: "pick")
        let environment = ProcessInfo.processInfo.environment
        let hasDisplay = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        let ui = try self.ui ?? Self.automaticUI(hasDisplay: hasDisplay, noOpen: noOpen)
        var c = PickerConfiguration(indexPath: library.indexPath, roots: library.roots,
                                    thumbnails: ThumbnailCache(version: GpickVersion.current))
        c.words = PickerWords.commandLine
        c.layout.actions = actions
        c.layout.showsCamera = !noCamera
        c.layout.itemsPerRow = columns
        c.layout.scroll = scroll
        c.allowsMultiple = multi
        // The terminal picker keeps the theme and accent too; spacing, insets and style are the page's.
        c.appearance.theme = theme
        c.appearance.accent = accent
        c.appearance.spacing = spacing
        c.appearance.insets = insets
        c.appearance.stylesheet = style
        c.fetch = filter.query(roots: library.roots)
        c.capture.cameraMode = cameraMode
        c.capture.videoMaximumDuration = DurationText.parse(longestVideo) ?? c.capture.videoMaximumDuration
        c.capture.savesToLibrary = saveToLibrary
        c.capture.outputDirectory = outputDirectory
        if !noCamera {
            c.capture.session = try camera.configuration(library: pipelines.library)
        }
        // Checked before the terminal is taken over: a bad configuration is one plain line.
        try c.validate()
        let picker = takeOrPick ? nil : try Picker(c)
        let running = Locked<Task<PickResult, Error>?>(nil)
        let signals = WatchSignals { _ in
            picker?.cancel()
            running.withLock { $0?.cancel() }
        }
        let terminal = ui == .terminal ? try TerminalPickerScreen.open(graphics: TerminalGraphics(rawValue: graphics.rawValue),
                                                                      askBackground: c.appearance.theme == .auto) : nil
        let pickerUI = terminal.map(PickerUI.terminal) ?? .web(port: port)
        let drawn = terminal.map { ($0.graphics, c.appearance.terminalTheme(background: $0.background)) }
        let show = { @Sendable (event: PickerEvent) in
            Self.report(event, events: events, terminal: drawn, open: !noOpen && hasDisplay)
        }
        let result: PickResult
        if takeOrPick {
            let task = Task { () async throws -> PickResult in try await Picker.takeOrPick(c, ui: pickerUI, events: show) }
            running.withLock { $0 = task }
            result = try await task.value
        } else if let picker {
            result = try await Self.run(picker, ui: pickerUI, show: show)
        } else {
            result = .cancelled
        }
        withExtendedLifetime(signals) {}
        switch result {
        case .picked(let items):
            for item in items {
                if library.json {
                    events.emit("picked", item.record)
                } else {
                    FileHandle.standardOutput.write(Data((item.path + (print0 ? "\0" : "\n")).utf8))
                }
            }
        case .action(let name):
            if library.json { events.emit("action", ["name": name]) } else { print("action:\(name)", terminator: print0 ? "\0" : "\n") }
        case .cancelled:
            throw ExitCode(130)
        }
    }

    /// Runs a plain picker to its end; a failure is thrown, the rest is the result.
    static func run(_ picker: Picker, ui: PickerUI, show: @Sendable (PickerEvent) -> Void) async throws(GpickError) -> PickResult {
        let stream: AsyncStream<PickerEvent>
        switch ui {
        case .web(let port): stream = picker.run(port: port)
        case .terminal(let t): stream = picker.runInTerminal(screen: t.screen, graphics: t.graphics, cellPixels: t.cellPixels,
                                                                  background: t.background, typedAhead: t.typedAhead)
        }
        var final: PickerEvent = .cancelled
        for await event in stream {
            if event.isFinal { final = event } else { show(event) }
        }
        switch final {
        case .picked(let items): return .picked(items)
        case .action(let name): return .action(name)
        case .failed(let error): throw error
        default: return .cancelled
        }
    }

    /// What the picker says along the way: the page's URL on stderr (and opened), JSON events.
    /// `terminal`: how the terminal picker draws (pictures, theme), nil for the web page.
    static func report(_ event: PickerEvent, events: Events, terminal: (graphics: TerminalGraphics, theme: PickerConfiguration.Appearance.Theme)?,
                       open: Bool) {
        switch event {
            case .ready(let url?):
                Console.notice("pick: \(url)")
                events.emit("ready", ["url": url])
                if open { Browser.open(url) }
            case .ready(nil):
                events.emit("ready", ["ui": "terminal", "graphics": terminal?.graphics.rawValue ?? "blocks",
                                      "theme": terminal?.theme.rawValue ?? "dark"])
            case .shown(let cells):
                // CLOCK_MONOTONIC too: a caller that noted the clock before starting gpick gets
                // start-to-paint without gpick's own start-up left out.
                events.emit("shown", ["cells": cells, "monotonic": Double(Monotonic.nanoseconds()) / 1e9])
            case .captured(let item):
                events.emit("captured", item.record)
            case .selected(let item):
                events.emit("selected", item.record.merging(["id": item.id]) { $1 })
            case .deselected(let item):
                events.emit("deselected", item.record.merging(["id": item.id]) { $1 })
            case .cameraSuspended:
                events.emit("camera-suspended", [:])
            case .cameraResumed:
                events.emit("camera-resumed", [:])
            case .cameraArrived:
                events.emit("camera-arrived", [:])
            case .problem(let text):
                events.emit("problem", ["message": text])
            default:
                break
        }
    }

    /// Without --ui: the browser when there is a display (or the URL is only printed), the
    /// terminal when stdout is one; otherwise one line listing the choices.
    static func automaticUI(hasDisplay: Bool, noOpen: Bool) throws(GpickError) -> UI {
        if hasDisplay || noOpen { return .web }
        if isatty(1) == 1 { return .terminal }
        throw GpickError(.usage, "no display and no terminal for the picker: give --ui web (and open the printed URL) or --ui terminal")
    }
}

extension PickerConfiguration.CameraMode: ExpressibleByArgument {}
extension PickerConfiguration.ScrollDirection: ExpressibleByArgument {}
extension PickerConfiguration.Appearance.Theme: ExpressibleByArgument {}
