import GpickBase

/// What happens in a running picker (`Picker.run()`).
public enum PickerEvent: Sendable {
    /// The page is being served at this URL (with its token): open it. No URL: the picker is
    /// drawn in the terminal.
    case ready(url: String?)
    /// The terminal picker's first whole grid is on screen: every cell in view drawn, pictures
    /// included (`cells` of them).
    case shown(cells: Int)
    /// The user confirmed these items, in the order chosen. The picker has ended.
    case picked([PickerItem])
    /// A photo or video taken in the camera cell; it is at the head of the grid, selected.
    case captured(PickerItem)
    /// The user selected an item (space, a click, a capture), or took it out of the selection:
    /// an app can follow the selection as it is made, in order.
    case selected(PickerItem)
    case deselected(PickerItem)
    /// Nobody looks at the camera cell (scrolled away, the page hidden or left, the terminal
    /// unfocused): the camera is stopped and the cell shows its blurred last frame. Then seen again.
    case cameraSuspended
    case cameraResumed
    /// `auto` found no camera when the picker started, and one has been plugged in since: the
    /// camera cell is in the grid now, and the camera starting.
    case cameraArrived
    /// The user chose an action item. The picker has ended.
    case action(String)
    /// The user cancelled (Esc, q, or closed the page). The picker has ended.
    case cancelled
    /// Something the picker works around (the camera failed, a root is unreadable): shown in
    /// the page as an overlay, and reported here.
    case problem(String)
    /// The picker could not go on. It has ended.
    case failed(GpickError)

    /// Whether this event ends the picker.
    public var isFinal: Bool {
        switch self {
        case .picked, .action, .cancelled, .failed: true
        case .ready, .shown, .captured, .selected, .deselected, .cameraSuspended, .cameraResumed, .cameraArrived, .problem: false
        }
    }
}

/// How a take-or-pick ended.
public enum PickResult: Sendable {
    case picked([PickerItem])
    case action(String)
    case cancelled
}
