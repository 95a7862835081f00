#if canImport(Glibc)
import Glibc
#endif

/// The request line of an HTTP/1.x request: all the preview server needs (it ignores headers and
/// bodies, and answers every request with `Connection: close`).
struct HTTPRequest: Equatable {
    var method: String
    /// The path without its query string (browsers add `?t=…` to defeat caches).
    var path: String

    /// Why a request could not be read: the server answers these with a status, or just hangs up.
    enum Failure: Error, Equatable {
        case closed              // EOF, timeout or reset before a full head: nobody to answer
        case malformed           // 400
        case tooLarge            // 431
    }

    /// Largest request head accepted; a browser's GET is well under 2 KiB.
    static let maxHead = 8192

    /// Parses the head (request line and headers, up to the blank line).
    static func parse(_ head: [UInt8]) -> HTTPRequest? {
        let line = head.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3,
              let method = String(validating: parts[0], as: UTF8.self),
              let target = String(validating: parts[1], as: UTF8.self),
              let version = String(validating: parts[2], as: UTF8.self),
              !method.isEmpty, method.allSatisfy({ $0.isASCII && $0.isUppercase }),
              target.hasPrefix("/"), version.hasPrefix("HTTP/1.")
        else { return nil }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return HTTPRequest(method: method, path: String(path))
    }

    /// Reads one request head from a connected socket (blocking; the socket's receive timeout
    /// bounds how long a silent client can hold its thread).
    static func read(from fd: Int32) -> Result<HTTPRequest, Failure> {
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return .failure(.closed) }
            // Resume the terminator search a little before the new bytes: it may straddle reads.
            let from = max(0, head.count - 3)
            head.append(contentsOf: chunk[0..<n])
            if let end = endOfHead(head, from: from) {
                guard let request = parse(Array(head[0..<end])) else { return .failure(.malformed) }
                return .success(request)
            }
            if head.count > maxHead { return .failure(.tooLarge) }
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
