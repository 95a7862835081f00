import GpickTerminal
import GpickWeb
import Foundation
import GpickBase
import GpickImages
import GpickKit
import GpickLibrary

/// The image picker: a page served by gpick on 127.0.0.1, or a grid drawn in
/// the terminal, with up to two action items, the live camera cell and the library's recent
/// assets; what the user picks is handed back as events, as a delegate would be called.
///
/// `run()` starts it; the stream ends with one final event (picked, action, cancelled or failed),
/// after the camera and the server have stopped.
public final class Picker: Sendable {
    public let configuration: PickerConfiguration
    let state = Monitor(State())
    let output = Locked<AsyncStream<PickerEvent>.Continuation?>(nil)
    /// Set once the server is up (the URL to open, with its token).
    let serverBox = Locked<WebServer?>(nil)
    let cameraBox = Locked<PickerCamera?>(nil)
    /// The last rest or wake asked for: each waits for the one before (see `rest`).
    private let restOrder = Locked<Task<Void, Never>?>(nil)
    /// The terminal picker: its camera frames, and what stops it before the camera does.
    let terminalFrames = Locked<PickerFrames?>(nil)
    let teardowns = Locked<[@Sendable () async -> Void]>([])
    let captureFolder: String

    /// What the page and the picker share, under `state`'s lock.
    struct State {
        var assets: [PickerItem] = []
        /// Captures made in the picker, newest first: the head of the grid.
        var captures: [PickerItem] = []
        var captureCount = 0
        var camera = CameraStatus()
        /// Overlays: why the library or the camera is not there, and how to fix it.
        var problems: [String] = []
        /// One line for the status area: why the grid has no camera cell.
        var notice: String?
        /// The library's listing has been read (or failed): the grid is whole.
        var libraryLoaded = false
        var stage = Stage.grid
        /// The selection as the page or the terminal last said it, in the order chosen.
        var selection: [String] = []
        /// `auto` found no camera: the grid has no camera cell (a test pattern is never shown unasked).
        var noCamera = false
        /// Bumped on every change the page should hear of (its event stream waits on it).
        var version = 0
        var ended = false
    }

    struct CameraStatus {
        /// Where the camera cell is at; the page reads the raw value.
        enum State: String {
            /// No camera cell (none asked for, or `auto` found none).
            case off
            case starting, live, suspended, failed
        }
        var state = State.off
        var position = CameraPosition.back
        var live = false
        var recording = false
        var reason: String?
        var page: PickerPageJSON.Camera {
            PickerPageJSON.Camera(state: state.rawValue, position: position.rawValue, live: live, recording: recording, reason: reason)
        }
    }

    /// Checks `configuration` (a bad one throws here, before anything opens). `stage` is the
    /// plain picker's grid, or where take-or-pick starts.
    public init(_ configuration: PickerConfiguration, stage: Stage = .grid) throws(GpickError) {
        try configuration.validate()
        self.configuration = configuration
        state.withLock { $0.stage = stage }
        if configuration.layout.showsCamera && configuration.capture.savesToLibrary {
            // Captures are written here whole, then moved into the library by the import.
            var template = Array("/tmp/gpick-pick-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else {
                throw SyscallError.error(errno: errno, "make a folder", "/tmp/gpick-pick-XXXXXX")
            }
            captureFolder = String(cString: made)
        } else {
            captureFolder = configuration.capture.outputDirectory
        }
    }

    /// The page's URL, with its token, once the picker runs.
    public var url: String? { serverBox.withLock { $0?.url("/") } }

    /// Starts the server, then loads the library and the camera beside the page.
    public func run(port: Int = 0) -> AsyncStream<PickerEvent> {
        let (stream, continuation) = AsyncStream<PickerEvent>.makeStream(bufferingPolicy: .unbounded)
        output.withLock { $0 = continuation }
        do throws(GpickError) {
            let server = try WebServer(port: port, maxBody: 64 << 10)
            serverBox.withLock { $0 = server }
            PickerRoutes(picker: self, server: server).mount()
            continuation.yield(.ready(url: server.url("/")))
        } catch {
            finish(.failed(error))
            return stream
        }
        startLibraryAndCamera()
        return stream
    }

