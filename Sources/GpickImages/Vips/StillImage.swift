import CVips
import GpickBase
import GpickFormats
import Glibc

/// What an image file's header says, read without decoding a pixel.
public struct ImageHeader: Sendable, Equatable {
    /// The size as shown, after the EXIF orientation (a portrait photo stored sideways is tall).
    public var width: Int
    public var height: Int
    /// EXIF orientation, 1–8 (1 when there is none).
    public var orientation: Int
    /// The libvips loader that reads it ("VipsForeignLoadJpegSource").
    public var loader: String
    public var mimeType: String?
    /// What a full decode would hold in memory.
    var storedWidth: Int
    var storedHeight: Int
    var bands: Int
    var bytesPerBand: Int
    /// Whether the loader must decode the whole picture into memory before scaling (interlaced
    /// PNG, HEIF, GIF), rather than stream it in strips.
    var decodesWhole: Bool

    public var pixels: Int { storedWidth * storedHeight }
}

/// Bounds on what a decode may cost, checked on the header before any pixel is decoded, so a
/// file claiming 100000×100000 pixels (a decompression bomb) is refused at once, while a 200 MP
/// phone photo is thumbnailed: what counts is what the loader will really decode for the box
/// asked (JPEG's shrink-on-load, a HEIF's own thumbnail item), not the photo's full size.
public struct DecodeLimits: Sendable, Equatable {
    /// Pixels an image may claim at most (far beyond any camera's; a bomb claims more).
    public var maxPixels: Int
    /// Pixels a decode may produce at most.
    public var maxDecodedPixels: Int
    /// Bytes a loader that decodes the whole image into memory may need at most.
    public var maxWholeImageBytes: Int

    public init(maxPixels: Int = 1_000_000_000, maxDecodedPixels: Int = 100_000_000, maxWholeImageBytes: Int = 256 << 20) {
        self.maxPixels = maxPixels
        self.maxDecodedPixels = min(maxDecodedPixels, maxPixels)
        self.maxWholeImageBytes = maxWholeImageBytes
    }

    /// What decoding `h` into `box` holds: JPEG shrinks by up to 8 while it decodes, WebP scales
    /// as it decodes, a HEIF uses its thumbnail item when that covers the box (as libvips'
    /// thumbnail does), and anything else is decoded whole.
    static func decoded(_ h: ImageHeader, box: ImageBox?, thumbnails: [(width: Int, height: Int)]) -> (width: Int, height: Int) {
        guard let box else { return (h.storedWidth, h.storedHeight) }
        let (w, hh) = (h.storedWidth, h.storedHeight)
        let upright = h.orientation >= 5 ? (hh, w) : (w, hh)
        let factor = box.scale(width: w, height: hh, orientation: h.orientation)
        switch h.loader {
        case let l where l.hasPrefix("VipsForeignLoadJpeg"):
            let shrink = jpegShrink(factor)
            return ((w + shrink - 1) / shrink, (hh + shrink - 1) / shrink)
        case let l where l.hasPrefix("VipsForeignLoadWebp") && factor > 1:
            return (Int((Double(w) / factor).rounded(.up)), Int((Double(hh) / factor).rounded(.up)))
        case let l where l.hasPrefix("VipsForeignLoadHeif"):
            // libheif reports (and libvips checks) the thumbnail's size as shown, after irot.
            let needed = Double(max(upright.0, upright.1)) / factor
            // Strictly larger, as libvips asks: a thumbnail it would have to enlarge is not used.
            if let t = thumbnails.filter({ Double(max($0.width, $0.height)) > needed })
                .min(by: { $0.width * $0.height < $1.width * $1.height }) {
                return t
            }
            return (w, hh)
        default:
            return (w, hh)
        }
    }

    /// How much libjpeg shrinks a JPEG while decoding it (1, 2, 4 or 8) for a thumbnail `factor`
    /// times smaller: as much as leaves at least 1.875 (15/8) for the resize that follows.
    /// libvips' thumbnail leaves at least 2, because a block shrink alone aliases; 15/8 still
    /// hides that, and it lets a 12 MP photo (4000–4080 px) into 256 px decode at an eighth
    /// rather than a quarter: about 40 % less CPU a photo, and against a full decode scaled by
    /// Lanczos3 the thumbnail's SSIM is 0.996–0.999 where libvips' is 0.998–0.999 (bench §8).
    static func jpegShrink(_ factor: Double) -> Int {
        var shrink = 1
        while shrink < 8, Double(shrink * 2) * 15 / 8 <= factor { shrink *= 2 }
        return shrink
    }

    /// The same for the JPEG `h` describes, scaled into `box`.
    static func jpegShrink(_ h: ImageHeader, box: ImageBox) -> Int {
        jpegShrink(box.scale(width: h.storedWidth, height: h.storedHeight, orientation: h.orientation))
    }

