import CGStreamer
import GpickBase
import FoundationEssentials
import Glibc

/// What GstDiscoverer reads from a media file.
public struct MediaInfo: Sendable, Codable {
    public struct Stream: Sendable, Codable {
        public var kind: String          // "video", "audio", "image", "subtitle", "other"
        public var codec: String         // human description, e.g. "H.264 (High Profile)"
        public var caps: String
        public var width: Int?
        public var height: Int?
        public var framerate: Double?
        public var channels: Int?
        public var sampleRate: Int?
        public var isImage: Bool?
    }
    public var uri: String
    /// Duration in nanoseconds (0 for stills).
    public var duration: UInt64
    public var seekable: Bool
    public var container: String?
    public var streams: [Stream]
    public var durationSeconds: Double { Double(duration) / 1e9 }
}

/// Why a file could not be discovered.
public enum DiscovererError: Error, Sendable, CustomStringConvertible {
    /// GStreamer could not read it: not media, damaged or truncated (its own error).
    case unreadable(GStreamerError)
    /// It took longer than the time limit.
    case timedOut
    /// Reading it needs plugins that are not installed.
    case missingPlugins([MissingPlugin])

    public var description: String {
        switch self {
        case .unreadable(let e): e.message
        case .timedOut: "timed out reading the file"
        case .missingPlugins(let m): "missing plugins: " + m.map(\.description).joined(separator: ", ")
        }
    }
}

/// A plugin GStreamer found missing, from its installer detail
/// ("gstreamer|1.0|gpick|VP9 decoder|decoder-video/x-vp9").
public struct MissingPlugin: Sendable, Equatable, CustomStringConvertible {
    /// "VP9 decoder".
    public var description: String
    /// "decoder", "encoder", "element", "urisource", "urisink".
    public var kind: String
    /// What it handles: caps for decoders and encoders ("video/x-vp9"), a name for elements.
    public var detail: String

    public init?(installerDetail: String) {
        let parts = installerDetail.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 5, let dash = parts[4].firstIndex(of: "-") else { return nil }
        description = parts[3]
        kind = String(parts[4][..<dash])
        detail = String(parts[4][parts[4].index(after: dash)...])
    }
}

public enum Discoverer {
    /// Discovers a file. Runs GstDiscoverer's synchronous API on a dedicated thread (never the
    /// cooperative pool) with a time limit so truncated or hostile files cannot hang us.
    /// Throws `DiscovererError`.
    public static func discover(path: String, timeout: Double = 10) async throws(DiscovererError) -> MediaInfo {
        try await OffPool.run { () throws(DiscovererError) in try discoverBlocking(path: path, timeout: timeout) }
    }

    @available(*, noasync, message: "it plays the file to its first frames: await the async overload, which runs off the cooperative pool")
    public static func discoverBlocking(path: String, timeout: Double = 10) throws(DiscovererError) -> MediaInfo {
        do throws(GStreamerError) { try Gst.initialize() } catch { throw .unreadable(error) }
        let started = Monotonic.nanoseconds()
        let first = min(timeout, firstAttempt)
        do throws(DiscovererError) {
            return try discoverOnce(path: path, timeout: first)
        } catch {
            guard case .timedOut = error, timeout > first else { throw error }
        }
        // decodebin2 may have lost the demuxer's error (see DemuxerCheck): ask the demuxer alone
        // before waiting out the rest of the time on a file that is only slow to read.
        if let lost = DemuxerCheck.errorBeforeStreams(path: path, within: min(timeout - Monotonic.seconds(since: started), 2)) {
            throw .unreadable(lost)
        }
        return try discoverOnce(path: path, timeout: max(timeout - Monotonic.seconds(since: started), 0.1))
    }

    /// How long the first discovery may take before the demuxer gets a second opinion: far
    /// longer than a damaged file takes to fail (tens of milliseconds, on a busy machine too).
    static let firstAttempt = 1.0

