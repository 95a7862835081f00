import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit
import GstCore

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List cameras: path, name, formats and sizes, and whether you can open them.")

    @OptionGroup var out: OutputOptions

    func run() async throws {
        let events = Events(json: out.json, command: "devices")
        try await reporting(events) {
            let devices: [DeviceInfo]
            do {
                devices = try await DeviceMonitor.devices(classes: "Video/Source")
            } catch {
                throw GpickError(.device, "cannot list devices: \(error)")
            }
            var rows: [[String: Any]] = []
            for d in devices {
                let path = d.path ?? ""
                let accessible = !path.isEmpty && access(path, R_OK | W_OK) == 0
                var fix: String?
                if !path.isEmpty && !accessible {
                    fix = "add your user to the video group: sudo usermod -aG video $USER, then log in again"
                }
                rows.append(["path": path, "name": d.name, "class": d.deviceClass, "formats": summarise(d.caps),
                             "accessible": accessible, "fix": fix as Any])
            }
            if out.json {
                for r in rows { events.emit("device", r.filter { !($0.value is Optional<String>) || ($0.value as? String) != nil }) }
                events.finished(["devices": rows.count])
                return
            }
            if rows.isEmpty {
                print("no cameras found (the test source is always available: --source test)")
                return
            }
            for r in rows {
                let ok = (r["accessible"] as? Bool) == true ? "ok" : "NO ACCESS"
                print("\(r["path"] as? String ?? "?")  \(r["name"] as? String ?? "")  [\(ok)]")
                for f in r["formats"] as? [String] ?? [] { print("    \(f)") }
                if let fix = r["fix"] as? String { print("    permission denied: \(fix)") }
            }
        }
    }

    /// "YUY2 640x480 @30/1" lines from caps structures.
    private func summarise(_ caps: [String]) -> [String] {
        var out: [String] = []
        for c in caps {
            let media = c.split(separator: ",").first.map(String.init) ?? c
            let fmt = match(c, #"format=\(string\)([A-Za-z0-9_]+)"#) ?? (media == "image/jpeg" ? "MJPG" : media)
            let w = match(c, #"width=\(int\)(\d+)"#) ?? "?"
            let h = match(c, #"height=\(int\)(\d+)"#) ?? "?"
            let r = match(c, #"framerate=\(fraction\)([\d/]+)"#) ?? match(c, #"framerate=\{ ?\(fraction\)([\d/]+)"#) ?? "?"
            let line = "\(fmt) \(w)x\(h) @\(r)"
            if !out.contains(line) { out.append(line) }
        }
        return out
    }

    private func match(_ s: String, _ pattern: String) -> String? {
        guard let re = try? Regex(pattern), let m = s.firstMatch(of: re), m.output.count > 1,
              let group = m.output[1].substring else { return nil }
        return String(group)
    }
}
