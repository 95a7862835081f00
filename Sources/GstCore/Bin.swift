import CGStreamer
import GpickBase

/// A bin: an element holding elements.
public class Bin: Element, @unchecked Sendable {
    /// A child by name, searching nested bins (transfer full).
    public func element(named name: String) -> Element? {
        gst_bin_get_by_name(cgst_bin(pointer), name).map { Element($0, transfer: .full) }
    }

    /// A direct child by name (not searching nested bins), so lookups cannot reach into branches.
    public func directChild(named name: String) -> Element? {
        guard let it = gst_bin_iterate_elements(cgst_bin(pointer)) else { return nil }
        defer { gst_iterator_free(it) }
        var value = GValue()
        defer { g_value_unset(&value) }
        while gst_iterator_next(it, &value) == GST_ITERATOR_OK {
            if let obj = g_value_get_object(&value), let n = cgst_object_name(obj), String(cString: n) == name {
                return Element(obj.assumingMemoryBound(to: GstElement.self), transfer: .none)
            }
            g_value_reset(&value)
        }
        return nil
    }

    public func requireElement(named name: String) throws(GStreamerError) -> Element {
        guard let e = element(named: name) else {
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_FAILED.rawValue),
                                 message: "no element named \"\(name)\"", source: self.name)
        }
        return e
    }

    /// Whether `origin` is this bin or an element inside it, however deep.
    public func contains(_ origin: MessageOrigin) -> Bool {
        let me = cgst_object(pointer)
        return origin.pointer == me || gst_object_has_as_ancestor(origin.pointer, me) != 0
    }

    /// Adds a child; the bin takes its own reference.
    public func add(_ element: Element) throws(GStreamerError) {
        if gst_bin_add(cgst_bin(pointer), element.pointer) == 0 {
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_FAILED.rawValue),
                                 message: "cannot add \(element.name) to \(name)", source: name)
        }
    }

    public func remove(_ element: Element) {
        gst_bin_remove(cgst_bin(pointer), element.pointer)
    }

    /// Names and factories of every element inside (recursively).
    public var children: [Element] {
        var out: [Element] = []
        guard let it = gst_bin_iterate_recurse(cgst_bin(pointer)) else { return out }
        defer { gst_iterator_free(it) }
        var value = GValue()
        while gst_iterator_next(it, &value) == GST_ITERATOR_OK {
            if let obj = g_value_get_object(&value) {
                out.append(Element(obj.assumingMemoryBound(to: GstElement.self), transfer: .none))
            }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        return out
    }

    /// Parses a partial description into a bin (elements only, no ghost pads). Fatal errors:
    /// an unknown element or property fails instead of returning a half-built bin.
    /// `parseBin` off the cooperative pool (GStreamer's parser takes a global lock and loads plugins).
    public static func parseBin(_ description: String) async throws(GStreamerError) -> Bin {
        try await OffPool.run { () throws(GStreamerError) in try parseBin(description) }
    }

    @available(*, noasync, message: "it loads plugins under GStreamer's global lock: await the async overload, which runs off the cooperative pool")
    public static func parseBin(_ description: String) throws(GStreamerError) -> Bin {
        try Gst.initialize()
        let ctx = gst_parse_context_new()
        defer { gst_parse_context_free(ctx) }
        do {
            let e = try withGError(source: "parse", failure: "could not parse \"\(description)\"") { err in
                gst_parse_bin_from_description_full(description, 0, ctx, GST_PARSE_FLAG_FATAL_ERRORS, err)
            }
            return Bin(e, transfer: .floating)
        } catch {
            throw error.withMissingElements(of: ctx)
        }
    }

    /// Exposes a child's pad on the bin's boundary.
    @discardableResult
    public func addGhostPad(named name: String, target: Pad) throws(GStreamerError) -> Pad {
        guard let ghost = gst_ghost_pad_new(name, target.pointer) else {
            throw GStreamerError(domain: .core, code: 0, message: "cannot make ghost pad \(name)", source: self.name)
        }
        let pad = Pad(ghost, transfer: .floating)
        gst_pad_set_active(ghost, 1)
        if gst_element_add_pad(pointer, ghost) == 0 {
            throw GStreamerError(domain: .core, code: 0, message: "cannot add ghost pad \(name)", source: self.name)
        }
        return pad
    }
}

