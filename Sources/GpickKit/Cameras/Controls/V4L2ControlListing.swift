import FoundationEssentials
import Glibc
import GpickBase

/// A camera's controls as `v4l2-ctl` prints them (`--list-ctrls`, `--list-ctrls-menus`, `-L`,
/// `--all`), the way users paste them: with or without the controls' hex ids, old or new kernel
/// names, menu entries or not, with or without a log's prefix on each line.
public struct V4L2ControlListing: Sendable {
    public var controls: [CameraControl] = []

    public init(parsing text: String) {
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = Substring(raw)
            if line.trimmed().hasPrefix("#") { continue }
            if let control = Self.control(line) {
                controls.append(control)
            } else if let item = Self.menuItem(line), var last = controls.popLast() {
                if last.kind == .menu || last.kind == .intmenu { last.menu.append(item) }
                controls.append(last)
            }
        }
    }

    /// `NAME [0xID] (KIND) : key=value …`, wherever a prefix put it.
    static func control(_ line: Substring) -> CameraControl? {
        guard let open = line.firstIndex(of: "("), let close = line[open...].firstIndex(of: ")"),
              let kind = CameraControl.Kind(rawValue: String(line[line.index(after: open)..<close])) else { return nil }
        let after = line[line.index(after: close)...].drop { $0 == " " || $0 == "\t" }
        guard after.first == ":" else { return nil }
        let before = line[..<open].split(separator: " ", omittingEmptySubsequences: true).map { $0.trimmed() }.filter { !$0.isEmpty }
        guard let last = before.last else { return nil }
        var id: UInt32? = nil
        var name = last
        if last.hasPrefix("0x"), let v = UInt32(last.dropFirst(2), radix: 16), before.count >= 2 {
            id = v
            name = before[before.count - 2]
        }
        // The name is the last word before the id: a prefix's words come before it.
        guard let n = name.split(separator: "\t").last, !n.isEmpty, n.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        var c = CameraControl(name: String(n), id: id, kind: kind)
        for pair in after.dropFirst().split(separator: " ") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            let v = Int64(kv[1])
            switch kv[0] {
            case "min": c.minimum = v
            case "max": c.maximum = v
            case "step": c.step = v
            case "default": c.defaultValue = v
            case "value": c.value = v
            case "flags": c.flags = kv[1].split(separator: ",").map(String.init)
            default: break
            }
        }
        if kind == .bool { c.minimum = c.minimum ?? 0; c.maximum = c.maximum ?? 1; c.step = c.step ?? 1 }
        return c
    }

    /// A menu entry: `N: Name` alone on its line (after any prefix; a log's timestamp has colons
    /// too, so the last `N:` that stands alone is the entry).
    static func menuItem(_ line: Substring) -> CameraControl.MenuItem? {
        var found: CameraControl.MenuItem? = nil
        var i = line.startIndex
        while let colon = line[i...].firstIndex(of: ":") {
            let head = line[..<colon]
            let digits = head.reversed().prefix { $0.isNumber || $0 == "-" }
            let beforeDigits = head.dropLast(digits.count)
            if !digits.isEmpty, beforeDigits.last.map({ $0 == " " || $0 == "\t" }) ?? true,
               let index = Int64(String(digits.reversed())) {
                // An entry's name holds no colon; a timestamp's rest does ("07:48] crowsnest: …").
                let name = line[line.index(after: colon)...].trimmed()
                if !name.isEmpty, !name.contains(":") { found = CameraControl.MenuItem(index: index, name: name) }
            }
            i = line.index(after: colon)
        }
        return found
    }
}

extension V4L2ControlListing {
    /// The listing in the file at `path` (`-`: standard input); one that holds no control is an
    /// error that says so.
    public static func read(path: String) throws(GpickError) -> V4L2ControlListing {
        let listing = V4L2ControlListing(parsing: try ListingText.read(path))
        guard !listing.controls.isEmpty else {
            throw GpickError(.input, "\(path == "-" ? "standard input" : path): no control list found (v4l2-ctl's list of controls, with their ranges)")
        }
        return listing
    }
}
