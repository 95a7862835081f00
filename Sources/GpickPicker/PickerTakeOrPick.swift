import GpickBase
import GpickKit
#if canImport(Glibc)
import Glibc
#endif

/// Take-or-pick: when a camera can be opened, the user first chooses "Take photo" or
/// "Choose from library"; with no camera the picker goes straight to the library, with a notice.
/// Either way the result is handed back as a pick.
extension Picker {
    /// What the grid holds: the plain picker's layout, or a stage of take-or-pick.
    public enum Stage: String, Sendable {
        /// The plain picker: actions, the camera cell, the assets.
        case grid
        /// Take-or-pick's question: two actions.
        case choose
        /// The camera cell alone: the first photo taken is the result.
        case take
        /// The library's assets, no camera.
        case library
    }

    public static let takePhoto = "Take photo"
    public static let chooseFromLibrary = "Choose from library"

    struct StageLayout: Equatable {
        var actions: [String]
        var showsCamera: Bool
        var showsItems: Bool
    }

    var stage: Stage { state.withLock { $0.stage } }

    /// What `stage` shows; `noCamera`: `auto` found none (read under the state's lock by the caller).
    func layout(for stage: Stage, noCamera: Bool) -> StageLayout {
        switch stage {
        case .grid: StageLayout(actions: configuration.layout.actions, showsCamera: configuration.layout.showsCamera && !noCamera,
                                showsItems: true)
        case .choose: StageLayout(actions: [Self.takePhoto, Self.chooseFromLibrary], showsCamera: false, showsItems: false)
        case .take: StageLayout(actions: [], showsCamera: true, showsItems: false)
        case .library: StageLayout(actions: [], showsCamera: false, showsItems: true)
        }
    }

    var currentLayout: StageLayout {
        let (stage, noCamera) = state.withLock { ($0.stage, $0.noCamera) }
        return layout(for: stage, noCamera: noCamera)
    }

    /// An action item was chosen: take-or-pick's question moves to its stage; any other action
    /// ends the picker with its name.
    func choose(action name: String) throws(GpickError) {
        let stage = self.stage
        guard layout(for: stage, noCamera: false).actions.contains(name) else { throw GpickError(.usage, "no such action") }
        guard stage == .choose else { return finish(.action(name)) }
        let next: Stage = name == Self.takePhoto ? .take : .library
        state.withLock { s in
            s.stage = next
            s.version += 1
        }
        if next == .take { Task { await self.startCamera() } }
    }

    /// Runs take-or-pick in `ui` to its end. Events other than the last (ready, captured,
    /// problems) go to `events`; cancelling the calling task cancels the picker.
    public static func takeOrPick(_ configuration: PickerConfiguration, ui: PickerUI,
                                  events: @escaping @Sendable (PickerEvent) -> Void = { _ in }) async throws(GpickError) -> PickResult {
        var c = configuration
        c.layout.actions = []
        c.layout.showsCamera = true
        let unavailable = await cameraUnavailable(c.capture.session.source)
        let picker = try Picker(c, stage: unavailable == nil ? .choose : .library)
        if let unavailable {
            picker.notice("No camera can be opened (\(unavailable.message)): choose a photo from the library.")
        }
        let stream: AsyncStream<PickerEvent>
        switch ui {
        case .web(let port): stream = picker.run(port: port)
        case .terminal(let t): stream = picker.runInTerminal(screen: t.screen, graphics: t.graphics, cellPixels: t.cellPixels,
                                                             background: t.background, typedAhead: t.typedAhead)
        }
        var last: PickerEvent = .cancelled
        await withTaskCancellationHandler {
            for await event in stream {
                if event.isFinal { last = event } else { events(event) }
            }
        } onCancel: {
            picker.cancel()
        }
        switch last {
        case .picked(let items): return .picked(items)
        case .action(let name): return .action(name)
        case .failed(let error): throw error
        default: return .cancelled
        }
    }

    /// Why the source's camera cannot be opened now, or nil when it can (`gpick devices`' check:
    /// the device file's access, a PipeWire node that delivers, a libcamera camera listed).
    public static func cameraUnavailable(_ source: SourceSpec) async -> GpickError? {
        var spec = source
        if case .auto = spec {
            do throws(GpickError) { spec = try await AutoCamera.choose().source } catch { return error }
        }
        switch spec {
        case .test: return nil
        case .file(let path):
            return access(path, R_OK) == 0 ? nil : GpickError(.input, "\(path) cannot be read")
        case .v4l2:
            do throws(GpickError) { try spec.checkAccessible(); return nil } catch { return error }
        case .pipewire, .libcamera:
            do throws(GpickError) {
                let camera = try await CameraDirectory.find(spec)
                let checked = await CameraDirectory.checked([camera])
                if case .denied(let why, _) = checked.first?.access { return GpickError(.device, why) }
                return nil
            } catch {
                return error
            }
        case .auto: return nil
        }
    }
}

/// Where a picker is shown.
public enum PickerUI: Sendable {
    /// A page on 127.0.0.1 at this port (0: any free port).
    case web(port: Int)
    case terminal(TerminalPickerScreen)
}
