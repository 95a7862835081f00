import GpickBase

/// `NAME=VALUE` settings of a camera's controls (`--control exposure-time=100`), checked against
/// the controls the camera has before anything is set. NAME is gpick's name for a common control
/// (`ControlNames`) or the kernel's (`exposure_time_absolute`); VALUE a number, `on`/`off`, a
/// menu entry by number or name, or a word of the common control (`auto`, `manual`, `50`).
public struct ControlSetting: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `NAME=VALUE`; the error says what is wrong in the value's own terms (the CLI adds the flag).
    public init(parsing text: String) throws(GpickError) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].trimmed().isEmpty, !parts[1].trimmed().isEmpty else {
            throw GpickError(.usage, "control \"\(text)\": give NAME=VALUE, such as exposure-time=200 or focus-mode=auto")
        }
        self.init(name: parts[0].trimmed().lowercased(), value: parts[1].trimmed())
    }

    public var description: String { "\(name)=\(value)" }
}

/// A setting resolved against the camera: the kernel's control and the number to set.
public struct ResolvedControl: Sendable, Equatable {
    public var control: CameraControl
    public var value: Int64
    /// The name it was asked by (gpick's or the kernel's); for a mode set on the way, gpick's.
    public var asked: String
}

public enum ControlResolver {
    /// The settings, checked against `controls`, as they are to be set: automatic modes first,
    /// and turned to manual for a value that needs it (`exposure-time` alone also sets
    /// `exposure-mode` to manual, as AVFoundation requires the custom mode for a duration).
    /// `camera` names the camera in errors.
    public static func resolve(_ settings: [ControlSetting], against controls: [CameraControl], camera: String) throws(GpickError) -> [ResolvedControl] {
        var out: [ResolvedControl] = []
        var asked = Set<String>()
        for s in settings {
            let (control, common) = try find(s.name, in: controls, camera: camera)
            guard !control.isReadOnly else { throw GpickError(.usage, "\(s.name) of camera \(camera) cannot be set (\(control.flags.joined(separator: ", ")))") }
            let value = try number(s.value, for: control, common: common, asked: s.name, camera: camera)
            asked.insert(control.name)
            out.removeAll { $0.control.name == control.name }
            out.append(ResolvedControl(control: control, value: value, asked: s.name))
        }
        // The manual modes the values need, unless given.
        var modes: [ResolvedControl] = []
        for r in out {
            guard let mode = ControlNames.common(forKernel: r.control.name)?.mode,
                  let modeCommon = ControlNames.common(named: mode.name),
                  let modeControl = controls.first(where: { modeCommon.kernel.contains($0.name) }),
                  !asked.contains(modeControl.name), !modes.contains(where: { $0.control.name == modeControl.name }),
                  let manual = try? number(mode.manual, for: modeControl, common: modeCommon, asked: mode.name, camera: camera) else { continue }
            modes.append(ResolvedControl(control: modeControl, value: manual, asked: mode.name))
        }
        let all = modes + out
        // Automatic modes first: a value set while its automatic mode is on has no effect.
        let isMode = { (r: ResolvedControl) in ControlNames.common(forKernel: r.control.name).map { $0.name.hasSuffix("-mode") } ?? false }
        return all.filter(isMode) + all.filter { !isMode($0) }
    }

    static func find(_ name: String, in controls: [CameraControl], camera: String) throws(GpickError) -> (CameraControl, ControlNames.Common?) {
        if let common = ControlNames.common(named: name) {
            if let c = controls.first(where: { common.kernel.contains($0.name) }) { return (c, common) }
            throw GpickError(.usage, "camera \(camera) has no \(name) control; it has: \(names(controls))")
        }
        let kernel = name.replacing("-", with: "_")
        if let c = controls.first(where: { $0.name == kernel }) { return (c, ControlNames.common(forKernel: c.name)) }
        let all = controls.map { ControlNames.common(forKernel: $0.name)?.name ?? $0.name }
        let hint = Suggest.closest(to: name, in: all).map { " (did you mean \($0)?)" } ?? ""
        throw GpickError(.usage, "camera \(camera) has no control \"\(name)\"\(hint); it has: \(names(controls))")
    }

    /// The controls by gpick's names where they have one, else the kernel's.
    public static func names(_ controls: [CameraControl]) -> String {
        controls.map { ControlNames.common(forKernel: $0.name)?.name ?? $0.name }.joined(separator: ", ")
    }

    static func number(_ text: String, for c: CameraControl, common: ControlNames.Common?, asked: String, camera: String) throws(GpickError) -> Int64 {
        let word = text.lowercased()
        var candidates: [Int64] = []
        if let values = common?.words[word] {
            candidates = values
        } else if c.kind == .bool, let b = ["on": 1, "true": 1, "yes": 1, "off": 0, "false": 0, "no": 0][word] {
            candidates = [Int64(b)]
        } else if let n = Int64(text) {
            candidates = [n]
        } else if let item = c.menu.first(where: { $0.name.lowercased() == word || $0.name.lowercased().hasPrefix(word + " ") }) {
            candidates = [item.index]
        }
        guard !candidates.isEmpty else {
            throw GpickError(.usage, "\(asked) \"\(text)\" is not a value camera \(camera) takes: \(choices(c, common))")
        }
        for v in candidates where allowed(v, c) { return v }
        throw GpickError(.usage, "\(asked) \(text) is outside what camera \(camera) takes: \(choices(c, common))")
    }

    static func allowed(_ v: Int64, _ c: CameraControl) -> Bool {
        if !c.menu.isEmpty, c.kind == .menu || c.kind == .intmenu { return c.menu.contains { $0.index == v } }
        if let lo = c.minimum, v < lo { return false }
        if let hi = c.maximum, v > hi { return false }
        if let lo = c.minimum, let step = c.step, step > 1, (v - lo) % step != 0 { return false }
        return true
    }

    /// What a control takes, in gpick's words where it has them.
    static func choices(_ c: CameraControl, _ common: ControlNames.Common?) -> String {
        if let common, !common.words.isEmpty {
            let words = common.words.filter { $0.value.contains { allowed($0, c) } }.keys.sorted()
            if !words.isEmpty { return words.joined(separator: ", ") }
        }
        return c.rangeText
    }
}