    func check(_ h: ImageHeader, name: String, box: ImageBox? = nil, thumbnails: [(width: Int, height: Int)] = []) throws(GpickError) {
        let megapixels = { (p: Int) in p % 1_000_000 == 0 ? "\(p / 1_000_000)" : cFormat("%.1f", Double(p) / 1e6) }
        if h.pixels > maxPixels {
            throw GpickError(.input, "\(name): image too large: \(h.storedWidth)×\(h.storedHeight) pixels (limit \(megapixels(maxPixels)) MP)")
        }
        let d = Self.decoded(h, box: box, thumbnails: thumbnails)
        if d.width * d.height > maxDecodedPixels {
            throw GpickError(.input, "\(name): image too large to decode: \(h.storedWidth)×\(h.storedHeight) pixels (limit \(megapixels(maxDecodedPixels)) MP decoded at once)")
        }
        let bytes = d.width * d.height * h.bands * h.bytesPerBand
        if h.decodesWhole, bytes > maxWholeImageBytes {
            throw GpickError(.input, "\(name): image too large to decode: \(h.storedWidth)×\(h.storedHeight) pixels would need \(bytes >> 20) MiB (limit \(maxWholeImageBytes >> 20) MiB)")
        }
    }
}

/// Still images through libvips: header, thumbnail of a file or of bytes in memory. Every call
/// blocks (it decodes): call from a thread of its own (`OffPool`), or use the async overloads,
/// which also keep to a core's worth of decodes at a time.
public enum StillImage {
    /// Loader options: a decoder error (truncation, a corrupt stream) fails the load rather than
    /// leaving grey rows, so a damaged file is recorded as failed, not cached half-grey.
    static let loaderOptions = "fail_on=error"

    /// The header of the file at `path`.
    @available(*, noasync, message: "it reads the file: await header(at:) from async code")
    public static func header(path: String) throws(GpickError) -> ImageHeader {
        let file = try OpenFile(path)
        return try Vips.reading(FileBytes(fd: file.fd, path: path)) { () throws(GpickError) in
            try withSource(fd: file.fd, name: path) { source throws(GpickError) in try header(source: source, name: path) }
        }
    }

    /// The header of an encoded image held in memory.
    @available(*, noasync, message: "run it off the cooperative pool")
    public static func header(data: [UInt8], name: String) throws(GpickError) -> ImageHeader {
        try Vips.start()
        guard !data.isEmpty else { throw GpickError(.input, "\(name): empty image data") }
        return try Vips.reading(MemoryBytes(data)) { () throws(GpickError) in try data.withUnsafeBytes { bytes in
            Result { () throws(GpickError) -> ImageHeader in
                let source = try Vips.source(memory: bytes, name: name)
                defer { cvips_unref_source(source) }
                return try header(source: source, name: name)
            }
        }.get() }
    }

    public static func header(at path: String) async throws(GpickError) -> ImageHeader {
        try await OffPool.run { () throws(GpickError) in try header(path: path) }
    }

    /// The file at `path` scaled into `box`, turned upright by its EXIF orientation first.
    @available(*, noasync, message: "it decodes: await thumbnail(at:box:limits:) from async code")
    public static func thumbnail(path: String, box: ImageBox, limits: DecodeLimits = DecodeLimits()) throws(GpickError) -> VipsPicture {
        let file = try OpenFile(path)
        return try thumbnail(fd: file.fd, name: path, box: box, limits: limits).picture
    }

    /// The same off the cooperative pool, a core's worth of decodes at a time (`DecodeGate`).
    public static func thumbnail(at path: String, box: ImageBox, limits: DecodeLimits = DecodeLimits()) async throws(GpickError) -> VipsPicture {
        try await DecodeGate.shared.run { () async throws(GpickError) in
            try await OffPool.run { () throws(GpickError) in try thumbnail(path: path, box: box, limits: limits) }
        }
    }

    /// An encoded image held in memory (an EXIF preview, a Motion Photo's still) scaled into `box`.
    /// `name` is what errors call it.
    @available(*, noasync, message: "it decodes: run it off the cooperative pool")
    public static func thumbnail(data: [UInt8], name: String, box: ImageBox, limits: DecodeLimits = DecodeLimits()) throws(GpickError) -> VipsPicture {
        try thumbnail(data: data, name: name, limits: limits) { _ in box }
    }

