import FoundationEssentials
import Glibc
import GstCore

/// Checks a file before it is played as a camera, so what is wrong with it is one line in the
/// user's terms instead of a demuxer's error halfway through starting: not a media file (and
/// what it looks like), damaged, no video stream (and what it has instead), no decoder installed
/// (and the package that has one).
public enum MediaProbe {
    /// Bytes the typefinders look at.
    static let headBytes = 64 << 10

    /// `timeout` bounds a file that never finishes prerolling; a short file answers in tens of
    /// milliseconds. (A damaged file that GstDiscoverer alone would wait out is told within about
    /// a second: see `Discoverer.discoverBlocking`.)
    public static func checkVideoSource(_ path: String, timeout: Double = 10) async throws(GpickError) {
        try await OffPool.run { () throws(GpickError) in try checkVideoSourceBlocking(path, timeout: timeout) }
    }

    /// What a media file holds (GstDiscoverer), or what is wrong with it in the user's terms.
    public static func discover(_ path: String, timeout: Double = 10) async throws(GpickError) -> MediaInfo {
        try await OffPool.run { () throws(GpickError) in try discoverBlocking(path, timeout: timeout) }
    }

    static func discoverBlocking(_ path: String, timeout: Double) throws(GpickError) -> MediaInfo {
        let head = try readHead(path)
        let type = TypeFind.identify(head)
        if type == nil { throw GpickError(.input, "\(path) is not a media file (GStreamer does not recognise its type)") }
        if let type, type.mediaType.hasPrefix("text/") { throw GpickError(.input, "\(path) is not a media file (it looks like text)") }
        do {
            return try Discoverer.discoverBlocking(path: path, timeout: timeout)
        } catch {
            throw describe(error, path: path, looksLike: type)
        }
    }

    static func checkVideoSourceBlocking(_ path: String, timeout: Double) throws(GpickError) {
        let info = try discoverBlocking(path, timeout: timeout)
        if info.streams.contains(where: { $0.kind == "video" || $0.kind == "image" }) { return }
        let others = info.streams.filter { $0.kind == "audio" || $0.kind == "subtitle" }.map { "\($0.kind): \($0.codec)" }
        throw GpickError(.input, "\(path) has no video stream" + (others.isEmpty ? "" : " (\(others.joined(separator: "; ")))"))
    }

    private static func describe(_ e: DiscovererError, path: String, looksLike type: TypeFind.Result?) -> GpickError {
        let what = type.flatMap { $0.description ?? $0.mediaType }
        switch e {
        case .timedOut:
            return GpickError(.input, "\(path) could not be read in time: it may be damaged")
        case .missingPlugins(let missing):
            let named = missing.map(\.description).joined(separator: ", ")
            let packages = Array(Set(missing.compactMap { ElementPackages.package(reading: mediaType(of: $0.detail)) })).sorted()
            let install = packages.isEmpty ? "GStreamer has no plugin for it here"
                : "install \(packages.joined(separator: " or ")) (apt-get install \(packages.joined(separator: " ")))"
            return GpickError(.plugin, "\(path) needs a \(named), which is not installed; \(install)")
        case .unreadable(let g):
            let isMedia = type.map { ["video/", "audio/", "image/", "application/ogg", "application/x-id3", "application/mxf"]
                .contains(where: $0.mediaType.hasPrefix) } ?? false
            if isMedia {
                return GpickError(.input, "\(path) is damaged or truncated: its \(what ?? "media") data cannot be read", detail: g.diagnostic)
            }
            return GpickError(.input, "\(path) is not a media file (it looks like \(article(what ?? "unknown data")))", detail: g.diagnostic)
        }
    }

    /// "video/x-vp9, profile=(string)0" → "video/x-vp9".
    static func mediaType(of caps: String) -> String {
        String(caps.prefix { $0 != "," && $0 != " " })
    }

    private static func article(_ noun: String) -> String {
        guard let first = noun.lowercased().first else { return noun }
        return ("aeiou".contains(first) ? "an " : "a ") + noun
    }

    /// The first bytes of a regular, readable, non-empty file.
    private static func readHead(_ path: String) throws(GpickError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw GpickError(.input, errno == ENOENT ? "no such file: \(path)" : "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw GpickError(.input, "\(path) is not a regular file") }
        guard st.st_size > 0 else { throw GpickError(.input, "\(path) is empty (0 bytes)") }
        var buffer = [UInt8](repeating: 0, count: min(headBytes, Int(st.st_size)))
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { throw GpickError(.input, "cannot read \(path): \(String(cString: strerror(errno)))") }
        return Array(buffer.prefix(n))
    }
}
