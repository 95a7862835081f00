#if canImport(Glibc)
import Glibc
#endif

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

    /// Why a request could not be read: the server answers these with a status, or just hangs up.
    public enum Failure: Error, Equatable {
        case closed              // EOF, timeout or reset before a full request: nobody to answer
        case malformed           // 400
        case headTooLarge        // 431
        case bodyTooLarge        // 413
        case lengthRequired      // 411: a chunked body, which gpick's pages never send
    }

    /// Largest request head accepted; a browser's GET is well under 2 KiB.
    static let maxHead = 8192

    /// Parses the head (request line and headers, up to the blank line).
    static func parse(_ head: [UInt8]) -> WebRequest? {
        var lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        guard !lines.isEmpty else { return nil }
        let parts = lines.removeFirst().split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3,
              let method = String(validating: parts[0], as: UTF8.self),
              let target = String(validating: parts[1], as: UTF8.self),
              let version = String(validating: parts[2], as: UTF8.self),
              !method.isEmpty, method.allSatisfy({ $0.isASCII && $0.isUppercase }),
              target.hasPrefix("/"), version.hasPrefix("HTTP/1.")
        else { return nil }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                  let name = String(validating: line[line.startIndex..<colon], as: UTF8.self),
                  !name.isEmpty, !name.contains(" "),
                  let value = String(validating: line[(colon + 1)...], as: UTF8.self)
            else { return nil }
            let key = name.lowercased()
            let v = value.trimmingSpaces
            if let old = headers[key] {
                headers[key] = old + (key == "cookie" ? "; " : ", ") + v
            } else {
                headers[key] = v
            }
        }
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return WebRequest(method: method, path: String(split[0]),
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

    /// Reads one request from a connected socket (blocking; the socket's receive timeout bounds
    /// how long a silent client can hold its thread).
    static func read(from fd: Int32, maxBody: Int) -> Result<WebRequest, Failure> {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        func receive() -> Bool {
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                data.append(contentsOf: chunk[0..<n])
                return true
            }
        }
        var searched = 0
        while true {
            guard receive() else { return .failure(.closed) }
            // Resume the terminator search a little before the new bytes: it may straddle reads.
            if let end = endOfHead(data, from: max(0, searched - 3)) {
                guard end <= maxHead else { return .failure(.headTooLarge) }
                guard var request = parse(Array(data[0..<end])) else { return .failure(.malformed) }
                if request.headers["transfer-encoding"] != nil { return .failure(.lengthRequired) }
                let declared = request.headers["content-length"]
                guard let length = declared == nil ? 0 : Int(declared!), length >= 0 else { return .failure(.malformed) }
                guard length <= maxBody else { return .failure(.bodyTooLarge) }
                while data.count - end < length {
                    guard receive() else { return .failure(.closed) }
                }
                request.body = Array(data[end..<(end + length)])
                return .success(request)
            }
            searched = data.count
            if data.count > maxHead { return .failure(.headTooLarge) }
        }
    }

    /// Index just past the first "\r\n\r\n" (or a bare "\n\n", which lenient clients send).
    static func endOfHead(_ bytes: [UInt8], from start: Int = 0) -> Int? {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        var i = start
        while i < bytes.count {
            if bytes[i] == lf {
                if i + 1 < bytes.count, bytes[i + 1] == lf { return i + 2 }
                if i + 2 < bytes.count, bytes[i + 1] == cr, bytes[i + 2] == lf { return i + 3 }
            }
            i += 1
        }
        return nil
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