    private static func discoverOnce(path: String, timeout: Double) throws(DiscovererError) -> MediaInfo {
        let uri = URL(fileURLWithPath: path).absoluteString
        let disc: UnsafeMutablePointer<GstDiscoverer>
        do throws(GStreamerError) {
            disc = try withGError(source: "discoverer", failure: "cannot create discoverer") { err in
                gst_discoverer_new(GstClockTime(timeout * 1e9), err)
            }
        } catch { throw .unreadable(error) }
        defer { g_object_unref(UnsafeMutableRawPointer(disc)) }
        // The info comes back with a result even when an error is set too.
        var err: UnsafeMutablePointer<GError>? = nil
        let got = gst_discoverer_discover_uri(disc, uri, &err)
        let error = err.map { GStreamerError(adopting: $0, source: path) }
        guard let info = got else {
            throw .unreadable(error ?? GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_TYPE_NOT_FOUND.rawValue),
                                                      message: "cannot read \(path)", source: path))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        // Missing plugins come first: a stream with no decoder is left unlinked, and the demuxer's
        // "not-linked" error that may follow it (it races uridecodebin's own missing-plugin error,
        // and can win on a busy machine) makes the result ERROR, though the cause is the plugin.
        let missing = missingPlugins(info)
        // A phone's clip carries data tracks (Pixel's `mett` motion metadata) no decoder is for:
        // what matters is that its pictures and sound can be read.
        let media = missing.contains { m in ["video/", "audio/", "image/"].contains { m.detail.hasPrefix($0) } || m.kind != "decoder" }
        switch gst_discoverer_info_get_result(info) {
        case GST_DISCOVERER_OK: break
        case GST_DISCOVERER_TIMEOUT: throw .timedOut
        case GST_DISCOVERER_MISSING_PLUGINS:
            if media || missing.isEmpty { throw .missingPlugins(missing) }
        default:
            if media { throw .missingPlugins(missing) }
            throw .unreadable(error ?? GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_TYPE_NOT_FOUND.rawValue),
                                                      message: "not a media file GStreamer can read", source: path))
        }
        var streams: [MediaInfo.Stream] = []
        let list = gst_discoverer_info_get_stream_list(info)
        defer { gst_discoverer_stream_info_list_free(list) }
        var container: String?
        if let top = gst_discoverer_info_get_stream_info(info) {
            defer { g_object_unref(UnsafeMutableRawPointer(top)) }
            if G_TYPE_CHECK_INSTANCE_TYPE_helper(top, gst_discoverer_container_info_get_type()),
               let caps = gst_discoverer_stream_info_get_caps(top) {
                container = takeString(gst_pb_utils_get_codec_description(caps))
                gst_caps_unref(caps)
            }
        }
        var node = list
        while let n = node {
            let s = OpaquePointer(n.pointee.data)!
            streams.append(stream(s))
            node = n.pointee.next
        }
        return MediaInfo(uri: uri, duration: UInt64(gst_discoverer_info_get_duration(info)),
                         seekable: gst_discoverer_info_get_seekable(info) != 0, container: container, streams: streams)
    }

    /// The plugins the discovery found missing, each once, from their installer details.
    private static func missingPlugins(_ info: OpaquePointer) -> [MissingPlugin] {
        var missing: [MissingPlugin] = []
        guard let details = gst_discoverer_info_get_missing_elements_installer_details(info) else { return missing }
        var i = 0
        while let d = details[i] {
            if let m = MissingPlugin(installerDetail: String(cString: d)), !missing.contains(m) { missing.append(m) }
            i += 1
        }
        return missing
    }

    private static func stream(_ s: OpaquePointer) -> MediaInfo.Stream {
        var out = MediaInfo.Stream(kind: "other", codec: "unknown", caps: "")
        if let caps = gst_discoverer_stream_info_get_caps(s) {
            out.caps = takeString(gst_caps_to_string(caps)) ?? ""
            out.codec = takeString(gst_pb_utils_get_codec_description(caps)) ?? out.caps
            gst_caps_unref(caps)
        }
        if G_TYPE_CHECK_INSTANCE_TYPE_helper(s, gst_discoverer_video_info_get_type()) {
            let v = s
            out.kind = gst_discoverer_video_info_is_image(v) != 0 ? "image" : "video"
            out.isImage = gst_discoverer_video_info_is_image(v) != 0
            out.width = Int(gst_discoverer_video_info_get_width(v))
            out.height = Int(gst_discoverer_video_info_get_height(v))
            let d = gst_discoverer_video_info_get_framerate_denom(v)
            if d > 0 { out.framerate = Double(gst_discoverer_video_info_get_framerate_num(v)) / Double(d) }
        } else if G_TYPE_CHECK_INSTANCE_TYPE_helper(s, gst_discoverer_audio_info_get_type()) {
            let a = s
            out.kind = "audio"
            out.channels = Int(gst_discoverer_audio_info_get_channels(a))
            out.sampleRate = Int(gst_discoverer_audio_info_get_sample_rate(a))
        } else if G_TYPE_CHECK_INSTANCE_TYPE_helper(s, gst_discoverer_subtitle_info_get_type()) {
            out.kind = "subtitle"
        }
        return out
    }
}

private func G_TYPE_CHECK_INSTANCE_TYPE_helper(_ p: OpaquePointer?, _ type: GType) -> Bool {
    g_type_check_instance_is_a(UnsafeMutableRawPointer(p)?.assumingMemoryBound(to: GTypeInstance.self), type) != 0
}
