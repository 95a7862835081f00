import GpickBase

/// Where a publication sends: `srt://HOST:PORT[?QUERY]`, `rtmp://HOST[:PORT]/APP/KEY`,
/// `rtmps://…` or `rtsp://[USER:PASSWORD@]HOST[:PORT]/PATH` (RTSP's RECORD, as MediaMTX takes
/// it), checked before anything starts. Secrets (an SRT passphrase, a stream key, an RTSP
/// password) never appear in what it prints.
public struct PublishTarget: Sendable, Equatable, CustomStringConvertible {
    public enum Scheme: String, Sendable, CaseIterable {
        case srt, rtmp, rtmps, rtsp
    }

    public let scheme: Scheme
    /// The URL exactly as given: what the sender is told.
    public let url: String
    public let host: String
    public let port: Int?

    /// The pipeline file that sends with this scheme.
    public var pipelineName: String {
        switch scheme {
        case .srt: "publish-srt"
        case .rtmp, .rtmps: "publish-rtmp"
        case .rtsp: "publish-rtsp"
        }
    }

    /// The URL to print: a query's values and an RTMP stream key (the last part of the path, a
    /// secret on public services) are hidden.
    public var description: String {
        let q = url.firstIndex(of: "?") ?? url.endIndex
        var shown = String(url[..<q])
        if scheme == .rtsp, let sep = shown.firstRange(of: "://"), let at = shown[sep.upperBound...].firstIndex(of: "@") {
            // The user stays; the password goes.
            let user = shown[sep.upperBound..<at].prefix { $0 != ":" }
            shown = shown[..<sep.upperBound] + user + (shown[sep.upperBound..<at].contains(":") ? ":…" : "") + shown[at...]
        } else if scheme == .rtmp || scheme == .rtmps, let slash = shown.lastIndex(of: "/") {
            shown = shown[...slash] + "…"
        }
        guard q < url.endIndex else { return shown }
        let query = url[url.index(after: q)...].split(separator: "&").map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            return pair[..<eq] + "=…"
        }
        return shown + "?" + query.joined(separator: "&")
    }

    public init(_ url: String) throws(GpickError) {
        func bad(_ why: String) -> GpickError { GpickError(.usage, "publish URL \"\(url)\": \(why)") }
        guard url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f }) else {
            throw bad("it holds spaces or control characters")
        }
        guard let sep = url.firstRange(of: "://") else {
            throw bad("it needs a scheme: srt://HOST:PORT, rtmp://HOST/APP/KEY, rtmps://HOST/APP/KEY or rtsp://HOST/PATH")
        }
        let name = url[..<sep.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: name) else {
            throw bad("gpick publishes to srt://, rtmp://, rtmps:// and rtsp://, not \(name)://")
        }
        let rest = url[sep.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            // RTSP servers (MediaMTX) take a user and password there; SRT and RTMP do not.
            guard scheme == .rtsp else { throw bad("credentials belong in the query or the stream key, not before the host") }
            guard at > authority.startIndex else { throw bad("it names no user before @") }
            authority = authority[authority.index(after: at)...]
        }
        var host = Substring(authority), port: Int? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("an IPv6 address needs its closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("after ] comes :PORT") }
                port = Int(after.dropFirst())
                guard port != nil else { throw bad("port \"\(after.dropFirst())\" is not a number") }
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            let text = authority[authority.index(after: colon)...]
            guard let p = Int(text) else { throw bad("port \"\(text)\" is not a number") }
            port = p
        }
        guard !host.isEmpty else { throw bad("it names no host") }
        if let port, !(1...65535).contains(port) { throw bad("port \(port) must be 1…65535") }
        let path = rest[authorityEnd...].prefix { $0 != "?" }
        switch scheme {
        case .srt:
            guard port != nil else { throw bad("an SRT URL needs a port: srt://HOST:PORT") }
            guard path.isEmpty || path == "/" else { throw bad("an SRT URL has no path; a stream id goes in ?streamid=…") }
        case .rtmp, .rtmps:
            let parts = path.split(separator: "/")
            guard parts.count >= 2 else { throw bad("an RTMP URL names an application and a stream key: \(scheme.rawValue)://HOST/APP/KEY") }
        case .rtsp:
            guard !path.split(separator: "/").isEmpty else { throw bad("an RTSP URL names the stream's path: rtsp://HOST[:PORT]/PATH") }
        }
        self.scheme = scheme
        self.url = url
        self.host = String(host)
        self.port = port
    }
}
