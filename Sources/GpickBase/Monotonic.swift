import Glibc

/// CLOCK_MONOTONIC in nanoseconds: the clock every process on the machine shares, so a time one
/// process logs (a stamp drawn, a page shown) can be compared with another's. It never steps
/// with the wall clock.
public enum Monotonic {
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Seconds since an earlier `nanoseconds()`.
    public static func seconds(since start: UInt64) -> Double {
        Double(nanoseconds() &- start) / 1e9
    }
}
