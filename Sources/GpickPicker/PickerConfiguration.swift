import GpickBase
import GpickImages
import GpickKit
import GpickLibrary

/// What a picker shows and does (capture settings, layout configuration and fetch
/// result, in Swift style). Checked up front by `validate()`: a bad value is a typed error, never
/// a crash halfway through.
public struct PickerConfiguration: Sendable {
    public enum CameraMode: String, Sendable, CaseIterable {
        case photo
        /// Live photos on offer (the `l` key or button); they need the pre-roll ring.
        case photoAndLive = "photo-and-live"
    }

    public enum ScrollDirection: String, Sendable, CaseIterable {
        case vertical
        /// A keyboard-like strip: rows of `itemsPerRow`, scrolled sideways.
        case horizontal
    }

    public struct Capture: Sendable {
        public var cameraMode = CameraMode.photo
        /// Captures also go into the library (imported, indexed); otherwise into `outputDirectory`.
        public var savesToLibrary = false
        public var outputDirectory = "."
        public var session = SessionConfiguration()
        public var livePhoto = LivePhotoSettings()
        /// Seconds at which a video taken in the picker stops by itself and joins the grid, as a
        /// stopped one does (UIImagePickerController's `videoMaximumDuration`, and its default
        /// of ten minutes).
        public var videoMaximumDuration: Double = 600
        public static let videoDurationRange = 1.0...86_400
        public init() {}
    }

    public struct Layout: Sendable {
        /// The camera cell. Off: the camera is never opened (no device touched, no warm-up).
        public var showsCamera = true
        /// Up to 2 action items, shown first; choosing one ends the picker with its name.
        public var actions: [String] = []
        /// Items per row (per column when scrolling sideways).
        public var itemsPerRow = 4
        public var scroll = ScrollDirection.vertical
        public init() {}
    }

    public var capture = Capture()
    public var layout = Layout()
    /// Theme, accent, spacing, insets and a user stylesheet.
    public var appearance = Appearance()
    /// Which assets: recents, newest first, at most 1000 unless told.
    public var fetch = AssetQuery()
    public var allowsMultiple = false
    /// The library's index file and folders.
    public var indexPath: String
    public var roots: MediaRoots
    public var thumbnails: ThumbnailCache
    /// Page title.
    public var title = "gpick pick"
    /// How problems are put to the user (see `PickerProblem`).
    public var words: @Sendable (PickerProblem) -> String = PickerProblem.plainWords

    public init(indexPath: String, roots: MediaRoots, thumbnails: ThumbnailCache) {
        self.indexPath = indexPath
        self.roots = roots
        self.thumbnails = thumbnails
    }

    public static let maxActions = 2

    public func validate() throws(GpickError) {
        guard layout.itemsPerRow >= 1 else {
            throw GpickError(.usage, "items per row must be 1 or more, not \(layout.itemsPerRow)")
        }
        guard layout.itemsPerRow <= 50 else {
            throw GpickError(.usage, "items per row must be 50 or fewer, not \(layout.itemsPerRow)")
        }
        guard layout.actions.count <= Self.maxActions else {
            throw GpickError(.usage, "at most \(Self.maxActions) action items, not \(layout.actions.count)")
        }
        for name in layout.actions {
            guard !name.isEmpty, name.count <= 40, name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw GpickError(.usage, "action name \"\(name)\" must be 1…40 printable characters")
            }
        }
        if Set(layout.actions).count != layout.actions.count {
            throw GpickError(.usage, "action names must differ: \(layout.actions.joined(separator: ", "))")
        }
        try appearance.validate()
        guard fetch.limit >= 0 else { throw GpickError(.usage, "the asset limit must be 0 or more, not \(fetch.limit)") }
        if layout.showsCamera && !capture.savesToLibrary {
            guard isDirectory(capture.outputDirectory) == true else {
                throw GpickError(.usage, "the output folder \(capture.outputDirectory) is not a folder")
            }
        }
        if layout.showsCamera {
            try capture.session.format.validate()
            if capture.cameraMode == .photoAndLive { try capture.livePhoto.validate() }
            guard Capture.videoDurationRange.contains(capture.videoMaximumDuration) else {
                throw GpickError(.usage, cFormat("the longest video must be 1 s…24 h, not %g s", capture.videoMaximumDuration))
            }
        }
    }
}
