import GstCore

/// A camera one of GStreamer's device providers knows, and how gpick opens it.
public struct Camera: Sendable {
    /// How the camera is reached: the three ways Linux shares cameras.
    public enum Kind: String, Sendable, CaseIterable {
        /// A PipeWire node: how desktops, browsers and Flatpak apps share a camera.
        case pipewire
        /// libcamera: Raspberry Pi camera modules and recent laptops' MIPI cameras.
        case libcamera
        /// A V4L2 device file (/dev/videoN), opened directly.
        case v4l2

        /// The element that opens it.
        public var factory: String {
            switch self {
            case .pipewire: "pipewiresrc"
            case .libcamera: "libcamerasrc"
            case .v4l2: "v4l2src"
            }
        }

        /// The device provider that lists cameras of this kind.
        var provider: String {
            switch self {
            case .pipewire: "pipewiredeviceprovider"
            case .libcamera: "libcameraprovider"
            case .v4l2: "v4l2deviceprovider"
            }
        }

        /// What a user reads: "PipeWire", "libcamera", "V4L2".
        public var title: String {
            switch self {
            case .pipewire: "PipeWire"
            case .libcamera: "libcamera"
            case .v4l2: "V4L2"
            }
        }

        init?(factory: String?) {
            guard let k = Kind.allCases.first(where: { $0.factory == factory }) else { return nil }
            self = k
        }
    }

    /// Whether this user can open the camera, judged the way its kind is shared.
    public enum Access: Sendable, Equatable {
        case ok
        /// It cannot be opened: why, and what fixes it when something can.
        case denied(String, fix: String?)
        /// Not checked (listing is cheap; checking a PipeWire node connects to it).
        case unchecked

        public var isOK: Bool { self == .ok }
    }

    public var kind: Kind
    /// The name the provider gives ("Test Camera", "HD Webcam: HD Webcam").
    public var name: String
    /// The `--source` that opens it.
    public var source: SourceSpec
    /// What the device can deliver, as its provider reports it (ranges kept).
    public var formats: [CapsStructure]
    public var access: Access
    /// Identifying properties: a PipeWire node's name and serial, a V4L2 device path.
    public var properties: [String: String]

    public init(kind: Kind, name: String, source: SourceSpec, formats: [CapsStructure] = [], access: Access = .unchecked,
                properties: [String: String] = [:]) {
        self.kind = kind
        self.name = name
        self.source = source
        self.formats = formats
        self.access = access
        self.properties = properties
    }

    /// The camera a provider's device is, or nil for a device of another kind.
    init?(_ device: DeviceInfo) {
        guard let kind = Kind(factory: device.factory) else { return nil }
        self.kind = kind
        name = device.name
        formats = device.formats
        access = .unchecked
        properties = device.properties
        switch kind {
        case .pipewire:
            // The node's name is stable while the daemon runs on (a serial is never reused, but
            // changes each time the node is made); either selects it in pipewiresrc.
            guard let target = device.properties["node.name"] ?? device.properties["object.serial"]
                    ?? device.selectors["target-object"] else { return nil }
            source = .pipewire(target: target)
        case .libcamera:
            source = .libcamera(name: device.selectors["camera-name"] ?? device.name)
        case .v4l2:
            guard let path = device.selectors["device"] ?? device.path else { return nil }
            source = .v4l2(device: path)
        }
    }

    /// Whether `text` names this camera: its source text, node name, serial, id, path or name.
    func isNamed(_ text: String) -> Bool {
        let names = [source.target, name, properties["node.name"], properties["object.serial"],
                     properties["object.id"], properties["node.description"], properties["api.v4l2.path"]]
        return names.contains { $0 == text }
    }
}
