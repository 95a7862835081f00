import GpickPicker

/// The picker's problems in this command line's terms: its flags and commands.
enum PickerWords {
    @Sendable static func commandLine(_ problem: PickerProblem) -> String {
        switch problem {
        case .unreadableFolder(let folder, let reason):
            "The library folder \(folder) \(reason). Check its permissions (ls -ld \(folder)), or choose folders with --library."
        case .noIndex: "The library has no index yet: run `gpick library scan` to index your photos and videos."
        case .cameraFailed(let message): "The camera cannot be opened: \(message). Check `gpick devices`, or pick without it (--no-camera)."
        case .noCameraCell: "this picker has no camera (--no-camera)"
        case .videoFailed(let message): "The video could not be finished: \(message)."
        }
    }
}