    /// The same, into the box `boxFor` chooses once the header is read (a size that depends on
    /// the picture's own, without reading its header twice).
    static func thumbnail(data: [UInt8], name: String, limits: DecodeLimits, boxFor: (ImageHeader) -> ImageBox) throws(GpickError) -> VipsPicture {
        try Vips.start()
        guard !data.isEmpty else { throw GpickError(.input, "\(name): empty image data") }
        return try Vips.reading(MemoryBytes(data)) { () throws(GpickError) in try data.withUnsafeBytes { bytes in
            Result { () throws(GpickError) -> VipsPicture in
                // The source reads the caller's memory without copying; the result is rendered
                // to memory of its own before `bytes` goes.
                let source = try Vips.source(memory: bytes, name: name)
                defer { cvips_unref_source(source) }
                return try thumbnail(source: source, name: name, limits: limits, boxFor: boxFor) { () throws(GpickError) in
                    try PNGChecksums.verify(data: data, name: name)
                }.picture
            }
        }.get() }
    }

    /// The file open at `fd` scaled into `box`, with its header (the caller stats the same fd, so
    /// what is decoded is what is described).
    static func thumbnail(fd: Int32, name: String, box: ImageBox, limits: DecodeLimits) throws(GpickError) -> (picture: VipsPicture, header: ImageHeader) {
        try Vips.start()
        let embedded = EmbeddedPictures.read(fd: fd, name: name)
        if let made = try EmbeddedPictures.thumbnail(fd: fd, name: name, box: box, limits: limits, metadata: embedded) { return made }
        let thumbnails = embedded.map(EmbeddedPictures.thumbnailSizes) ?? []
        return try Vips.reading(FileBytes(fd: fd, path: name)) { () throws(GpickError) in
            try withSource(fd: fd, name: name) { source throws(GpickError) in
                try thumbnail(source: source, name: name, limits: limits, thumbnails: thumbnails, boxFor: { _ in box }) { () throws(GpickError) in
                    try PNGChecksums.verify(fd: fd, name: name)
                }
            }
        }
    }

    /// `verify` runs once the header has passed `limits`, before any pixel is decoded: the
    /// file's own integrity checks (PNGChecksums), which a bomb's header must not wait for.
    static func thumbnail(source: UnsafeMutablePointer<VipsSource>, name: String, box: ImageBox, limits: DecodeLimits,
                          thumbnails: [(width: Int, height: Int)] = [],
                          verify: () throws(GpickError) -> Void = {}) throws(GpickError) -> (picture: VipsPicture, header: ImageHeader) {
        try thumbnail(source: source, name: name, limits: limits, thumbnails: thumbnails, boxFor: { _ in box }, verify: verify)
    }

    /// `thumbnails`: the sizes of the file's own thumbnail items (a HEIF's), which libvips
    /// decodes instead of the image when one covers the box.
    static func thumbnail(source: UnsafeMutablePointer<VipsSource>, name: String, limits: DecodeLimits,
                          thumbnails: [(width: Int, height: Int)] = [],
                          boxFor: (ImageHeader) -> ImageBox,
                          verify: () throws(GpickError) -> Void = {}) throws(GpickError) -> (picture: VipsPicture, header: ImageHeader) {
        let header = try header(source: source, name: name)
        let box = boxFor(header)
        try limits.check(header, name: name, box: box, thumbnails: thumbnails)
        try verify()
        let cost = DecodeBudget.cost(header, decoded: DecodeLimits.decoded(header, box: box, thumbnails: thumbnails))
        return try DecodeBudget.shared.run(cost: cost) { () throws(GpickError) in
            var out: UnsafeMutablePointer<VipsImage>? = nil
            let status: Int32
            if header.loader.hasPrefix("VipsForeignLoadJpeg") {
                // Shrunk on load by gpick's rule (DecodeLimits.jpegShrink), not libvips' own.
                let shrink = Int32(DecodeLimits.jpegShrink(header, box: box))
                let shrunk = try Vips.check(cvips_jpeg_from_source_shrunk(source, shrink, loaderOptions), "cannot read", subject: name)
                status = cvips_thumbnail_image(shrunk, &out, Int32(box.width), Int32(box.height), box.crop, box.vipsSize)
                cvips_unref(shrunk)
            } else {
                status = cvips_thumbnail_source(source, &out, Int32(box.width), Int32(box.height), box.crop, box.vipsSize, loaderOptions)
            }
            if status != 0 { cvips_unref(out); out = nil }
            let lazy = VipsPicture(adopting: try Vips.check(out, "cannot read", subject: name))
            // Decode now: errors surface here, and the result holds neither the file nor the
            // caller's memory.
            let rendered = try Vips.check(cvips_image_copy_memory(lazy.pointer), "cannot read", subject: name)
            return (VipsPicture(adopting: rendered), header)
        }
    }

