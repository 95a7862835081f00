import CVips
import GpickBase
import GpickFormats
import GstCore
import Glibc

/// One thumbnail of one file, as `gpick thumb` makes it: a photo scaled into a box (upright by
/// its EXIF orientation; a Motion Photo's primary image; a live photo's still), or a frame of a
/// video about a third in, past black frames. Not the freedesktop cache (`ThumbnailCache`): the
/// picture goes wherever the caller writes it, in the format it asks for.
public struct ThumbnailRequest: Sendable {
    /// What the file holds.
    public enum Content: String, Sendable, Equatable {
        case still = "photo", video
    }

    public var path: String
    public var box: ImageBox
    /// What the file is, when the caller knows (the library's index says); nil: told by its
    /// content, never by its name.
    public var content: Content?
    public var limits: DecodeLimits
    /// How long a video may take to give a frame.
    public var videoTimeout: Double
    /// What gpick's readers found in the file, when the caller has read it already (`inspect`
    /// has); nil: read here when it matters (RAW previews, HEIF grids and thumbnail items).
    public var metadata: MediaMetadata?

    public init(path: String, box: ImageBox, content: Content? = nil, limits: DecodeLimits = DecodeLimits(),
                videoTimeout: Double = 10, metadata: MediaMetadata? = nil) {
        self.path = path
        self.box = box
        self.content = content
        self.limits = limits
        self.videoTimeout = videoTimeout
        self.metadata = metadata
    }

    /// The picture (8-bit sRGB, 3 or 4 bands), off the cooperative pool, a core's worth of decodes
    /// at a time.
    public func make() async throws(GpickError) -> (picture: VipsPicture, content: Content) {
        let request = self
        return try await DecodeGate.shared.run { () async throws(GpickError) in
            try await OffPool.run { () throws(GpickError) in try request.makeNow() }
        }
    }

    /// The same, blocking: it decodes, and a video waits for GStreamer.
    @available(*, noasync, message: "it decodes: await make() from async code")
    public func makeNow() throws(GpickError) -> (picture: VipsPicture, content: Content) {
        let file = try OpenFile(path)
        let name = path
        let box = box, limits = limits
        if content != .video {
            // A camera RAW file's preview, as digiKam and tumbler show it; a HEIF grid too large
            // to decode whole, tile by tile.
            let embedded = metadata ?? EmbeddedPictures.read(fd: file.fd, name: name)
            if let made = try EmbeddedPictures.thumbnail(fd: file.fd, name: name, box: box, limits: limits, metadata: embedded) {
                return (try made.picture.srgb8(subject: name), .still)
            }
            let thumbnails = embedded.map(EmbeddedPictures.thumbnailSizes) ?? []
            // One libvips source for both the question and the decode: what is asked about is
            // what is decoded. nil: no loader of ours reads it.
            let still = try Vips.reading(FileBytes(fd: file.fd, path: name)) { () throws(GpickError) in try StillImage.withSource(fd: file.fd, name: name) { source throws(GpickError) -> VipsPicture? in
                guard content == .still || cvips_foreign_find_load_source(source) != nil else {
                    let detail = Vips.takeErrorText()
                    // A still's first bytes, but no loader takes it: its header is cut or damaged.
                    if MetadataReader.looksLikeStill(path: name) {
                        throw GpickError(.input, "cannot read \(name): the file is truncated or damaged (its header cannot be read)",
                                         detail: detail)
                    }
                    return nil
                }
                return try StillImage.thumbnail(source: source, name: name, box: box, limits: limits, thumbnails: thumbnails) { () throws(GpickError) in
                    try PNGChecksums.verify(fd: file.fd, name: name)
                }.picture
            } }
            if let still { return (try still.srgb8(subject: name), .still) }
            try Self.requireVideo(fd: file.fd, name: name)
        }
        let poster = try VideoFrames.poster(path: path, box: box, timeout: videoTimeout)
        // Frames come as RGBA with nothing transparent: the alpha band would only cost bytes.
        let picture = poster.picture.hasAlpha
            ? try poster.picture.derive("cannot use", subject: "the video frame") { cvips_extract_bands($0, $1, 0, 3) }
            : poster.picture
        return (picture, .video)
    }

