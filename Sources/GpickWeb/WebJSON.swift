import FoundationEssentials

/// How the local pages' JSON is written: typed values through `JSONEncoder`, keys sorted (the
/// same state is the same bytes, which an event stream can compare).
public enum WebJSON {
    public static func bytes(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { [UInt8]($0) } ?? Array("{}".utf8)
    }

    /// `{"error": message}`: what a failed call answers, whichever page made it.
    public struct Failure: Encodable, Sendable {
        public var error: String
        public init(_ message: String) { error = message }
    }

    /// `{"ok": true}`.
    public struct Done: Encodable, Sendable {
        public var ok = true
        public init() {}
    }
}
