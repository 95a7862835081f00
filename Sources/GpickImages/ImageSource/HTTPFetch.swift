import CHTTPGet
import GpickBase

/// One GET through libcurl (redirects between http and https only, TLS verified, proxies from the
/// environment), on the calling thread. Blocking: run it off the pool.
///
/// Not GStreamer's souphttpsrc: with libsoup 3, GStreamer 1.22's element runs each session on a
/// thread of its own, and tearing sessions down crashed the process inside libsoup about once in
/// ten full test runs, even with one fetch at a time. A libcurl handle belongs to its call alone.
enum HTTPFetch {
    struct Response {
        var bytes: [UInt8]
        /// The whole body came, not only the first bytes asked for.
        var complete: Bool
    }

    /// What the body callback sees, on the fetching thread only.
    private final class Transfer {
        let limit: Int
        let enough: (@Sendable ([UInt8]) -> Bool)?
        let isWanted: () -> Bool
        var bytes: [UInt8] = []
        var satisfied = false
        var tooLarge = false

        init(limit: Int, enough: (@Sendable ([UInt8]) -> Bool)?, isWanted: @escaping () -> Bool) {
            self.limit = limit
            self.enough = enough
            self.isWanted = isWanted
        }
    }

    /// The body of `url`, at most `limit` bytes; with `enough`, it stops as soon as the bytes so
    /// far satisfy it (a header). Gives up when nothing arrives for `timeout` seconds. `isWanted`
    /// is asked every 20 ms or so: once false, the transfer stops and this throws `.interrupted`.
    @available(*, noasync, message: "it waits for the network: run it off the cooperative pool")
    static func get(_ url: String, limit: Int, timeout: Double, enough: (@Sendable ([UInt8]) -> Bool)? = nil,
                    isWanted: () -> Bool = { true }) throws(GpickError) -> Response {
        try withoutActuallyEscaping(isWanted) { isWanted throws(GpickError) in
            let transfer = Transfer(limit: limit, enough: enough, isWanted: isWanted)
            var result = gpick_http_result()
            let seconds = Int(max(1, timeout.rounded(.up)))
            withExtendedLifetime(transfer) {
                gpick_http_get(url, seconds, { context, bytes, count in
                    let t = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                    if t.bytes.count + count > t.limit { t.tooLarge = true; return 0 }
                    t.bytes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
                    if let enough = t.enough, enough(t.bytes) { t.satisfied = true; return 0 }
                    return 1
                }, { context in
                    Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().isWanted() ? 1 : 0
                }, Unmanaged.passUnretained(transfer).toOpaque(), &result)
            }
            return try response(url, result, transfer, timeout: seconds)
        }
    }

    /// The outcome worded in the user's terms: the URL first, then what happened to it.
    private static func response(_ url: String, _ result: gpick_http_result, _ transfer: Transfer,
                                 timeout: Int) throws(GpickError) -> Response {
        let detail = withUnsafeBytes(of: result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch result.outcome {
        case GPICK_HTTP_DONE:
            return Response(bytes: transfer.bytes, complete: true)
        case GPICK_HTTP_STOPPED where transfer.satisfied:
            return Response(bytes: transfer.bytes, complete: false)
        case GPICK_HTTP_STOPPED:
            let limit = transfer.limit
            throw GpickError(.input, "cannot fetch \(url): it is larger than \(limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes")")
        case GPICK_HTTP_CANCELLED:
            throw GpickError(.interrupted, "cancelled")
        case GPICK_HTTP_STATUS:
            let status = result.status
            throw GpickError(.input, "cannot fetch \(url): the server answered HTTP \(status)\(reason(status).map { " \($0)" } ?? "")")
        case GPICK_HTTP_UNREACHABLE:
            throw GpickError(.input, "cannot fetch \(url): the server cannot be reached", detail: detail)
        case GPICK_HTTP_TIMEOUT:
            let what = result.status == 0 ? "no answer" : "nothing more came"
            throw GpickError(.input, "cannot fetch \(url): \(what) within \(timeout) s", detail: detail)
        case GPICK_HTTP_TLS:
            throw GpickError(.input, "cannot fetch \(url): no trusted TLS connection can be made", detail: detail)
        case GPICK_HTTP_REDIRECTS:
            throw GpickError(.input, "cannot fetch \(url): too many redirects", detail: detail)
        case GPICK_HTTP_UNSUPPORTED:
            throw GpickError(.input, "cannot fetch \(url): it redirects to a URL that is not http(s)", detail: detail)
        case GPICK_HTTP_MALFORMED:
            throw GpickError(.input, "cannot fetch \(url): it is not a well-formed URL", detail: detail)
        case GPICK_HTTP_MISSING:
            throw GpickError(.plugin, "cannot fetch \(url): photos at URLs need libcurl, which is not installed (install libcurl4)")
        default:
            throw GpickError(.input, "cannot fetch \(url): \(detail)")
        }
    }

    static func reason(_ status: Int) -> String? {
        [400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 410: "Gone",
         429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"][status]
    }
}