/// A top-level pipeline with its bus. Going out of scope sets it to NULL before the last unref.
public final class Pipeline: Bin, @unchecked Sendable {
    public let bus: Bus

    public override init(_ pointer: UnsafeMutablePointer<GstElement>, transfer: Transfer) {
        bus = Bus(gst_element_get_bus(pointer)!, transfer: .full)
        super.init(pointer, transfer: transfer)
    }

    public convenience init(name: String) throws(GStreamerError) {
        guard let p = gst_pipeline_new(name) else {
            throw GStreamerError(domain: .core, code: 0, message: "cannot create pipeline", source: name)
        }
        self.init(p, transfer: .floating)
    }

    /// Parses a whole pipeline with `GST_PARSE_FLAG_FATAL_ERRORS`, so an unknown element or
    /// property is an error and never a half-built pipeline.
    public static func parse(_ description: String) async throws(GStreamerError) -> Pipeline {
        try await OffPool.run { () throws(GStreamerError) in try parse(description) }
    }

    @available(*, noasync, message: "it loads plugins under GStreamer's global lock: await the async overload, which runs off the cooperative pool")
    public static func parse(_ description: String) throws(GStreamerError) -> Pipeline {
        try Gst.initialize()
        let ctx = gst_parse_context_new()
        defer { gst_parse_context_free(ctx) }
        let e: UnsafeMutablePointer<GstElement>
        do {
            e = try withGError(source: "parse", failure: "could not parse pipeline") { err in
                gst_parse_launch_full(description, ctx, GST_PARSE_FLAG_FATAL_ERRORS, err)
            }
        } catch {
            throw error.withMissingElements(of: ctx)
        }
        if cgst_is_pipeline(e) == 0 {
            // A single element parses to that element; wrap it so callers always get a pipeline.
            let pipeline = try Pipeline(name: "pipeline")
            try pipeline.add(Element(e, transfer: .floating))
            return pipeline
        }
        return Pipeline(e, transfer: .floating)
    }

    deinit {
        bus.stop()
        gst_element_set_state(pointer, GST_STATE_NULL)
    }

    /// Runs on the system's monotonic clock, whatever its elements provide: a source's clock
    /// (PipeWire's, a microphone's) stops when its device goes, and is lost when its element
    /// leaves the pipeline.
    public func useSystemClock() {
        let clock = gst_system_clock_obtain()  // full reference; use_clock takes its own
        gst_pipeline_use_clock(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstPipeline.self), clock)
        if let clock { gst_object_unref(UnsafeMutableRawPointer(clock)) }
    }

    /// Recomputes latency after branches were added or removed (call off the streaming threads).
    @available(*, noasync, message: "it waits for the pipeline's state lock: run it in OffPool")
    public func recalculateLatency() { gst_bin_recalculate_latency(cgst_bin(pointer)) }

    /// Sets a child to NULL and removes it, under the pipeline's state lock. The pipeline's own
    /// state changes (an async sink added to a playing pipeline sets them off) and the latency
    /// walk go through the children holding each one: a child stopped and removed meanwhile came
    /// back up, or was released by the walk, and was disposed running (a crash in split
    /// recordings of one-frame parts).
    @available(*, noasync, message: "it waits for the child's streaming threads: run it in OffPool")
    public func removeStopped(_ child: Element) {
        cgst_state_lock(pointer)
        defer { cgst_state_unlock(pointer) }
        _ = try? child.setState(.null)
        gst_bin_remove(cgst_bin(pointer), child.pointer)
    }
}

extension GStreamerError {
    /// The error with the element factories the parse context found missing.
    func withMissingElements(of ctx: OpaquePointer?) -> GStreamerError {
        var e = self
        guard let missing = gst_parse_context_get_missing_elements(ctx) else { return e }
        defer { g_strfreev(missing) }
        var i = 0
        while let m = missing[i] { e.missingElements.append(String(cString: m)); i += 1 }
        return e
    }
}
