import CVips
import GpickBase
import GpickFormats

/// The pictures a file carries besides its main image, as gpick's own readers find them: a
/// HEIF's thumbnail items (which libvips decodes instead of a 200 MP image when one covers the
/// box) and a camera RAW file's JPEG previews (gpick decodes no sensor data); and the HEIF grid
/// too large to decode whole, decoded tile by tile.
enum EmbeddedPictures {
    /// The thumbnail of a file libvips alone would not make, or not within `limits`: a RAW file's
    /// preview, a HEIF grid whose whole decode would exceed them and whose own thumbnail is too
    /// small for the box. nil: libvips' own thumbnail is the way.
    @available(*, noasync, message: "it decodes: run it off the cooperative pool")
    static func thumbnail(fd: Int32, name: String, box: ImageBox, limits: DecodeLimits,
                          metadata: MediaMetadata?) throws(GpickError) -> (picture: VipsPicture, header: ImageHeader)? {
        guard let meta = metadata, let w = meta.width, let h = meta.height else { return nil }
        let upright = meta.uprightSize ?? (w, h)
        func header(_ loader: String) -> ImageHeader {
            ImageHeader(width: upright.width, height: upright.height, orientation: meta.orientation ?? 1, loader: loader,
                        mimeType: meta.mimeType, storedWidth: w, storedHeight: h, bands: 3, bytesPerBand: 1, decodesWhole: false)
        }
        if meta.container == .raw {
            return (try rawPreview(meta, fd: fd, name: name, box: box, limits: limits), header("gpick RAW preview"))
        }
        guard meta.container == .heif, w * h * 3 * 5 / 2 > limits.maxWholeImageBytes || w * h > limits.maxDecodedPixels else { return nil }
        // libvips uses a thumbnail item that covers the box: that is faster still.
        let needed = Double(max(box.width, box.height))
        if thumbnailSizes(meta).contains(where: { Double(max($0.width, $0.height)) > needed }) { return nil }
        guard let grid = try HEIFGrid.read(FileBytes(fd: fd, path: name)) else { return nil }
        let k = HEIFTiles.factor(grid, box: box)
        let shrunk = try DecodeBudget.shared.run(cost: grid.width / k * (grid.height / k) * 3) { () throws(GpickError) in
            try HEIFTiles.picture(grid, fd: fd, name: name, factor: k, limits: limits)
        }
        return (try shrunk.scaled(to: box), header("gpick HEIF tiles"))
    }

    /// The file's metadata from its headers, for the files whose embedded pictures matter: camera
    /// RAW (TIFF-based, ORF, RW2, RAF, CR3) and HEIF or AVIF (grids, thumbnail items). nil for
    /// the others (a JPEG's, PNG's or WebP's headers would be parsed for nothing, on every
    /// thumbnail) and when gpick's readers do not know the file (libvips may).
    static func read(fd: Int32, name: String) -> MediaMetadata? {
        // The reader reads with pread: the descriptor's offset, which libvips uses, stays put.
        guard let bytes = try? FileBytes(fd: fd, path: name), let head = try? bytes.read(at: 0, count: 16),
              mayEmbedPictures(head) else { return nil }
        return try? MetadataReader.read(bytes)
    }

    /// TIFF's and the TIFF-like RAWs' magic, Fujifilm's, or an ISO BMFF `ftyp` (HEIF, AVIF, CR3).
    static func mayEmbedPictures(_ head: [UInt8]) -> Bool {
        let magics = ["II*\0", "MM\0*", "IIRO", "IIRS", "MMOR", "IIU\0", "FUJIFILMCCD-RAW"].map { Array($0.utf8) }
        if magics.contains(where: { head.starts(with: $0) }) { return true }
        return head.count >= 8 && Array(head[4..<8]) == Array("ftyp".utf8)
    }

    static func thumbnailSizes(_ meta: MediaMetadata) -> [(width: Int, height: Int)] {
        guard meta.container == .heif || meta.container == .avif else { return [] }
        return meta.images.filter { $0.role == .thumbnail }.compactMap { i in
            guard let w = i.width, let h = i.height else { return nil }
            return (w, h)
        }
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
