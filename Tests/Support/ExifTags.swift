import Foundation

/// exiftool's reading of the EXIF every still gpick writes, for the tests that check it.
public enum ExifTags {
    /// The fields photo managers date and name a photo by, as exiftool prints them (-n).
    public static let dating = ["DateTimeOriginal", "SubSecTimeOriginal", "OffsetTimeOriginal", "Make", "Model", "Software", "Orientation"]

    public static func read(_ path: String) async throws -> [String: String] {
        let r = try await ExifTool.run(["-j", "-n"] + dating.map { "-" + $0 } + [path])
        let obj = (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
        return obj.filter { dating.contains($0.key) }.mapValues { "\($0)" }
    }

    /// What is wrong with a still's dating fields, none when it carries all of them, taken
    /// within `within` seconds of now by `model` (the test source unless told).
    public static func problems(_ path: String, model: String = "test source", within: Double = 300) async throws -> [String] {
        let t = try await read(path)
        var out: [String] = []
        for key in dating where t[key] == nil { out.append("\(path): no \(key)") }
        if t["Make"] != nil, t["Make"] != "gpick" { out.append("Make \(t["Make"]!)") }
        if t["Model"] != nil, t["Model"] != model { out.append("Model \(t["Model"]!)") }
        if t["Orientation"] != nil, t["Orientation"] != "1" { out.append("Orientation \(t["Orientation"]!)") }
        if let sw = t["Software"], !sw.hasPrefix("gpick ") { out.append("Software \(sw)") }
        if let date = t["DateTimeOriginal"], let offset = t["OffsetTimeOriginal"], let taken = seconds(date, offset) {
            if abs(taken - Date().timeIntervalSince1970) > within { out.append("taken \(date) \(offset), not now") }
        } else {
            out.append("cannot read the date \(t["DateTimeOriginal"] ?? "-") \(t["OffsetTimeOriginal"] ?? "-")")
        }
        return out
    }

    /// "2026:11:25 22:21:11" at "+01:00" → seconds since the epoch.
    public static func seconds(_ date: String, _ offset: String) -> Double? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy:MM:dd HH:mm:ssxxx"
        return f.date(from: date + offset)?.timeIntervalSince1970
    }
}
