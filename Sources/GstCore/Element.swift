import CGStreamer
import GpickBase

/// A reference-counted GstElement.
///
/// `@unchecked Sendable` invariant: the wrapper owns exactly one GStreamer reference for its whole
/// life and never mutates the pointer; GstObject refcounting, property access and state changes are
/// thread-safe in GStreamer.
public class Element: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstElement>

    public init(_ pointer: UnsafeMutablePointer<GstElement>, transfer: Transfer) {
        self.pointer = pointer
        switch transfer {
        case .floating, .none:
            // ref_sink sinks a floating ref, or adds a ref when there is none to sink.
            gst_object_ref_sink(UnsafeMutableRawPointer(pointer))
        case .full:
            break
        }
    }

    /// An element another C library hands over untyped (gst-rtsp-server's shim keeps GStreamer's
    /// types out of its header): we take a reference of our own.
    public convenience init(borrowing raw: UnsafeMutableRawPointer) {
        self.init(raw.assumingMemoryBound(to: GstElement.self), transfer: .none)
    }

    deinit {
        gst_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// Creates an element from a factory (`gst_element_factory_make`, floating → sunk).
    public static func make(_ factory: String, name: String? = nil) throws(GStreamerError) -> Element {
        try Gst.initialize()
        guard let e = gst_element_factory_make(factory, name) else {
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_MISSING_PLUGIN.rawValue),
                                 message: "no element \"\(factory)\"", source: factory)
        }
        return Element(e, transfer: .floating)
    }

    public var name: String { cgst_object_name(pointer).map { String(cString: $0) } ?? "" }

    /// Renames the element; only valid before it is added to a bin.
    public func setName(_ name: String) { _ = gst_object_set_name(cgst_object(pointer), name) }
    public var factoryName: String? { cgst_element_factory_name(pointer).map { String(cString: $0) } }

    var object: UnsafeMutablePointer<GObject> { cgst_gobject(pointer) }

    // MARK: state

    /// Changes state off the cooperative pool (a state change waits for streaming threads).
    @discardableResult
    public func setState(_ state: ElementState) async throws(GStreamerError) -> StateChange {
        try await OffPool.run { () throws(GStreamerError) in try self.setState(state) }
    }

    @discardableResult
    @available(*, noasync, message: "it waits for streaming threads: await the async overload, which runs off the cooperative pool")
    public func setState(_ state: ElementState) throws(GStreamerError) -> StateChange {
        let r = gst_element_set_state(pointer, state.c)
        switch r {
        case GST_STATE_CHANGE_FAILURE:
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_STATE_CHANGE.rawValue),
                                 message: "could not change state to \(state)", source: name)
        case GST_STATE_CHANGE_ASYNC: return .async
        case GST_STATE_CHANGE_NO_PREROLL: return .noPreroll
        default: return .success
        }
    }

    /// Tries `state` on an element that is in no bin (a sink about to be chosen), then returns it to
    /// NULL. A refusal throws the element's own error (it is posted on a bus of the probe's own),
    /// e.g. "Could not open display" or "Could not initialise Xv output".
    public func probeState(_ state: ElementState) throws(GStreamerError) {
        let bus = gst_bus_new()!
        gst_element_set_bus(pointer, bus)
        defer {
            gst_element_set_state(pointer, GST_STATE_NULL)
            gst_element_set_bus(pointer, nil)
            gst_object_unref(UnsafeMutableRawPointer(bus))
        }
        guard gst_element_set_state(pointer, state.c) == GST_STATE_CHANGE_FAILURE else { return }
        if let m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) {
            defer { cgst_message_unref(m) }
            if case .error(let e)? = BusMessage(m) { throw e }
        }
        throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_STATE_CHANGE.rawValue),
                             message: "could not change state to \(state)", source: name)
    }

    /// Brings a child's state to its parent's (after adding it to a running bin), off the pool.
    public func syncStateWithParent() async throws(GStreamerError) {
        try await OffPool.run { () throws(GStreamerError) in try self.syncStateWithParent() }
    }

    @available(*, noasync, message: "it waits for streaming threads: await the async overload, which runs off the cooperative pool")
    public func syncStateWithParent() throws(GStreamerError) {
        if gst_element_sync_state_with_parent(pointer) == 0 {
            throw GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_STATE_CHANGE.rawValue),
                                 message: "could not sync state with parent", source: name)
        }
    }

    // MARK: pads and links

    /// A static pad (transfer full).
    public func staticPad(_ name: String) -> Pad? {
        gst_element_get_static_pad(pointer, name).map { Pad($0, transfer: .full) }
    }

    /// A request pad from a pad template like "src_%u" (transfer full; release with `releaseRequestPad`).
    public func requestPad(_ template: String) -> Pad? {
        gst_element_request_pad_simple(pointer, template).map { Pad($0, transfer: .full) }
    }

    public func releaseRequestPad(_ pad: Pad) {
        gst_element_release_request_pad(pointer, pad.pointer)
    }

    /// The element's running time now (its clock's time less its base time), nil without a clock
    /// (before it first plays).
    public var currentRunningTime: UInt64? {
        let t = UInt64(gst_element_get_current_running_time(pointer))
        return t == Gst.clockTimeNone ? nil : t
    }

    /// The running time now, only once the element is PLAYING. A bin going to PLAYING hands
    /// its children the clock before their base time: in between, "now less base time" is the
    /// clock's own time (the machine's uptime), which stamped as running time would put frames
    /// hours in the future.
    public var playingRunningTime: UInt64? {
        guard cgst_element_current_state(pointer) == GST_STATE_PLAYING else { return nil }
        return currentRunningTime
    }

    @discardableResult
    public func sendEvent(_ event: Event) -> Bool {
        gst_element_send_event(pointer, event.take()) != 0
    }

    /// Posts an ERROR message from this element, as `GST_ELEMENT_ERROR` would.
    public func postError(_ code: ResourceErrorCode, message: String, debug: String) {
        cgst_post_error(pointer, cgst_resource_error_quark(), Int32(code.c.rawValue), message, debug)
    }

    /// The element's clock's running time (now − base time), or nil before PLAYING.
    public var runningTime: UInt64? {
        guard let clock = gst_element_get_clock(pointer) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        let now = UInt64(gst_clock_get_time(clock))
        let base = UInt64(gst_element_get_base_time(pointer))
        return now >= base ? now - base : 0
    }
}

