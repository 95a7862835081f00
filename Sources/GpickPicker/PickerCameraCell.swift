import GpickBase
import GpickKit

/// The camera cell's life in the picker: started beside the page, its state as the page and the
/// terminal show it, and (with `auto`) a camera that is plugged in while the picker runs.
extension Picker {
    func startCamera() async {
        let server = serverBox.withLock { $0 }
        let frames = terminalFrames.withLock { $0 }
        guard server != nil || frames != nil else { return }
        if configuration.capture.session.source == .auto {
            guard await waitForACamera() else { return }
        }
        let camera = PickerCamera(settings: configuration.capture, directory: captureFolder)
        cameraBox.withLock { $0 = camera }
        setCamera { $0.state = .starting }
        camera.session.onEvent { [weak self] event in self?.cameraEvent(event) }
        do {
            try await camera.start(on: server, frames: frames)
            setCamera { s in
                if s.state == .starting { s.state = .live }
            }
        } catch {
            setCamera { $0.state = .failed; $0.reason = error.message }
            problem(configuration.words(.cameraFailed(error.message)))
        }
    }

    /// `auto` with no camera at all: no cell, one line in the status area saying what was looked
    /// for, and the machine looked at again until a camera is plugged in; then the cell appears
    /// (the line goes) and the camera starts as it would have. Returns false if the picker
    /// ended first. A test pattern is never shown unasked.
    private func waitForACamera() async -> Bool {
        var line: String?
        let found = await AutoCamera.waitForOne { error in
            if line == nil {
                let text = error.message.prefix(1).uppercased() + error.message.dropFirst() + "."
                line = text
                state.withLock { s in
                    s.noCamera = true
                    s.camera.state = .off
                    s.notice = text
                    s.version += 1
                }
            }
            return !state.withLock { $0.ended }
        }
        guard found != nil, !state.withLock({ $0.ended }) else { return false }
        guard let line else { return true }
        state.withLock { s in
            s.noCamera = false
            if s.notice == line { s.notice = nil }
            s.camera.state = .starting
            s.version += 1
        }
        emit(.cameraArrived)
        return true
    }

    func cameraEvent(_ event: SessionEvent) {
        switch event {
        case .sourceLive(let p): setCamera { $0.state = .live; $0.position = p; $0.reason = nil }
        case .switching(let p, _, _):
            // A resting camera woken: starting again (its blurred last frame still shown), not
            // suspended, until its first frame.
            setCamera { s in
                s.position = p
                if s.state == .suspended { s.state = .starting; s.reason = nil }
            }
        case .suspended: setCamera { $0.state = .suspended; $0.reason = "the camera is suspended" }
        case .sourceFailed(let e): setCamera { $0.state = .failed; $0.reason = e.message }
        default: break
        }
    }

    func setCamera(_ change: (inout CameraStatus) -> Void) {
        state.withLock { s in
            change(&s.camera)
            s.version += 1
        }
    }
}
