import GpickBase

/// One of a camera's controls as V4L2 reports it (`v4l2-ctl --list-ctrls-menus` prints the same):
/// its name in the kernel's spelling (`exposure_time_absolute`), its kind, range, default, value,
/// flags and, for a menu, its entries.
public struct CameraControl: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case int, bool, menu, intmenu, int64, button, bitmask, string
    }

    public struct MenuItem: Sendable, Equatable {
        public var index: Int64
        public var name: String
        public init(index: Int64, name: String) {
            self.index = index
            self.name = name
        }
    }

    public var name: String
    public var id: UInt32?
    public var kind: Kind
    public var minimum: Int64?
    public var maximum: Int64?
    public var step: Int64?
    public var defaultValue: Int64?
    public var value: Int64?
    /// `inactive` (it has no effect now: an automatic mode is on), `read-only`, `disabled`…
    public var flags: [String]
    public var menu: [MenuItem]

    public init(name: String, id: UInt32? = nil, kind: Kind, minimum: Int64? = nil, maximum: Int64? = nil, step: Int64? = nil,
                defaultValue: Int64? = nil, value: Int64? = nil, flags: [String] = [], menu: [MenuItem] = []) {
        self.name = name
        self.id = id
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.value = value
        self.flags = flags
        self.menu = menu
    }

    public var isReadOnly: Bool { flags.contains("read-only") || flags.contains("disabled") }

    /// The range as people read it: `3…2047 (step 1)`, `on or off`, or the menu's entries.
    public var rangeText: String {
        switch kind {
        case .bool: return "on or off"
        case .menu where !menu.isEmpty, .intmenu where !menu.isEmpty: return menu.map { "\($0.index) (\($0.name))" }.joined(separator: ", ")
        default:
            guard let lo = minimum, let hi = maximum else { return "any value" }
            return "\(lo)…\(hi)" + ((step ?? 1) > 1 ? " (step \(step!))" : "")
        }
    }

    /// The kernel's control name from its description ("Exposure Time, Absolute" →
    /// `exposure_time_absolute`), as v4l2-ctl and GStreamer's v4l2src spell it.
    public static func kernelName(_ description: String) -> String {
        var out = ""
        var gap = false
        for c in description.lowercased() {
            if c.isLetter || c.isNumber {
                if gap && !out.isEmpty { out.append("_") }
                out.append(c)
                gap = false
            } else {
                gap = true
            }
        }
        return out
    }
}

/// The controls a camera has in common, by the names gpick gives them (as AVFoundation names
/// exposure, focus and white balance), each standing for the kernel's names across versions:
/// Linux 5.x renamed several (`exposure_auto` → `auto_exposure`, `exposure_absolute` →
/// `exposure_time_absolute`, `focus_auto` → `focus_automatic_continuous`,
/// `white_balance_temperature_auto` → `white_balance_automatic`).
public enum ControlNames {
    public struct Common: Sendable {
        public let name: String
        public let kernel: [String]
        /// Words for values, for the mode controls (`auto`, `manual`) and anti-flicker: the
        /// values each may be, the first the camera has wins (UVC cameras' automatic exposure is
        /// 3, aperture priority; others' is 0).
        public let words: [String: [Int64]]
        /// The mode control an automatic setting lives in: setting `exposure-time` also sets
        /// `exposure-mode` to manual, unless that is given too.
        public let mode: (name: String, manual: String)?
    }

    public static let common: [Common] = [
        Common(name: "exposure-mode", kernel: ["auto_exposure", "exposure_auto"], words: ["manual": [1], "auto": [3, 0]], mode: nil),
        Common(name: "exposure-time", kernel: ["exposure_time_absolute", "exposure_absolute"], words: [:], mode: ("exposure-mode", "manual")),
        Common(name: "focus-mode", kernel: ["focus_automatic_continuous", "focus_auto"], words: ["manual": [0], "auto": [1]], mode: nil),
        Common(name: "focus", kernel: ["focus_absolute"], words: [:], mode: ("focus-mode", "manual")),
        Common(name: "white-balance-mode", kernel: ["white_balance_automatic", "white_balance_temperature_auto", "auto_white_balance"],
               words: ["manual": [0], "auto": [1]], mode: nil),
        Common(name: "white-balance", kernel: ["white_balance_temperature"], words: [:], mode: ("white-balance-mode", "manual")),
        Common(name: "gain", kernel: ["gain", "analogue_gain"], words: [:], mode: nil),
        Common(name: "zoom", kernel: ["zoom_absolute"], words: [:], mode: nil),
        Common(name: "pan", kernel: ["pan_absolute"], words: [:], mode: nil),
        Common(name: "tilt", kernel: ["tilt_absolute"], words: [:], mode: nil),
        Common(name: "brightness", kernel: ["brightness"], words: [:], mode: nil),
        Common(name: "contrast", kernel: ["contrast"], words: [:], mode: nil),
        Common(name: "saturation", kernel: ["saturation"], words: [:], mode: nil),
        Common(name: "sharpness", kernel: ["sharpness"], words: [:], mode: nil),
        Common(name: "backlight-compensation", kernel: ["backlight_compensation"], words: [:], mode: nil),
        Common(name: "power-line-frequency", kernel: ["power_line_frequency"], words: ["off": [0], "disabled": [0], "50": [1], "60": [2], "auto": [3]],
               mode: nil),
    ]

    /// gpick's name for a kernel name, when it has one.
    public static func common(forKernel name: String) -> Common? { common.first { $0.kernel.contains(name) } }

    public static func common(named name: String) -> Common? { common.first { $0.name == name } }
}
