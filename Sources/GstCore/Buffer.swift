import CGStreamer
import GpickBase

/// A borrowed view of a GstBuffer (transfer none): valid only while its owner holds it
/// (a probe callback, or a `Sample`).
public struct BufferView {
    public let pointer: UnsafeMutablePointer<GstBuffer>

    public var pts: UInt64? { let t = UInt64(cgst_buffer_pts(pointer)); return t == Gst.clockTimeNone ? nil : t }
    public var duration: UInt64? { let t = UInt64(cgst_buffer_duration(pointer)); return t == Gst.clockTimeNone ? nil : t }
    public var isKeyframe: Bool { cgst_buffer_is_delta(pointer) == 0 }
    public var size: Int { Int(gst_buffer_get_size(pointer)) }

    /// Trims the (writable) buffer to `size` bytes from `offset`, e.g. to cut audio at a sample.
    public func resize(offset: Int, size: Int) {
        gst_buffer_resize(pointer, gssize(offset), gssize(size))
    }

    /// Puts `count` zero bytes before the data of the (writable) buffer, e.g. silence before the
    /// first audio samples. Its timestamps are the caller's to adjust.
    public func prependZeros(_ count: Int) {
        guard count > 0, let memory = gst_allocator_alloc(nil, gsize(count), nil) else { return }
        var map = GstMapInfo()
        if gst_memory_map(memory, &map, GST_MAP_WRITE) != 0 {
            map.data.initialize(repeating: 0, count: Int(map.size))
            gst_memory_unmap(memory, &map)
        }
        gst_buffer_prepend_memory(pointer, memory)  // takes the memory
    }

    public func setPTS(_ t: UInt64) { cgst_buffer_set_pts(pointer, GstClockTime(t)) }
    public func setDuration(_ t: UInt64) { cgst_buffer_set_duration(pointer, GstClockTime(t)) }

    /// Maps the memory for reading.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        var map = GstMapInfo()
        guard gst_buffer_map(pointer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(pointer, &map) }
        return try body(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
    }

    /// Maps as a video frame with per-plane strides. `writable` requires a writable buffer.
    public func withVideoFrame<R>(caps: VideoInfo, writable: Bool,
                                  _ body: (inout VideoFrame) throws -> R) rethrows -> R? {
        var info = caps.info
        var frame = GstVideoFrame()
        let flags = writable ? GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue) : GST_MAP_READ
        guard gst_video_frame_map(&frame, &info, pointer, flags) != 0 else { return nil }
        defer { gst_video_frame_unmap(&frame) }
        var planes: [VideoFrame.Plane] = []
        let n = Int(cgst_video_info_n_planes(&frame.info))
        withUnsafeMutablePointer(to: &frame.data) { dataTuple in
            dataTuple.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 4) { data in
                for p in 0..<n {
                    planes.append(.init(data: data[p]!, stride: Int(cgst_video_info_plane_stride(&frame.info, guint(p))),
                                        height: Int(cgst_video_info_comp_height(&frame.info, guint(p)))))
                }
            }
        }
        var vf = VideoFrame(width: caps.width, height: caps.height, format: caps.format, planes: planes)
        return try body(&vf)
    }
}

/// A mapped video frame. Pointers are valid only inside the mapping closure.
public struct VideoFrame {
    public struct Plane {
        public let data: UnsafeMutableRawPointer
        public let stride: Int
        public let height: Int
        public init(data: UnsafeMutableRawPointer, stride: Int, height: Int) {
            self.data = data
            self.stride = stride
            self.height = height
        }
    }
    public let width: Int
    public let height: Int
    public let format: String
    public let planes: [Plane]
    public init(width: Int, height: Int, format: String, planes: [Plane]) {
        self.width = width
        self.height = height
        self.format = format
        self.planes = planes
    }
}

/// Parsed raw video caps (GstVideoInfo).
public struct VideoInfo: @unchecked Sendable {
    // GstVideoInfo is a plain value struct (no pointers we own), so copying it across threads is safe.
    let info: GstVideoInfo

    public init?(_ caps: Caps) {
        var i = GstVideoInfo()
        gst_video_info_init(&i)
        guard gst_video_info_from_caps(&i, caps.pointer) != 0 else { return nil }
        info = i
    }

    public var width: Int { withUnsafePointer(to: info) { Int(cgst_video_info_width($0)) } }
    public var height: Int { withUnsafePointer(to: info) { Int(cgst_video_info_height($0)) } }
    public var format: String {
        withUnsafePointer(to: info) { String(cString: gst_video_format_to_string(cgst_video_info_format($0))) }
    }
    public var framerate: (Int, Int) {
        withUnsafePointer(to: info) { (Int(cgst_video_info_fps_n($0)), Int(cgst_video_info_fps_d($0))) }
    }
    public var isYUV: Bool { withUnsafePointer(to: info) { cgst_video_info_is_yuv($0) != 0 || cgst_video_info_is_gray($0) != 0 } }
}