    /// Draws the picker in a terminal (`screen`: a tty of its own, so that stdout stays free for
    /// the result, as fzf draws on /dev/tty) with `graphics`; `cellPixels` is the size of one
    /// character cell in pixels, for kitty and sixel pictures. The screen is restored before the
    /// final event.
    public func runInTerminal(screen: TerminalScreen, graphics: TerminalGraphics, cellPixels: PixelBox,
                              background: UInt32? = nil, typedAhead: [UInt8] = []) -> AsyncStream<PickerEvent> {
        let (stream, continuation) = AsyncStream<PickerEvent>.makeStream(bufferingPolicy: .unbounded)
        output.withLock { $0 = continuation }
        let view = TerminalPickerView(picker: self, screen: screen, graphics: graphics, cellPixels: cellPixels, background: background)
        teardowns.withLock { $0.append { await view.stop() } }
        view.start(typedAhead: typedAhead)
        continuation.yield(.ready(url: nil))
        startLibraryAndCamera()
        return stream
    }

    /// The library's listing at once; libvips (for thumbnails) next, and only then the camera:
    /// the two libraries' starts never overlap (see NativeLibraries), and the first photo taken
    /// does not wait for libvips.
    private func startLibraryAndCamera() {
        Task { await self.loadLibrary() }
        let camera = currentLayout.showsCamera
        Task {
            await self.configuration.thumbnails.warmUp()
            if camera { await self.startCamera() }
        }
    }

    /// Ends the picker as cancelled (a signal, a timeout of the caller's).
    public func cancel() { finish(.cancelled) }

    /// Ends the picker with `event`, once: the camera stops and the server closes first, then the
    /// event is the stream's last.
    func finish(_ event: PickerEvent) {
        let first = state.withLock { s -> Bool in
            defer { s.ended = true; s.version += 1 }
            return !s.ended
        }
        guard first else { return }
        Task {
            for teardown in teardowns.withLock({ $0 }) { await teardown() }
            if let camera = cameraBox.withLock({ $0 }) { await camera.stop() }
            if let server = serverBox.withLock({ $0 }) {
                // close() waits for the server's threads, one of which may be the caller's.
                await OffPool.run { server.close(grace: .seconds(2)) }
            }
            if configuration.capture.savesToLibrary && configuration.layout.showsCamera {
                rmdir(captureFolder)
            }
            let c = output.withLock { c -> AsyncStream<PickerEvent>.Continuation? in defer { c = nil }; return c }
            c?.yield(event)
            c?.finish()
        }
    }

    func emit(_ event: PickerEvent) {
        _ = output.withLock { $0?.yield(event) }
    }

    /// A line for the status area (not an overlay: nothing is wrong, only missing), also
    /// reported as a problem event to scripts.
    func notice(_ text: String) {
        state.withLock { s in
            s.notice = text
            s.version += 1
        }
        emit(.problem(text))
    }

    func problem(_ text: String) {
        state.withLock { s in
            guard !s.problems.contains(text) else { return }
            s.problems.append(text)
            s.version += 1
        }
        emit(.problem(text))
    }

    // MARK: The library

    func loadLibrary() async {
        let c = configuration
        defer { state.withLock { $0.libraryLoaded = true; $0.version += 1 } }
        for root in c.roots.paths where access(root, R_OK | X_OK) != 0 {
            let why = errno == ENOENT ? "does not exist" : "cannot be read (\(String(cString: strerror(errno))))"
            problem(c.words(.unreadableFolder(root, reason: why)))
        }
        guard fileStatus(c.indexPath) != nil else {
            problem(c.words(.noIndex))
            return
        }
        do {
            let listed = try await OffPool.run { () throws(GpickError) in
                try LibraryIndex.open(path: c.indexPath).list(c.fetch)
            }
            let items = listed.map(PickerItem.init)
            state.withLock { s in
                s.assets = items
                s.version += 1
            }
        } catch {
            problem("The library's index could not be read: \(error.message)")
        }
    }

