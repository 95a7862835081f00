import FoundationEssentials
import GpickBase
#if canImport(Glibc)
import Glibc
#endif

/// A moment as people write it when they ask what a camera saw: `14:05`, `14:05:30` (the last
/// such time: today, or yesterday when today's is still to come), `2026-11-29 14:05[:30]` (the
/// local time zone, through libc's, as `date` reads it), or ISO 8601 with its zone
/// (`2026-11-29T13:05:00Z`).
public enum MomentText {
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        let t = text.trimmed()
        if t.hasSuffix("Z") || t.dropFirst(10).contains("+") || t.dropFirst(10).contains(where: { $0 == "-" }) {
            return (try? Date(t, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
                ?? (try? Date(t, strategy: Date.ISO8601FormatStyle()))
        }
        let parts = t.split(whereSeparator: { $0 == " " || $0 == "T" })
        switch parts.count {
        case 1:
            guard let clock = clock(parts[0]) else { return nil }
            var today = localFields(now)
            (today.tm_hour, today.tm_min, today.tm_sec) = (clock.h, clock.m, Int32(clock.s))
            guard var moment = make(&today, fraction: clock.s - Double(Int32(clock.s))) else { return nil }
            if moment > now.addingTimeInterval(1) {
                var yesterday = localFields(now)
                (yesterday.tm_mday, yesterday.tm_hour, yesterday.tm_min, yesterday.tm_sec) = (yesterday.tm_mday - 1, clock.h, clock.m, Int32(clock.s))
                guard let earlier = make(&yesterday, fraction: clock.s - Double(Int32(clock.s))) else { return nil }
                moment = earlier
            }
            return moment
        case 2:
            let ymd = parts[0].split(separator: "-")
            guard ymd.count == 3, let y = Int32(ymd[0]), let mo = Int32(ymd[1]), let d = Int32(ymd[2]),
                  (1...12).contains(mo), (1...31).contains(d), let clock = clock(parts[1]) else { return nil }
            var fields = tm()
            (fields.tm_year, fields.tm_mon, fields.tm_mday) = (y - 1900, mo - 1, d)
            (fields.tm_hour, fields.tm_min, fields.tm_sec) = (clock.h, clock.m, Int32(clock.s))
            return make(&fields, fraction: clock.s - Double(Int32(clock.s)))
        default:
            return nil
        }
    }

    /// The moment in local time, as `HH:MM:SS` when it is today, else with its date.
    public static func local(_ date: Date, now: Date = Date()) -> String {
        let f = localFields(date), today = localFields(now)
        let clock = cFormat("%02d:%02d:%02d", f.tm_hour, f.tm_min, f.tm_sec)
        if f.tm_year == today.tm_year && f.tm_yday == today.tm_yday { return clock }
        return cFormat("%04d-%02d-%02d ", f.tm_year + 1900, f.tm_mon + 1, f.tm_mday) + clock
    }

    /// HH:MM or HH:MM:SS(.fff).
    private static func clock(_ text: Substring) -> (h: Int32, m: Int32, s: Double)? {
        let f = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(f.count), let h = Int32(f[0]), let m = Int32(f[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        let s = f.count == 3 ? Double(f[2]) : 0
        guard let s, s >= 0, s < 61 else { return nil }
        return (h, m, s)
    }

    private static func localFields(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        localtime_r(&seconds, &fields)
        return fields
    }

    /// mktime, with the daylight-saving flag left to it; nil for a time it cannot make.
    private static func make(_ fields: inout tm, fraction: Double) -> Date? {
        fields.tm_isdst = -1
        let t = mktime(&fields)
        guard t != -1 else { return nil }
        return Date(timeIntervalSince1970: Double(t) + fraction)
    }
}
