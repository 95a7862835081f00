import CGStreamer
import GpickBase
import FoundationEssentials
import Glibc

/// Process-wide GStreamer setup and registry queries.
public enum Gst {
    private static let initResult: Result<Void, GStreamerError> = NativeLibraries.starting {
        var error: UnsafeMutablePointer<GError>? = nil
        if gst_init_check(nil, nil, &error) == 0 {
            if let error { return .failure(GStreamerError(adopting: error, source: "gst_init")) }
            return .failure(GStreamerError(domain: .core, code: 0, message: "GStreamer failed to initialise", source: "gst_init"))
        }
        return .success(())
    }

    /// Initialises GStreamer once; later calls return the first result (waiting for a first call
    /// still under way on another thread).
@available(*, noasync, message: "the first call loads the plugin registry: await the async overload, which runs off the cooperative pool")
    public static func initialize() throws(GStreamerError) {
        try initResult.get()
    }

    /// `initialize()` for async callers: the wait for a first call under way (loading the plugin
    /// registry takes tens of ms) happens on a thread of its own, not on the cooperative pool.
    public static func initialized() async throws(GStreamerError) {
        try await OffPool.run { () throws(GStreamerError) in try initialize() }
    }

    /// Whether GStreamer's leak tracer is on (`GST_TRACERS=leaks`): it reports the objects still
    /// alive only at `gst_deinit`, which a process normally skips at exit.
    public static var leakTracerRequested: Bool {
        getenv("GST_TRACERS").map { String(cString: $0).contains("leaks") } ?? false
    }

    /// Shuts GStreamer down so the leak tracer reports (see `leakTracerRequested`). Nothing of
    /// GStreamer may be used afterwards: call it last, after every pipeline is stopped and released.
    public static func deinitializeForLeakReport() {
        guard leakTracerRequested, (try? initialize()) != nil else { return }
        // Off-pool threads may still be releasing what their work captured (a stage, a graph):
        // that must happen before GStreamer goes.
        DetachedThreads.waitForAll(timeout: 5)
        gst_deinit()
    }

    /// Whether GStreamer has been initialised (by `initialize()` or by anyone else in the process).
    public static var isInitialized: Bool { gst_is_initialized() != 0 }

    public static var version: String {
        takeString(gst_version_string()) ?? "unknown"
    }

    /// Whether an element factory of this name is installed.
    public static func hasElement(_ factory: String) -> Bool {
        guard (try? initialize()) != nil, let f = gst_element_factory_find(factory) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(f))
        return true
    }

    /// The file of the installed plugin that provides an element factory (nil: none does), so a
    /// package manager can say which package it comes from.
    public static func pluginFile(ofElement factory: String) -> String? {
        guard (try? initialize()) != nil, let f = gst_element_factory_find(factory) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(f)) }
        guard let plugin = gst_plugin_feature_get_plugin(f) else { return coreLibraryFile }
        defer { gst_object_unref(UnsafeMutableRawPointer(plugin)) }
        // A plugin without a file is built in: `bin` and `pipeline` live in GStreamer's core.
        return gst_plugin_get_filename(plugin).map { String(cString: $0) } ?? coreLibraryFile
    }

    /// For an element built into GStreamer's core: the file of the core elements plugin, which
    /// ships in the same package as the core library.
    private static var coreLibraryFile: String? {
        guard let plugin = gst_registry_find_plugin(gst_registry_get(), "coreelements") else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(plugin)) }
        return gst_plugin_get_filename(plugin).map { String(cString: $0) }
    }

    /// Installed decoders and demuxers whose sink takes `caps` (e.g. "video/x-vp9"), best rank
    /// first, and only what autoplugging would pick (rank marginal and up): who reads a format.
    public static func readers(of caps: String) -> [String] {
        guard (try? initialize()) != nil, let c = gst_caps_from_string(caps) else { return [] }
        defer { gst_caps_unref(c) }
        let all = gst_element_factory_list_get_elements(cgst_factory_type_readers(), GST_RANK_MARGINAL)
        defer { gst_plugin_feature_list_free(all) }
        // Highest rank first, as autoplugging picks them.
        return takeFeatureNames(g_list_sort(gst_element_factory_list_filter(all, c, GST_PAD_SINK, 0), gst_plugin_feature_rank_compare_func))
    }

    /// Names of all installed element factories (for "did you mean" suggestions).
    public static func elementFactoryNames() -> [String] {
        guard (try? initialize()) != nil else { return [] }
        // The registry's own list: factory_list_get_elements(TYPE_ANY) also filters on media type.
        return takeFeatureNames(gst_registry_get_feature_list(gst_registry_get(), gst_element_factory_get_type()))
    }

    /// The names in a list of plugin features, which it frees (transfer full).
    private static func takeFeatureNames(_ list: UnsafeMutablePointer<GList>?) -> [String] {
        defer { gst_plugin_feature_list_free(list) }
        var names: [String] = []
        var node = list
        while let n = node {
            if let name = cgst_object_name(n.pointee.data) { names.append(String(cString: name)) }
            node = n.pointee.next
        }
        return names
    }

    public static let clockTimeNone: UInt64 = UInt64(cgst_clock_time_none())
}
