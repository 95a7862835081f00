// What the small in-process benches (gpick-imagebench, gpick-avatarbench) share: their arguments,
// their clock arithmetic and the summary they print.
import Foundation

public struct BenchTool: Sendable {
    /// The bench's name, for its error lines.
    public let name: String

    public init(_ name: String) { self.name = name }

    /// One line on stderr naming the bench, and exit 1.
    public func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(name): \(message)\n".utf8))
        exit(1)
    }

    public static func milliseconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) * 1000 + Double(atto) / 1e15
    }

    /// Median, p90, minimum and maximum of times in milliseconds, as the report reads them.
    public static func summary(_ times: [Double]) -> [String: Double] {
        let sorted = times.sorted()
        return ["median_ms": sorted[sorted.count / 2], "min_ms": sorted.first ?? 0, "max_ms": sorted.last ?? 0,
                "p90_ms": sorted[min(sorted.count - 1, sorted.count * 9 / 10)]]
    }

    /// `--name N` (N > 0) taken out of `arguments`.
    public static func option(_ name: String, in arguments: inout [String]) -> Int? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 else { return nil }
        arguments.removeSubrange(i...(i + 1))
        return n
    }
}
