import CGStreamer
import Glibc
import GstCore

/// The rank gpick's own elements (gpickjpegdec, gpicky4mdec) are registered at: their usual one,
/// or the one GST_PLUGIN_FEATURE_RANK gives them ("gpickjpegdec:NONE,…"), as GStreamer gives it
/// to the features it loads. GStreamer reads that variable at its start-up only, before these
/// elements exist, so gpick reads it itself.
enum OwnElementRank {
    /// Registers the element `name` with its C shim's `register` (once per process; the shim
    /// keeps the first answer) at the rank asked for: whether it is there. GStreamer must be
    /// initialised first (pad templates are parsed as an element is registered): false until it is.
    static func register(_ name: String, otherwise rank: GstRank, with register: (UInt32) -> Int32) -> Bool {
        guard Gst.isInitialized else { return false }
        return register(asked(for: name, otherwise: rank)) != 0
    }

    static func asked(for name: String, otherwise rank: GstRank,
                      variable: String? = getenv("GST_PLUGIN_FEATURE_RANK").map { String(cString: $0) }) -> UInt32 {
        var chosen = rank.rawValue
        for item in (variable ?? "").split(separator: ",") {
            let pair = item.split(separator: ":", maxSplits: 1).map { $0.filter { $0 != " " } }
            guard pair.count == 2, pair[0] == name else { continue }
            switch pair[1].uppercased() {
            case "NONE": chosen = GST_RANK_NONE.rawValue
            case "MARGINAL": chosen = GST_RANK_MARGINAL.rawValue
            case "SECONDARY": chosen = GST_RANK_SECONDARY.rawValue
            case "PRIMARY": chosen = GST_RANK_PRIMARY.rawValue
            case "MAX": chosen = UInt32(Int32.max)
            default: if let n = UInt32(pair[1]) { chosen = n }
            }
        }
        return chosen
    }
}
