import CVips
import GpickBase
import GpickFormats

/// The pictures a file carries besides its main image, as gpick's own readers find them: a
/// HEIF's thumbnail items (which libvips decodes instead of a 200 MP image when one covers the
/// box) and a camera RAW file's JPEG previews (gpick decodes no sensor data).
enum EmbeddedPictures {
    /// The file's metadata from its headers; nil when gpick's readers do not know it (libvips may).
    static func read(fd: Int32, name: String) -> MediaMetadata? {
        guard let bytes = try? FileBytes(fd: fd, path: name) else { return nil }
        return try? MetadataReader.read(bytes)
    }

    static func thumbnailSizes(_ meta: MediaMetadata) -> [(width: Int, height: Int)] {
        guard meta.container == .heif || meta.container == .avif else { return [] }
        return meta.images.filter { $0.role == .thumbnail }.compactMap { i in
            guard let w = i.width, let h = i.height else { return nil }
            return (w, h)
        }
    }

    static func thumbnailSizes(fd: Int32, name: String) -> [(width: Int, height: Int)] {
        read(fd: fd, name: name).map(thumbnailSizes) ?? []
    }

    /// A RAW file's picture for `box`: the smallest preview that covers it, else the largest,
    /// turned upright by the RAW file's orientation unless the preview carries its own (RW2's and
    /// RAF's previews are whole JPEGs with EXIF; the TIFF-embedded ones have none).
    @available(*, noasync, message: "it decodes: run it off the cooperative pool")
    static func rawPreview(_ meta: MediaMetadata, fd: Int32, name: String, box: ImageBox, limits: DecodeLimits) throws(GpickError) -> VipsPicture {
        let previews = meta.images.filter { $0.role != .primary && $0.bytes != nil && $0.mimeType == "image/jpeg" }
        let longest = max(box.width, box.height)
        let chosen = previews.filter { max($0.width ?? 0, $0.height ?? 0) >= longest }
            .min { ($0.width ?? 0) * ($0.height ?? 0) < ($1.width ?? 0) * ($1.height ?? 0) }
            ?? previews.max { ($0.width ?? 0) * ($0.height ?? 0) < ($1.width ?? 0) * ($1.height ?? 0) }
        guard let chosen, let range = chosen.bytes else {
            throw GpickError(.input, "cannot read \(name): this camera RAW file holds no JPEG preview (gpick shows RAW files by their previews)")
        }
        let jpeg = try FileBytes(fd: fd, path: name).read(at: range.offset, count: range.length)
        guard jpeg.count == range.length else { throw GpickError(.input, "cannot read \(name): its preview is cut short (a truncated file?)") }
        let ownOrientation = (try? MetadataReader.read(MemoryBytes(jpeg)))?.orientation ?? 1
        let turn = ownOrientation == 1 ? (meta.orientation ?? 1) : 1
        // The box as the preview is stored: a quarter turn swaps its sides.
        let stored = turn >= 5 ? ImageBox(width: box.height, height: box.width, mode: box.mode, enlarge: box.enlarge) : box
        let picture = try StillImage.thumbnail(data: jpeg, name: name, box: stored, limits: limits)
        guard (2...8).contains(turn) else { return picture }
        cvips_image_set_int(picture.pointer, "orientation", Int32(turn))
        return try picture.derive("cannot turn", subject: name) { cvips_autorot($0, $1) }
    }
}