    /// A capture's files are done: into the library if asked, then at the head of the grid.
    func captured(_ files: [String], kind: Asset.Kind, duration: Double? = nil) async throws(GpickError) -> PickerItem {
        var paths = files
        var indexed: ListedAsset?
        if configuration.capture.savesToLibrary {
            // The library's own record comes with the import: its asset id, and what the scan
            // saw (a Motion Photo is live).
            (paths, indexed) = try await importIntoLibrary(files)
        }
        let main = paths[0]
        let isLive = main.hasSuffix(".MP.jpg") || paths.contains { $0.hasSuffix(".mov") }
        let format = configuration.capture.session.format
        let (item, taking) = state.withLock { s -> (PickerItem, Bool) in
            s.captureCount += 1
            var item = PickerItem(capture: s.captureCount, path: main, kind: kind,
                                  mimeType: kind == .video ? "video/mp4" : "image/jpeg", size: fileStatus(main).map { Int64($0.st_size) } ?? 0,
                                  width: format.width, height: format.height, duration: duration, subtypes: isLive ? ["live"] : [],
                                  pairedMovie: paths.first { $0.hasSuffix(".mov") })
            if let indexed {
                item = PickerItem(indexed)
                item.id = "c\(s.captureCount)"
            }
            s.captures.insert(item, at: 0)
            s.version += 1
            return (item, s.stage == .take)
        }
        emit(.captured(item))
        // Take-or-pick's camera: the photo taken is the answer.
        if taking { finish(.picked([item])) }
        return item
    }

    /// Imports a capture's files (moved into the library), and gives where each went and the
    /// index's record of the first. A file whose content was there already is that file; its
    /// record is looked up, as is a burst's count of members.
    private func importIntoLibrary(_ files: [String]) async throws(GpickError) -> ([String], ListedAsset?) {
        let c = configuration
        let landed = Locked<[String: String]>([:])
        let rows = Locked<[String: Asset]>([:])
        let failure = Locked<GpickError?>(nil)
        return try await OffPool.run { () throws(GpickError) -> ([String], ListedAsset?) in
            let index = try LibraryIndex.open(path: c.indexPath)
            _ = try Importer(index: index, roots: c.roots, move: true).run(files) { event in
                switch event {
                case .imported(let source, let path, _, _, let asset):
                    landed.withLock { $0[source] = path }
                    if let asset { rows.withLock { $0[source] = asset } }
                case .duplicate(let source, let existing): landed.withLock { $0[source] = existing }
                case .failed(_, let error): failure.withLock { $0 = $0 ?? error }
                case .progress: break
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            let map = landed.withLock { $0 }
            let paths = files.map { map[$0] ?? $0 }
            guard let first = files.first else { return (paths, nil) }
            if let asset = rows.withLock({ $0[first] }), !asset.burst { return (paths, ListedAsset(asset: asset, burstCount: 1)) }
            return (paths, try? index.listed(path: paths[0]))
        }
    }

    // MARK: What the page sees

    /// Nobody looks at the camera cell (`on`), or somebody does again: the camera rests or wakes,
    /// and the event says so. Without a running camera, nothing happens.
    /// Queued at once, in the caller's order, and done one at a time: resting waits for the
    /// blurred frame to be shown (up to half a second), and a glance away and back within it
    /// must not let the wake overtake the rest, which would then pause a live cell and report
    /// the two backwards. The task returned ends when this change is done.
    @discardableResult
    func rest(_ on: Bool) -> Task<Void, Never> {
        restOrder.withLock { last -> Task<Void, Never> in
            let before = last
            let task = Task { [self] in
                await before?.value
                await changeRest(on)
            }
            last = task
            return task
        }
    }

    private func changeRest(_ on: Bool) async {
        guard let camera = cameraBox.withLock({ $0 }) else { return }
        do throws(GpickError) {
            guard try await camera.rest(on) else { return }
            emit(on ? .cameraSuspended : .cameraResumed)
        } catch {
            problem("The camera could not \(on ? "rest" : "wake"): \(error.message)")
        }
    }

    /// The page or the terminal says what is selected now: each item that came in or went out is
    /// an event, in order (out first, then in). Unknown ids are ignored.
    func selectionChanged(to ids: [String]) {
        let (gone, came) = state.withLock { s -> ([PickerItem], [PickerItem]) in
            var byID: [String: PickerItem] = [:]
            for item in s.assets + s.captures { byID[item.id] = item }
            let now = ids.filter { byID[$0] != nil }
            let before = s.selection
            s.selection = now
            return (before.filter { !now.contains($0) }.compactMap { byID[$0] }, now.filter { !before.contains($0) }.compactMap { byID[$0] })
        }
        for item in gone { emit(.deselected(item)) }
        for item in came { emit(.selected(item)) }
    }

    func item(id: String) -> PickerItem? {
        state.withLock { s in s.captures.first { $0.id == id } ?? s.assets.first { $0.id == id } }
    }

    /// The grid's items in the current stage (none while take-or-pick asks or takes).
    var allItems: [PickerItem] {
        state.withLock { s in layout(for: s.stage, noCamera: s.noCamera).showsItems ? s.captures + s.assets : [] }
    }
}
