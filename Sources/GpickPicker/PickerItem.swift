import Foundation
import GpickBase
import GpickLibrary

/// One cell of the grid, and what the picker hands back for it: a library asset, or a capture
/// made in the picker (which is at the head of the grid until the picker ends).
public struct PickerItem: Sendable, Equatable {
    /// "a12" for asset 12, "c3" for the third capture: the only way a client names an item.
    public var id: String
    public var path: String
    public var kind: Asset.Kind
    public var subtypes: [String]
    public var size: Int64
    public var width: Int?
    public var height: Int?
    public var duration: Double?
    /// An Apple pair's movie.
    public var pairedMovie: String?
    /// The RAW file of a RAW+JPEG pair (this item is its JPEG).
    public var pairedRaw: String?
    public var burstCount: Int
    public var mimeType: String
    /// The asset in the library (a library asset, or a capture saved to it).
    public var assetID: Int64?
    /// When it was taken, Unix seconds: the page says the date in the cell's label.
    public var takenAt: Int64?

    public init(_ listed: ListedAsset) {
        let a = listed.asset
        id = "a\(a.id ?? 0)"
        path = a.path
        kind = a.kind
        subtypes = a.subtypes
        size = a.size
        width = a.displaySize?.width
        height = a.displaySize?.height
        duration = a.duration
        pairedMovie = a.pairedMovie
        pairedRaw = a.pairedRaw
        burstCount = listed.burstCount
        mimeType = a.mimeType
        assetID = a.id
        takenAt = a.takenAt
    }

    public init(capture number: Int, path: String, kind: Asset.Kind, mimeType: String, size: Int64, width: Int?, height: Int?,
                duration: Double?, subtypes: [String] = [], pairedMovie: String? = nil, assetID: Int64? = nil) {
        id = "c\(number)"
        self.path = path
        self.kind = kind
        self.subtypes = subtypes
        self.size = size
        self.width = width
        self.height = height
        self.duration = duration
        self.pairedMovie = pairedMovie
        burstCount = 0
        self.mimeType = mimeType
        self.assetID = assetID
        takenAt = Int64(time(nil))
    }

    /// The badges a cell shows: LIVE, ▶ 0:03, ×N, PANO.
    public var badges: [String] {
        var out: [String] = []
        if subtypes.contains("live") { out.append("LIVE") }
        if kind == .video, let duration { out.append("▶ " + clockText(seconds: duration)) }
        if burstCount > 1 { out.append("×\(burstCount)") }
        if subtypes.contains("panorama") { out.append("PANO") }
        return out
    }

    /// What `--json` prints and `PickerEvent.picked` carries: path, kind, subtypes, size,
    /// duration, and the paired movie of an Apple pair.
    public var record: JSONFields {
        var f: JSONFields = ["path": path, "kind": kind.rawValue, "subtypes": subtypes, "size": size]
        if let width, let height { f["width"] = width; f["height"] = height }
        if let duration { f["duration"] = (duration * 1000).rounded() / 1000 }
        if let pairedMovie { f["paired-movie"] = pairedMovie }
        if let pairedRaw { f["paired-raw"] = pairedRaw }
        if let assetID { f["asset"] = assetID }
        if burstCount > 1 { f["burst-count"] = burstCount }
        return f
    }

    /// What the page gets of this item.
    var cell: PickerPageJSON.Cell {
        PickerPageJSON.Cell(id: id, kind: kind.rawValue, badges: badges, name: path.split(separator: "/").last.map(String.init) ?? path,
                            width: width != nil && height != nil ? width : nil, height: width != nil && height != nil ? height : nil,
                            taken: takenAt)
    }

    var cellJSON: String { cell.json }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

}

extension PickerItem {
    /// A reader's error as a cell shows it, in the page and the terminal: its last clause
    /// ("cannot read PATH: the file is truncated or damaged" is "the file is truncated or damaged").
    static func shortReason(_ message: String) -> String {
        message.split(separator: ": ").last.map(String.init) ?? message
    }
}
