import GpickBase

/// One way to ask any image for a picture of a given size (after Paparazzo's ImageSource):
/// a file, an http(s) URL, an asset of the library, or the live frame of a capture session. Code
/// that shows pictures of any source (`gpick thumb`, avatars and their editor) has no branch per
/// kind of source. The picker's grids show only library assets and captures, straight from the
/// freedesktop cache (`ThumbnailCache`): the page is sent the cache's PNG files as they are, for
/// the browser to decode, which a decoded picture from here would only have to re-encode.
///
/// The rules every source keeps:
/// - `.best` yields exactly one result, never degraded, or throws;
/// - `.progressive` may first yield cheap degraded results (an EXIF thumbnail, a cached
///   thumbnail of another size, a smaller cached copy of a URL), then exactly one final one;
/// - once the task iterating the results is cancelled, nothing more is delivered: the sequence
///   ends (Paparazzo's rule, not Photos': no "cancelled" result comes);
/// - `fit` stays inside the box keeping the aspect ratio, `fill` covers it exactly, cropped around
///   the centre; neither distorts, and a photo is upright by its EXIF orientation.
public protocol ImageSource: Sendable {
    /// Pictures for `request`, as they come (see the rules above).
    func image(_ request: ImageRequest) -> ImageResults

    /// The original bytes, as they are stored or served (a photo's file, a URL's body).
    func fullResolutionData() async throws(GpickError) -> [UInt8]

    /// The picture's size as shown (after EXIF orientation), read from headers: nothing decoded.
    func size() async throws(GpickError) -> PixelSize

    /// What errors and events call it: a path, a URL, `asset:ID`, `camera`.
    var name: String { get }
}

/// A width and a height in pixels.
public struct PixelSize: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height)" }
}

/// What to ask an image for.
public struct ImageRequest: Sendable, Equatable {
    public enum Size: Sendable, Equatable {
        /// Inside the box, aspect ratio kept (never enlarged).
        case fit(width: Int, height: Int)
        /// Covering the box exactly, cropped around the centre.
        case fill(width: Int, height: Int)
        /// The whole picture at its own size (upright), within the decode limits.
        case fullResolution
    }

    public enum Delivery: String, Sendable, Equatable {
        /// One result, the final one.
        case best
        /// Cheap degraded results first, when there are any, then the final one.
        case progressive
    }

    public var size: Size
    public var delivery: Delivery
    public var limits: DecodeLimits

    public init(size: Size, delivery: Delivery = .best, limits: DecodeLimits = DecodeLimits()) {
        self.size = size
        self.delivery = delivery
        self.limits = limits
    }

    /// The box a picture of `shown` pixels goes into (`fullResolution`: its own size).
    func box(for shown: PixelSize? = nil) -> ImageBox {
        switch size {
        case .fit(let w, let h): ImageBox(width: w, height: h, mode: .fit)
        case .fill(let w, let h): ImageBox(width: w, height: h, mode: .fill)
        case .fullResolution: ImageBox(width: shown?.width ?? 10_000_000, height: shown?.height ?? 10_000_000, mode: .fit)
        }
    }

    /// The longest side asked for; nil for the full resolution.
    var longSide: Int? {
        switch size {
        case .fit(let w, let h), .fill(let w, let h): max(w, h)
        case .fullResolution: nil
        }
    }
}

/// One picture delivered for a request.
public struct ImageResult: Sendable {
    /// 8-bit sRGB, upright, sized as the request asked (a degraded one is sized the same, from
    /// less detail).
    public let picture: VipsPicture
    /// A stand-in, to show until the final picture comes.
    public let degraded: Bool
    /// Where a picture came from (events name it by the raw value).
    public enum Origin: String, Sendable, CaseIterable {
        /// The thumbnail a camera wrote into the file's EXIF.
        case exifThumbnail = "exif-thumbnail"
        /// The freedesktop thumbnail cache.
        case cachedThumbnail = "cached-thumbnail"
        /// A URL's copy, kept from an earlier fetch.
        case cachedCopy = "cached-copy"
        case decoded
        case fetched
        case cameraFrame = "camera-frame"
        /// A video's poster frame.
        case videoFrame = "video-frame"
    }

    public let origin: Origin

    public init(picture: VipsPicture, degraded: Bool, origin: Origin) {
        self.picture = picture
        self.degraded = degraded
        self.origin = origin
    }
}
