/// Who may use gpick's local web server: a page on this machine that was given the URL gpick
/// printed, as Jupyter does it.
///
/// - The **Host header** must name the server itself (`127.0.0.1:PORT` or `localhost:PORT`):
///   a foreign name means a page whose DNS was rebound to 127.0.0.1.
/// - Every request carries the **token**: `?token=` in the printed URL, after that a cookie the
///   server sets (HttpOnly, SameSite=Strict, named for the port so two servers do not clash), or
///   the `X-Gpick-Token` header.
/// - A request that changes something (anything but GET and HEAD) must carry the header: a
///   cross-site form cannot set one, and the server answers no CORS preflight.
struct WebAccess: Sendable {
    let token: String
    let port: Int

    var cookieName: String { "gpick-token-\(port)" }
    static let headerName = "x-gpick-token"

    enum Verdict: Equatable {
        /// `setCookie`: the token came in the URL; the response hands it over as a cookie.
        case allowed(setCookie: Bool)
        case forbidden(String)
    }

    func check(_ request: WebRequest) -> Verdict {
        guard let host = request.header("host"), allowedHosts.contains(host.lowercased()) else {
            return .forbidden("this server answers only to 127.0.0.1:\(port) and localhost:\(port)\n")
        }
        let safe = request.method == "GET" || request.method == "HEAD"
        if let given = request.header(Self.headerName) {
            return Self.same(given, token) ? .allowed(setCookie: false) : .forbidden("wrong token\n")
        }
        guard safe else { return .forbidden("a change needs the X-Gpick-Token header\n") }
        if let given = request.query["token"] {
            return Self.same(given, token) ? .allowed(setCookie: true) : .forbidden("wrong token\n")
        }
        if let given = request.cookies[cookieName], Self.same(given, token) { return .allowed(setCookie: false) }
        return .forbidden("a token is required: open the URL gpick printed, with its ?token=\n")
    }

    var allowedHosts: Set<String> { ["127.0.0.1:\(port)", "localhost:\(port)"] }

    /// The Set-Cookie value that hands the token over.
    var cookie: String { "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" }

    /// 32 random bytes as hex, from the system's cryptographic generator (getrandom).
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var hex = ""
        for _ in 0..<4 {
            let word = generator.next()
            let text = String(word, radix: 16)
            hex += String(repeating: "0", count: 16 - text.count) + text
        }
        return hex
    }

    /// Compares without an early exit, so timing tells nothing about how much of a guess matched.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}
