import CGStreamer
import GpickBase

/// A capture device as GstDeviceMonitor reports it.
public struct DeviceInfo: Sendable, Codable {
    public var name: String
    public var deviceClass: String
    /// The device node, e.g. /dev/video0 (from "api.v4l2.path" or "device.path").
    public var path: String?
    /// Each caps structure as text (format, size, frame rates).
    public var caps: [String]
    public var properties: String
}

public enum DeviceMonitor {
    /// Lists devices of a class ("Video/Source", "Audio/Source"). Blocking but short: call it off
    /// the cooperative pool (`offPool`) in async code.
    /// `devices` off the cooperative pool (providers probe hardware).
    public static func devices(classes: String = "Video/Source") async throws(GStreamerError) -> [DeviceInfo] {
        try await OffPool.run { () throws(GStreamerError) in try devices(classes: classes) }
    }

    @available(*, noasync, message: "device providers probe hardware: await the async overload, which runs off the cooperative pool")
    public static func devices(classes: String = "Video/Source") throws(GStreamerError) -> [DeviceInfo] {
        try Gst.initialize()
        guard let monitor = gst_device_monitor_new() else { return [] }
        defer { gst_object_unref(UnsafeMutableRawPointer(monitor)) }
        _ = gst_device_monitor_add_filter(monitor, classes, nil)
        // get_devices probes the providers synchronously when the monitor is not started.
        let list = gst_device_monitor_get_devices(monitor)
        defer { g_list_free_full(list, { gst_object_unref($0) }) }
        var out: [DeviceInfo] = []
        var node = list
        while let n = node {
            let dev = n.pointee.data.assumingMemoryBound(to: GstDevice.self)
            var info = DeviceInfo(name: takeString(gst_device_get_display_name(dev)) ?? "?",
                                  deviceClass: takeString(gst_device_get_device_class(dev)) ?? "",
                                  path: nil, caps: [], properties: "")
            if let caps = gst_device_get_caps(dev) {
                for i in 0..<gst_caps_get_size(caps) {
                    if let s = gst_caps_get_structure(caps, i), let t = takeString(gst_structure_to_string(s)) { info.caps.append(t) }
                }
                gst_caps_unref(caps)
            }
            if let props = gst_device_get_properties(dev) {
                info.properties = takeString(gst_structure_to_string(props)) ?? ""
                for key in ["api.v4l2.path", "device.path", "object.path"] {
                    if info.path == nil, let v = gst_structure_get_string(props, key) { info.path = String(cString: v) }
                }
                gst_structure_free(props)
            }
            out.append(info)
            node = n.pointee.next
        }
        return out
    }
}
