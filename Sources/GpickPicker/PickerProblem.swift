/// What the picker tells its user is missing or wrong, as values. The words are the app's
/// (`PickerConfiguration.words`): gpick's command line names its flags and commands, another
/// app its own controls; the defaults name none.
public enum PickerProblem: Sendable, Equatable {
    /// A library folder that does not exist or cannot be read, and why.
    case unreadableFolder(String, reason: String)
    /// The library has never been indexed: nothing to list.
    case noIndex
    /// The camera failed to open, in the session's words.
    case cameraFailed(String)
    /// A camera key pressed in a picker that shows no camera.
    case noCameraCell
    /// A video that ended by itself (at its longest length) could not be finished, and why.
    case videoFailed(String)

    /// Words that name no program's controls.
    public static func plainWords(_ problem: PickerProblem) -> String {
        switch problem {
        case .unreadableFolder(let folder, let reason): "The library folder \(folder) \(reason)."
        case .noIndex: "The library has no index yet, so there are no photos or videos to show."
        case .cameraFailed(let message): "The camera cannot be opened: \(message)."
        case .noCameraCell: "this picker has no camera"
        case .videoFailed(let message): "The video could not be finished: \(message)."
        }
    }
}
