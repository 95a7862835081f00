import NIOHTTP1

/// One HTTP/1.x request as gpick's local web server reads it: the request line, the headers
/// (names lowercased) and a body of at most `maxBody` bytes. Every response closes the
/// connection, so one request is all a connection carries.
public struct WebRequest: Sendable, Equatable {
    public var method: String
    /// The path without its query string, as sent (not percent-decoded: routes are ASCII).
    public var path: String
    /// The query's parameters, percent-decoded; a repeated name keeps its last value.
    public var query: [String: String]
    /// Header values by lowercased name; repeated headers are joined with ", " (cookies with "; ").
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The request's cookies by name.
    public var cookies: [String: String] {
        var out: [String: String] = [:]
        for pair in (headers["cookie"] ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            out[parts[0].trimmingSpaces] = parts[1].trimmingSpaces
        }
        return out
    }

    /// A request as swift-nio's HTTP/1 decoder read its head: header names lowercased,
    /// repeated headers joined, the target split into path and query.
    init(_ head: HTTPRequestHead) {
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let key = name.lowercased()
            let v = value.trimmingSpaces
            if let old = headers[key] {
                headers[key] = old + (key == "cookie" ? "; " : ", ") + v
            } else {
                headers[key] = v
            }
        }
        let split = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        self.init(method: head.method.rawValue, path: String(split.first ?? ""),
                  query: split.count > 1 ? Self.queryItems(split[1]) : [:], headers: headers)
    }

    /// `a=1&b=x%20y` → ["a": "1", "b": "x y"] (form encoding: "+" is a space).
    static func queryItems(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(kv[0]) else { continue }
            out[name] = kv.count > 1 ? percentDecoded(kv[1]) ?? "" : ""
        }
        return out
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var i = text.utf8.startIndex
        let utf8 = text.utf8
        while i < utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: "%") {
                let h = utf8.index(after: i)
                guard h < utf8.endIndex, utf8.index(after: h) < utf8.endIndex,
                      let hi = hexValue(utf8[h]), let lo = hexValue(utf8[utf8.index(after: h)]) else { return nil }
                bytes.append(hi << 4 | lo)
                i = utf8.index(h, offsetBy: 2)
                continue
            }
            bytes.append(b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            i = utf8.index(after: i)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
