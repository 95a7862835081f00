import CV4L2
import GpickBase
import Glibc

/// Where a camera's controls are read and set: the V4L2 device itself (`V4L2ControlDevice`), or,
/// in tests and for a pasted listing, a table read from `v4l2-ctl` output. The checks in
/// `ControlResolver` see only this.
public protocol CameraControlDevice: Sendable {
    /// The camera's name in messages (its device path).
    var camera: String { get }
    func controls() throws(GpickError) -> [CameraControl]
    /// Sets the values in order.
    func set(_ values: [ResolvedControl]) throws(GpickError)
}

extension CameraControlDevice {
    /// Checks `settings` against the camera's controls, then sets them in order (automatic modes
    /// first); returns what was set. Nothing is set when any setting is refused.
    @discardableResult
    public func apply(_ settings: [ControlSetting]) throws(GpickError) -> [ResolvedControl] {
        let resolved = try ControlResolver.resolve(settings, against: try controls(), camera: camera)
        try set(resolved)
        return resolved
    }
}

/// A V4L2 device's controls, through its control ioctls (VIDIOC_QUERY_EXT_CTRL, VIDIOC_QUERYMENU,
/// VIDIOC_G/S_EXT_CTRLS). Each call opens the device and closes it: controls may be read and set
/// while another open (v4l2src's) streams.
public struct V4L2ControlDevice: CameraControlDevice {
    public let path: String
    public var camera: String { path }

    public init(path: String) { self.path = path }

    /// The control device of the camera `spec` opens; only V4L2 cameras have controls gpick sets.
    public static func of(_ spec: SourceSpec) throws(GpickError) -> V4L2ControlDevice {
        guard case .v4l2(let dev, _) = spec else {
            throw GpickError(.usage, "\(spec) has no controls gpick can set: it sets them on V4L2 cameras (v4l2:/dev/videoN)")
        }
        return V4L2ControlDevice(path: dev)
    }

    static let kinds: [UInt32: CameraControl.Kind] = [1: .int, 2: .bool, 3: .menu, 4: .button, 5: .int64, 7: .string, 8: .bitmask, 9: .intmenu]

    @available(*, noasync, message: "it opens the device: run it off the cooperative pool")
    public func controls() throws(GpickError) -> [CameraControl] {
        try withDevice { fd throws(GpickError) -> [CameraControl] in
            var out: [CameraControl] = []
            var after: UInt32 = 0
            var c = cv4l2_control()
            while cv4l2_next_control(fd, after, &c) == 0 {
                after = c.id
                guard let kind = Self.kinds[c.type] else { continue }  // control classes, compound controls
                let description = withUnsafeBytes(of: c.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                var control = CameraControl(name: CameraControl.kernelName(description), id: c.id, kind: kind, minimum: c.minimum,
                                            maximum: c.maximum, step: Int64(clamping: c.step), defaultValue: c.default_value,
                                            flags: Self.flags(c.flags))
                var value: Int64 = 0
                if kind != .button, kind != .string, cv4l2_get(fd, c.id, c.type, &value) == 0 { control.value = value }
                if kind == .menu || kind == .intmenu, c.minimum >= 0, c.maximum < 256 {
                    for i in c.minimum...c.maximum {
                        var name = [CChar](repeating: 0, count: 64)
                        if cv4l2_menu_entry(fd, c.id, c.type, UInt32(i), &name, Int32(name.count)) == 0 {
                            control.menu.append(.init(index: i, name: String(cString: name)))
                        }
                    }
                }
                out.append(control)
            }
            return out
        }
    }

    @available(*, noasync, message: "it opens the device: run it off the cooperative pool")
    public func set(_ values: [ResolvedControl]) throws(GpickError) {
        try withDevice { fd throws(GpickError) in
            for r in values {
                guard let id = r.control.id else { throw GpickError(.runtime, "\(r.control.name) of camera \(path) has no id to set it by") }
                let type = Self.kinds.first { $0.value == r.control.kind }?.key ?? 1
                guard cv4l2_set(fd, id, type, r.value) == 0 else {
                    let e = errno
                    throw GpickError(.device, "cannot set \(r.control.name) to \(r.value) on camera \(path): \(String(cString: strerror(e)))")
                }
            }
        }
    }

    static func flags(_ f: UInt32) -> [String] {
        [(0x1, "disabled"), (0x4, "read-only"), (0x10, "inactive"), (0x20, "slider"), (0x40, "write-only"), (0x80, "volatile")]
            .filter { f & $0.0 != 0 }.map(\.1)
    }

    private func withDevice<R>(_ body: (Int32) throws(GpickError) -> R) throws(GpickError) -> R {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            throw GpickError(.device, e == ENOENT ? "no such camera: \(path)" : "cannot open camera \(path): \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        return try body(fd)
    }
}

/// A camera's controls as a pasted `v4l2-ctl` listing gives them; `set` records what would be set.
public final class ListedControlDevice: CameraControlDevice, @unchecked Sendable {
    public let camera: String
    private let listed: [CameraControl]
    private let written = Locked<[(String, Int64)]>([])

    public init(camera: String, controls: [CameraControl]) {
        self.camera = camera
        listed = controls
    }

    public func controls() throws(GpickError) -> [CameraControl] { listed }

    public func set(_ values: [ResolvedControl]) throws(GpickError) { written.withLock { $0 += values.map { ($0.control.name, $0.value) } } }

    /// What was set, in order: kernel name and value.
    public var writes: [(name: String, value: Int64)] { written.withLock { $0.map { ($0.0, $0.1) } } }
}
