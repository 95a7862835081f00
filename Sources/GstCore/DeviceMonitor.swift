import CGStreamer
import Glibc
import GpickBase
import Synchronization

/// A capture device as a GStreamer device provider reports it.
public struct DeviceInfo: Sendable {
    public var name: String
    public var deviceClass: String
    /// The device node, e.g. /dev/video0 (from "api.v4l2.path" or "device.path").
    public var path: String?
    /// Each caps structure as text (format, size, frame rates).
    public var caps: [String]
    /// The same caps as values: ranges and lists kept as the device reports them.
    public var formats: [CapsStructure]
    /// The device's properties (PipeWire's node.name, object.serial, …) as text.
    public var properties: [String: String]
    /// The element the device opens itself with (`pipewiresrc`, `libcamerasrc`, `v4l2src`) and
    /// the properties that select it there (`target-object`, `camera-name`, `device`).
    public var factory: String?
    public var selectors: [String: String]
}

public enum DeviceMonitor {
    /// The properties by which a source element is pointed at one device.
    static let selectorProperties = ["target-object", "path", "camera-name", "device"]

    /// Lists devices of a class ("Video/Source", "Audio/Source"), from every provider, or only
    /// from the named one (`pipewiredeviceprovider`). Providers probe hardware and daemons, so
    /// this runs off the cooperative pool.
    public static func devices(classes: String = "Video/Source", provider: String? = nil) async throws(GStreamerError) -> [DeviceInfo] {
        try await OffPool.run { () throws(GStreamerError) in try devices(classes: classes, provider: provider) }
    }

    @available(*, noasync, message: "device providers probe hardware: await the async overload, which runs off the cooperative pool")
    public static func devices(classes: String = "Video/Source", provider: String? = nil) throws(GStreamerError) -> [DeviceInfo] {
        try Gst.initialize()
        // Only a probe that asks PipeWire's provider needs it on a connection of its own.
        if let provider, provider != pipewireProvider { return probe(provider: provider, classes: classes) }
        return onOwnPipeWireConnection {
            if let provider { return probe(provider: provider, classes: classes) }
            guard let monitor = gst_device_monitor_new() else { return [] }
            defer { gst_object_unref(UnsafeMutableRawPointer(monitor)) }
            _ = gst_device_monitor_add_filter(monitor, classes, nil)
            // get_devices probes the providers synchronously when the monitor is not started; a
            // provider that hides another (PipeWire hides V4L2 when it monitors the same cameras)
            // is honoured here.
            let list = gst_device_monitor_get_devices(monitor)
            defer { g_list_free_full(list, { gst_object_unref($0) }) }
            return infos(list)
        }
    }

    /// One provider's devices; none when it is not installed or cannot start (no daemon).
    private static func probe(provider name: String, classes: String) -> [DeviceInfo] {
        guard let provider = gst_device_provider_factory_get_by_name(name) else { return [] }
        defer { gst_object_unref(UnsafeMutableRawPointer(provider)) }
        let list = gst_device_provider_get_devices(provider)
        defer { g_list_free_full(list, { gst_object_unref($0) }) }
        return infos(list).filter { d in classes.split(separator: "/").allSatisfy { d.deviceClass.contains($0) } }
    }

    private static let pipewireProvider = "pipewiredeviceprovider"

    /// One PipeWire probe at a time, each on a connection of its own.
    private static let pipewireProbe = Mutex<Void>(())

    /// Runs `body` (which probes providers) with PipeWire's provider on a new connection to the
    /// daemon, passed as its `fd`. Without one it probes on the connection that every
    /// pipewiresrc of the process shares (gst-pipewire keeps one per fd, -1 being the default
    /// one), and beside a camera stream that had stalled that left the connection's loop
    /// spinning with its lock held: a thread at 100 % CPU, and every pipewiresrc waiting on it.
    /// The provider is one object per process, so probes take turns.
    private static func onOwnPipeWireConnection(_ body: () -> [DeviceInfo]) -> [DeviceInfo] {
        pipewireProbe.withLock { _ in
            guard let provider = gst_device_provider_factory_get_by_name(pipewireProvider) else { return body() }
            defer { gst_object_unref(UnsafeMutableRawPointer(provider)) }
            let object = UnsafeMutableRawPointer(provider)
            guard cgst_find_property(object, "fd") != nil, let fd = PipeWireSocket.connect() else { return body() }
            defer { close(fd) }  // gst-pipewire connects with a duplicate of it
            setInt(object, "fd", fd)
            defer { setInt(object, "fd", -1) }
            return body()
        }
    }

    private static func setInt(_ object: UnsafeMutableRawPointer, _ name: String, _ value: Int32) {
        var v = GValue()
        g_value_init(&v, cgst_type_int())
        defer { g_value_unset(&v) }
        g_value_set_int(&v, value)
        g_object_set_property(object.assumingMemoryBound(to: GObject.self), name, &v)
    }

    private static func infos(_ list: UnsafeMutablePointer<GList>?) -> [DeviceInfo] {
        var out: [DeviceInfo] = []
        var node = list
        while let n = node {
            out.append(info(n.pointee.data.assumingMemoryBound(to: GstDevice.self)))
            node = n.pointee.next
        }
        return out
    }

    private static func info(_ dev: UnsafeMutablePointer<GstDevice>) -> DeviceInfo {
        var info = DeviceInfo(name: takeString(gst_device_get_display_name(dev)) ?? "?",
                              deviceClass: takeString(gst_device_get_device_class(dev)) ?? "",
                              path: nil, caps: [], formats: [], properties: [:], factory: nil, selectors: [:])
        if let caps = gst_device_get_caps(dev) {
            for i in 0..<gst_caps_get_size(caps) {
                if let s = gst_caps_get_structure(caps, i), let t = takeString(gst_structure_to_string(s)) { info.caps.append(t) }
            }
            info.formats = Caps.structures(of: caps)
            gst_caps_unref(caps)
        }
        if let props = gst_device_get_properties(dev) {
            for f in 0..<gst_structure_n_fields(props) {
                guard let key = gst_structure_nth_field_name(props, UInt32(f)), let v = gst_structure_get_value(props, key) else { continue }
                let text = cgst_value_type(v) == cgst_type_string() ? g_value_get_string(v).map { String(cString: $0) } : takeString(gst_value_serialize(v))
                info.properties[String(cString: key)] = text
            }
            gst_structure_free(props)
        }
        info.path = info.properties["api.v4l2.path"] ?? info.properties["device.path"] ?? info.properties["object.path"]
        // The element the device makes for itself says which kind it is and how to select it.
        if let made = gst_device_create_element(dev, nil) {
            let element = Element(made, transfer: .floating)
            info.factory = element.factoryName
            for p in selectorProperties where element.hasProperty(p) {
                if case .string(let v?)? = try? element.get(p), !v.isEmpty { info.selectors[p] = v }
            }
        }
        return info
    }
}
