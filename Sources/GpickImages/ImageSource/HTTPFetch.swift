import GpickBase
import GpickKit
import GstCore
import FoundationEssentials

/// One GET through GStreamer's souphttpsrc (libsoup: redirects, TLS checked, proxies from the
/// environment), its body collected from an appsink. Blocking: run it off the pool.
enum HTTPFetch {
    /// One fetch at a time in the process, its pipeline torn down before the next starts. With
    /// libsoup 3, GStreamer 1.22's souphttpsrc runs each session on a thread of its own, and a
    /// session torn down while another starts (or while its server goes away) has crashed the
    /// process inside libsoup, about once in ten full test runs.
    private static let oneAtATime = Monitor(false)

    struct Response {
        var bytes: [UInt8]
        /// The whole body came (EOS), not only the first bytes asked for.
        var complete: Bool
    }

    /// What the bus and the sink said, recorded on their threads.
    private struct Watch {
        var bytes: [UInt8] = []
        var status: Int?
        var error: GStreamerError?
        var ended = false
        var enough = false
        var tooLarge = false
    }

    /// The body of `url`, at most `limit` bytes; with `enough`, it stops as soon as the bytes so
    /// far satisfy it (a header). `isWanted` is asked every few milliseconds: once false, the
    /// transfer stops and this throws `.interrupted`.
    @available(*, noasync, message: "it waits for the network: run it off the cooperative pool")
    static func get(_ url: String, limit: Int, timeout: Double, enough: (@Sendable ([UInt8]) -> Bool)? = nil,
                    isWanted: () -> Bool = { true }) throws(GpickError) -> Response {
        oneAtATime.wait(until: { !$0 }) { $0 = true }
        defer { oneAtATime.withLock { $0 = false } }
        return try fetch(url, limit: limit, timeout: timeout, enough: enough, isWanted: isWanted)
    }

    @available(*, noasync, message: "it waits for the network: run it off the cooperative pool")
    private static func fetch(_ url: String, limit: Int, timeout: Double, enough: (@Sendable ([UInt8]) -> Bool)?,
                              isWanted: () -> Bool) throws(GpickError) -> Response {
        let pipeline: Pipeline
        let sink: AppSink
        do {
            try Gst.initialize()
            pipeline = try Pipeline.parse("souphttpsrc name=src retries=0 ! appsink name=sink sync=false")
            let src = try pipeline.requireElement(named: "src")
            try src.set("location", url)
            try src.set("user-agent", "gpick")
            // No connection outlives its fetch: none is left open in a session being torn down.
            try src.set("keep-alive", false)
            try src.set("timeout", Int(max(1, timeout.rounded(.up))))
            sink = try AppSink(pipeline.requireElement(named: "sink"))
        } catch {
            if !error.missingElements.isEmpty || error.message.contains("souphttpsrc") {
                let package = ElementPackages.package(for: "souphttpsrc") ?? "gstreamer1.0-plugins-good"
                throw GpickError(.plugin, "cannot fetch \(url): GStreamer's souphttpsrc is not installed (install \(package))")
            }
            throw GpickError(.runtime, "cannot fetch \(url): \(error.message)", detail: error.diagnostic)
        }
        let watch = Monitor(Watch())
        sink.setCallbacks(deciding: { sample in
            let chunk = sample.data
            return watch.withLock { w -> AppSink.Flow in
                if w.bytes.count + chunk.count > limit { w.tooLarge = true; return .enough }
                w.bytes += chunk
                if let enough, enough(w.bytes) { w.enough = true; return .enough }
                return .more
            }
        }, onEOS: { watch.withLock { $0.ended = true } })
        pipeline.bus.observeSync { m in
            switch m {
            case .error(let e): watch.withLock { w in if w.error == nil { w.error = e } }
            case .element(_, "http-headers", let structure): watch.withLock { $0.status = statusCode(in: structure) }
            case .endOfStream: watch.withLock { $0.ended = true }
            default: break
            }
        }
        defer { _ = try? pipeline.setState(.null) }
        do { try pipeline.setState(.playing) } catch {
            throw GpickError(.runtime, "cannot fetch \(url): \(error.message)", detail: error.diagnostic)
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000) + 1000)
        while true {
            // A slice at a time: cancellation is a flag of the caller's, which cannot wake this.
            let slice = min(deadline, ContinuousClock.now + .milliseconds(20))
            let done = watch.wait(until: { $0.ended || $0.enough || $0.tooLarge || $0.error != nil }, deadline: slice) {
                $0.ended || $0.enough || $0.tooLarge || $0.error != nil
            }
            if done { break }
            guard isWanted() else { throw GpickError(.interrupted, "cancelled") }
            guard ContinuousClock.now < deadline else {
                throw GpickError(.input, "cannot fetch \(url): no answer within \(Int(timeout)) s")
            }
        }
        let w = watch.withLock { $0 }
        if let status = w.status, status != 0, !(200..<300).contains(status) {
            throw GpickError(.input, "cannot fetch \(url): the server answered HTTP \(status)\(reason(status).map { " \($0)" } ?? "")")
        }
        if w.tooLarge {
            throw GpickError(.input, "cannot fetch \(url): it is larger than \(limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes")")
        }
        if let e = w.error, !w.enough {
            // libsoup says no more than "Internal data stream error" for a server that cannot be
            // reached; the status it reports then is 0.
            if w.status == 0 || w.status == nil {
                throw GpickError(.input, "cannot fetch \(url): the server cannot be reached", detail: e.diagnostic)
            }
            throw GpickError(.input, "cannot fetch \(url): \(e.message)", detail: e.diagnostic)
        }
        return Response(bytes: w.bytes, complete: w.ended && !w.enough)
    }

    /// `http-status-code=(uint)404` in the serialized http-headers structure.
    static func statusCode(in structure: String) -> Int? {
        guard let r = structure.range(of: "http-status-code=(uint)") else { return nil }
        return Int(structure[r.upperBound...].prefix { $0.isNumber })
    }

    static func reason(_ status: Int) -> String? {
        [400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 410: "Gone",
         429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"][status]
    }
}