    /// Header only: libvips' loaders read pixels lazily, so this reads no more than the header.
    static func header(source: UnsafeMutablePointer<VipsSource>, name: String) throws(GpickError) -> ImageHeader {
        try Vips.start()
        guard let loader = cvips_foreign_find_load_source(source).map({ String(cString: $0) }) else {
            let detail = Vips.takeErrorText()
            throw GpickError(.input, "cannot read \(name): not an image format gpick reads", detail: detail)
        }
        let image = VipsPicture(adopting: try Vips.check(cvips_header_from_source(source), "cannot read", subject: name))
        let p = image.pointer
        let swap = cvips_image_get_orientation_swap(p) != 0
        var interlaced: Int32 = 0
        if cvips_image_get_typeof(p, "interlaced") != 0 { cvips_image_get_int(p, "interlaced", &interlaced) }
        // The loader's class name: "VipsForeignLoadJpegSource".
        let kind = formats.first { loader.hasPrefix("VipsForeignLoad" + $0.key) }?.key
        var mime = kind.flatMap { formats[$0] }
        if kind == "Heif", cvips_image_get_typeof(p, "heif-compression") != 0 {
            var compression: UnsafePointer<CChar>? = nil
            if cvips_image_get_string(p, "heif-compression", &compression) == 0, let compression,
               String(cString: compression) == "av1" { mime = "image/avif" }
        }
        let w = Int(cvips_image_get_width(p)), h = Int(cvips_image_get_height(p))
        return ImageHeader(width: swap ? h : w, height: swap ? w : h, orientation: Int(cvips_image_get_orientation(p)),
                           loader: loader, mimeType: mime, storedWidth: w, storedHeight: h, bands: image.bands,
                           bytesPerBand: Int(cvips_format_sizeof(cvips_image_get_format(p))),
                           decodesWhole: interlaced != 0 || ["Heif", "Nsgif", "Jxl"].contains(kind ?? ""))
    }

    /// The text chunks of a PNG in memory, compressed ones included, as libvips' PNG loader
    /// reads them into `png-comment-N-KEY` fields (those before the first IDAT).
    static func pngText(_ png: [UInt8]) -> [String: String]? {
        guard (try? Vips.start()) != nil else { return nil }
        return png.withUnsafeBytes { bytes -> [String: String]? in
            guard let source = cvips_source_new_from_memory(bytes.baseAddress, bytes.count) else { Vips.takeErrorText(); return nil }
            defer { cvips_unref_source(source) }
            guard let image = cvips_header_from_source(source).map(VipsPicture.init(adopting:)) else { Vips.takeErrorText(); return nil }
            guard let fields = cvips_image_get_fields(image.pointer) else { return [:] }
            defer { g_strfreev(fields) }
            var values: [String: String] = [:]
            var i = 0
            while let f = fields[i] {
                i += 1
                let name = String(cString: f)
                guard name.hasPrefix("png-comment-") else { continue }
                // "png-comment-3-Thumb::URI": the key follows the second dash after the number.
                let rest = name.dropFirst("png-comment-".count).drop { $0 != "-" }.dropFirst()
                var value: UnsafePointer<CChar>? = nil
                if cvips_image_get_string(image.pointer, f, &value) == 0, let value { values[String(rest)] = String(cString: value) }
            }
            return values
        }
    }

    /// Loader class names (after "VipsForeignLoad") and the MIME type of what they read.
    static let formats = [
        "Jpeg": "image/jpeg", "Png": "image/png", "Webp": "image/webp", "Tiff": "image/tiff",
        "Heif": "image/heif", "Nsgif": "image/gif", "Jxl": "image/jxl",
    ]

    /// A libvips source over a file descriptor we opened (libvips reads its own duplicate, so
    /// names with brackets are never parsed as load options, and what we stat is what it reads).
    static func withSource<T>(fd: Int32, name: String, _ body: (UnsafeMutablePointer<VipsSource>) throws(GpickError) -> T) throws(GpickError) -> T {
        try Vips.start()
        var st = stat()
        if fstat(fd, &st) == 0, st.st_size == 0 { throw GpickError(.input, "cannot read \(name): the file is empty (0 bytes)") }
        let source = try Vips.source(descriptor: fd, name: name)
        defer { cvips_unref_source(source) }
        return try body(source)
    }
}

/// A file opened for reading, closed when this goes. Opening is the permission check: a file the
/// user cannot read is refused here, before anything else (the thumbnail cache included) is used.
final class OpenFile {
    let fd: Int32
    let status: stat

    init(_ path: String) throws(GpickError) {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; reading regular files ignores it.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            switch e {
            case ENOENT: throw GpickError(.input, "no such file: \(path)")
            case EACCES, EPERM: throw GpickError(.input, "permission denied: cannot read \(path)")
            case EISDIR: throw GpickError(.input, "\(path) is a directory, not an image")
            default: throw GpickError(.input, "cannot read \(path): \(String(cString: strerror(e)))")
            }
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw GpickError(.input, "\(path) is not a regular file")
        }
        self.fd = fd
        self.status = st
    }

    deinit { close(fd) }
}
