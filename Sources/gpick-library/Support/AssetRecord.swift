import Foundation
import GpickCLI
import GpickBase
import GpickLibrary

/// How an asset is printed: a JSON record (list, and the picker's results), or one line.
enum AssetRecord {
    static func fields(_ item: ListedAsset) -> JSONFields {
        let a = item.asset
        var f: JSONFields = [
            "id": a.id ?? 0, "path": a.path, "kind": a.kind.rawValue, "subtypes": a.subtypes,
            "mime-type": a.mimeType, "size": a.size, "taken": iso(a.takenAt), "added": iso(a.addedAt),
        ]
        if let d = a.displaySize { f["width"] = d.width; f["height"] = d.height }
        if let o = a.orientation { f["orientation"] = o }
        if let d = a.duration { f["duration"] = (d * 1000).rounded() / 1000 }
        if let m = a.pairedMovie { f["paired-movie"] = m }
        if let r = a.pairedRaw { f["paired-raw"] = r }
        if let k = a.motionKind, let o = a.motionVideoOffset, let l = a.motionVideoLength {
            f["motion-photo"] = JSONValue(fields: ["kind": k, "video-offset": o, "video-length": l])
        }
        if a.burst { f["burst"] = JSONValue(fields: ["id": a.burstKey ?? "", "count": item.burstCount]) }
        if let why = a.unreadable { f["unreadable"] = why }
        return f
    }

    /// `ID  KIND[,SUBTYPES]  WxH  BADGE  TAKEN  PATH`, tab-separated for cut and awk.
    static func line(_ item: ListedAsset) -> String {
        let a = item.asset
        let kind = ([a.kind.rawValue] + a.subtypes).joined(separator: ",")
        let size = a.displaySize.map { "\($0.width)x\($0.height)" } ?? "-"
        var badge = "-"
        if let d = a.duration { badge = "▶ " + clockText(seconds: d) }
        if a.burst { badge = "×\(item.burstCount)" }
        if let why = a.unreadable { badge = "unreadable: " + why }
        return [String(a.id ?? 0), kind, size, badge, iso(a.takenAt), a.path].joined(separator: "\t")
    }

    /// Unix seconds as ISO 8601, in the local time zone (2024-05-03T14:02:11+02:00).
    static func iso(_ unix: Int64) -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone.current
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))
    }
}
