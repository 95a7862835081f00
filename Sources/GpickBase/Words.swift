import FoundationEssentials

/// Durations in pipeline files, scripts and options: "1.5s", "500ms", "2m", "1h", "7d", or plain seconds.
public enum DurationText {
    public static func parse(_ text: String) -> Double? {
        let t = text.trimmed(newlines: false).lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, scale) in units where t.hasSuffix(suffix) {
            guard let v = Double(t.dropLast(suffix.count)), v.isFinite, v >= 0 else { return nil }
            return v * scale
        }
        guard let v = Double(t), v.isFinite, v >= 0 else { return nil }
        return v
    }

    public static func format(seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }
}

/// Sizes as people write them: "20G", "500M", "800K", "1.5GiB", "300MB", or plain bytes; in
/// powers of 1024, as `df -h` and `du -h` count.
public enum ByteSize {
    public static func parse(_ text: String) -> Int64? {
        var t = text.trimmed(newlines: false).uppercased()
        if t.hasSuffix("IB") { t.removeLast(2) } else if t.hasSuffix("B") { t.removeLast() }
        let scales: [Character: Double] = ["K": 1024, "M": 1_048_576, "G": 1_073_741_824, "T": 1_099_511_627_776]
        var scale = 1.0
        if let last = t.last, let s = scales[last] { scale = s; t.removeLast() }
        guard let v = Double(t), v.isFinite, v >= 0, v * scale < 9e18 else { return nil }
        return Int64(v * scale)
    }

    /// "812 B", "96.3 KiB", "12.5 MiB", "3.2 GiB".
    public static func format(_ n: Int64) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1024 * 1024 { return cFormat("%.1f KiB", Double(n) / 1024) }
        if n < 1024 * 1024 * 1024 { return cFormat("%.1f MiB", Double(n) / 1048576) }
        return cFormat("%.1f GiB", Double(n) / 1073741824)
    }
}

/// "Did you mean" by edit distance.
public enum Suggest {
    public static func closest(to word: String, in candidates: [String]) -> String? {
        var best: (String, Int)?
        for c in candidates {
            let d = distance(word.lowercased(), c.lowercased())
            if d <= max(2, word.count / 3), best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
}