public enum ElementState: Sendable, CustomStringConvertible {
    case voidPending, null, ready, paused, playing

    init(_ s: GstState) {
        switch s {
        case GST_STATE_NULL: self = .null
        case GST_STATE_READY: self = .ready
        case GST_STATE_PAUSED: self = .paused
        case GST_STATE_PLAYING: self = .playing
        default: self = .voidPending
        }
    }

    var c: GstState {
        switch self {
        case .voidPending: GST_STATE_VOID_PENDING
        case .null: GST_STATE_NULL
        case .ready: GST_STATE_READY
        case .paused: GST_STATE_PAUSED
        case .playing: GST_STATE_PLAYING
        }
    }

    public var description: String {
        switch self {
        case .voidPending: "VOID_PENDING"
        case .null: "NULL"
        case .ready: "READY"
        case .paused: "PAUSED"
        case .playing: "PLAYING"
        }
    }
}

public enum StateChange: Sendable { case success, async, noPreroll }

/// The resource error codes an application may post itself.
public enum ResourceErrorCode: Sendable {
    case read, notFound, busy, noSpaceLeft
    var c: GstResourceError {
        switch self {
        case .read: GST_RESOURCE_ERROR_READ
        case .notFound: GST_RESOURCE_ERROR_NOT_FOUND
        case .busy: GST_RESOURCE_ERROR_BUSY
        case .noSpaceLeft: GST_RESOURCE_ERROR_NO_SPACE_LEFT
        }
    }
}
