import CGStreamer
import GpickBase
import Glibc

/// A second opinion for a discovery that ran out of time: the file's demuxer on its own.
///
/// GstDiscoverer plays the file through decodebin2, which holds back the errors of an element it
/// is still setting up (so that it can try another) and forgets them once that element has
/// started. A demuxer that fails at once, on its own thread, as it starts (a Matroska file cut
/// after 400 bytes: "No pads created") can fail inside that window: measured here, one discovery
/// in ten on a busy machine. decodebin2 then waits for pads that never come, and the discovery
/// uses up its whole time limit. Alone in a pipeline, the same demuxer's error reaches our bus.
enum DemuxerCheck {
    /// The error the file's demuxer posts before it has found any stream, within `seconds`; nil
    /// when it found streams, took longer, or there is no demuxer for the file's type.
    @available(*, noasync, message: "it waits on a pipeline's bus")
    static func errorBeforeStreams(path: String, within seconds: Double) -> GStreamerError? {
        guard let factory = demuxer(for: path), let pipeline = try? Pipeline(name: "demuxer-check"),
              let src = try? Element.make("filesrc"), let demux = try? Element.make(factory),
              (try? src.set("location", path)) != nil, (try? pipeline.add(src)) != nil, (try? pipeline.add(demux)) != nil,
              gst_element_link(src.pointer, demux.pointer) != 0 else { return nil }
        // Nothing is linked after the demuxer: one that reads the file adds pads, then stops with
        // "not-linked"; one that cannot read it stops before it has any pad.
        let failure = Monitor<(error: GStreamerError, pads: UInt16)?>(nil)
        pipeline.bus.observeSync { message in
            guard case .error(let e) = message else { return }
            let pads = demux.pointer.pointee.numsrcpads
            failure.withLock { f in f = f ?? (e, pads) }
        }
        defer { _ = try? pipeline.setState(.null) }
        _ = try? pipeline.setState(.paused)
        let first = failure.wait(until: { $0 != nil }, deadline: .now + .seconds(seconds)) { $0 }
        guard let (error, pads) = first, pads == 0 else { return nil }
        var e = error
        e.source = path
        return e
    }

    /// GST_ELEMENT_FACTORY_TYPE_DEMUXER, a C macro Swift does not import.
    private static let demuxers: GstElementFactoryListType = 1 << 5

    /// The highest-ranked demuxer for what the file's first bytes look like.
    private static func demuxer(for path: String) -> String? {
        guard let head = readHead(path), let caps = TypeFind.caps(of: head) else { return nil }
        defer { gst_caps_unref(caps) }
        let all = gst_element_factory_list_get_elements(demuxers, GST_RANK_MARGINAL)
        defer { gst_plugin_feature_list_free(all) }
        let sorted = g_list_sort(gst_element_factory_list_filter(all, caps, GST_PAD_SINK, 0), gst_plugin_feature_rank_compare_func)
        defer { gst_plugin_feature_list_free(sorted) }
        guard let first = sorted?.pointee.data else { return nil }
        return takeString(gst_object_get_name(first.assumingMemoryBound(to: GstObject.self)))
    }

    private static func readHead(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? Array(buffer.prefix(n)) : nil
    }
}