    /// GStreamer's typefinders on the file's first bytes: a container or stream with video goes
    /// on to the video path; anything else is refused here, in the user's terms (a text file is
    /// not "missing a decoder").
    static func requireVideo(fd: Int32, name: String) throws(GpickError) {
        let head = try FileBytes(fd: fd, path: name).read(at: 0, count: 64 << 10)
        let found = TypeFind.identify(head)
        if let type = found?.mediaType, type.hasPrefix("video/") || ["application/ogg", "application/mxf"].contains(type) {
            return
        }
        let seen = found.map { " (it looks like \($0.description.map { "\($0), " } ?? "")\($0.mediaType))" } ?? ""
        throw GpickError(.input, "cannot read \(name): not an image or video format gpick reads\(seen)")
    }
}

/// The formats a thumbnail can be written in, chosen by the output's name.
public enum ThumbnailFormat: String, Sendable, CaseIterable {
    case png, jpeg, webp

    /// `.png`, `.jpg`/`.jpeg`, `.webp`, in any case; nil for any other name.
    public init?(fileName: String) {
        switch fileName.filenameExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        default: return nil
        }
    }

    /// How a usage message lists them.
    public static let extensions = ".png, .jpg, .jpeg or .webp"
}

extension VipsPicture {
    /// 8-bit sRGB, keeping alpha when there is one (grey, 16-bit and CMYK sources converted).
    func srgb8(subject: String) throws(GpickError) -> VipsPicture {
        var image = self
        if cvips_image_get_interpretation(pointer) != VIPS_INTERPRETATION_sRGB || image.bands < 3 {
            image = try image.derive("cannot convert", subject: subject) { cvips_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
        }
        if cvips_image_get_format(image.pointer) != VIPS_FORMAT_UCHAR {
            image = try image.derive("cannot convert", subject: subject) { cvips_cast($0, $1, VIPS_FORMAT_UCHAR) }
        }
        if image.bands > 4 {
            image = try image.derive("cannot convert", subject: subject) { cvips_extract_bands($0, $1, 0, 4) }
        }
        return image
    }

    /// The picture encoded as `format`, with no metadata (no EXIF, XMP or ICC: the pixels are
    /// upright sRGB already). JPEG has no alpha: transparency is flattened onto white.
    public func encoded(as format: ThumbnailFormat) throws(GpickError) -> [UInt8] {
        try Vips.start()
        var image = try srgb8(subject: "the thumbnail")
        var buffer: UnsafeMutableRawPointer? = nil
        var length = 0
        let status: Int32
        switch format {
        case .png:
            status = cvips_pngsave_buffer(image.pointer, &buffer, &length, 6)
        case .jpeg:
            if image.hasAlpha {
                let white = [255.0, 255.0, 255.0]
                let background = white.withUnsafeBufferPointer { cvips_array_double_new($0.baseAddress, 3) }
                defer { cvips_array_double_unref(background) }
                image = try image.derive("cannot encode", subject: "the thumbnail") { cvips_flatten($0, $1, background) }
                if cvips_image_get_format(image.pointer) != VIPS_FORMAT_UCHAR {
                    image = try image.derive("cannot encode", subject: "the thumbnail") { cvips_cast($0, $1, VIPS_FORMAT_UCHAR) }
                }
            }
            status = cvips_jpegsave_buffer(image.pointer, &buffer, &length, 85)
        case .webp:
            status = cvips_webpsave_buffer(image.pointer, &buffer, &length, 80)
        }
        defer { g_free(buffer) }
        try Vips.check(status, "cannot encode", subject: "the thumbnail as \(format.rawValue.uppercased())", kind: .runtime)
        guard let buffer, length > 0 else { throw GpickError(.runtime, "cannot encode the thumbnail: no data") }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
