import GpickBase
import GpickCLI
import GpickKit

/// `gpick devices --controls FILE [--control NAME=VALUE …]`: a camera's controls from a pasted
/// `v4l2-ctl` listing, by gpick's names, and what the --control values would set, checked as a
/// capture command checks them against the camera itself.
extension Devices {
    static func answer(controls path: String, settings: [String], events: Events) throws(GpickError) {
        let listing = try V4L2ControlListing.read(path: path)
        let device = ListedControlDevice(camera: path == "-" ? "standard input" : path, controls: listing.controls)
        let asked = try settings.map { (text: String) throws(GpickError) in try ControlSetting(parsing: text) }
        let set = asked.isEmpty ? [] : try device.apply(asked)
        if events.json {
            events.emit("controls", [
                "controls": listing.controls.map { c -> JSONValue in
                    var f: JSONFields = ["control": c.name, "type": c.kind.rawValue, "flags": c.flags]
                    if let common = ControlNames.common(forKernel: c.name) { f["name"] = common.name }
                    for (k, v) in [("min", c.minimum), ("max", c.maximum), ("step", c.step), ("default", c.defaultValue), ("value", c.value)] {
                        if let v { f[k] = Int(v) }
                    }
                    if !c.menu.isEmpty { f["menu"] = c.menu.map { JSONValue(fields: ["index": Int($0.index), "name": $0.name]) } }
                    return JSONValue(fields: f)
                },
                "set": set.map { JSONValue(fields: ["name": $0.asked, "control": $0.control.name, "value": Int($0.value)]) },
            ])
            return
        }
        for c in listing.controls {
            let name = ControlNames.common(forKernel: c.name).map { "\($0.name) (\(c.name))" } ?? c.name
            let now = c.value.map { ", now \($0)" } ?? ""
            let flags = c.flags.isEmpty ? "" : " [\(c.flags.joined(separator: ", "))]"
            print("  \(name): \(c.rangeText)\(c.defaultValue.map { ", default \($0)" } ?? "")\(now)\(flags)")
        }
        for r in set { print("would set \(r.control.name) = \(r.value) (\(r.asked))") }
    }
}
