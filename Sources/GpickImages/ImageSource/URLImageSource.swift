import CGLib
import CVips
import GpickBase
import GpickFormats
import Glibc

/// A photo at an http(s) URL, fetched with libcurl. Each picture made of it is
/// kept, scaled, in `copies`: a progressive request shows a smaller kept copy while the URL is
/// fetched again (the server's picture may have changed; the copy is only a stand-in).
public struct URLImageSource: ImageSource {
    public let url: String
    public var copies: URLCopies
    /// Bytes a body may have at most (it is held in memory to decode).
    public var maxBytes: Int
    /// Seconds without progress before a fetch gives up.
    public var timeout: Double

    public init(url: String, copies: URLCopies = URLCopies(), maxBytes: Int = 128 << 20, timeout: Double = 15) {
        self.url = url
        self.copies = copies
        self.maxBytes = maxBytes
        self.timeout = timeout
    }

    /// Whether `text` is a URL this source fetches.
    public static func accepts(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    public var name: String { url }

    public func image(_ request: ImageRequest) -> ImageResults {
        let source = self
        return ImageResults(delivery: request.delivery) { outlet throws(GpickError) in
            if request.delivery == .progressive {
                let cheap = await OffPool.run { () -> ImageResult? in
                    guard let copy = source.copies.nearest(to: source.url, side: request.longSide),
                          let picture = try? StillImage.thumbnail(path: copy, box: .square(URLCopies.largestSide)) else { return nil }
                    // The copy has the picture's aspect ratio: shaped as the final picture will be
                    // (unless the original is smaller than the box, which only the fetch tells).
                    var box = request.box(for: PixelSize(width: picture.width, height: picture.height))
                    box.enlarge = true
                    let target = StandIns.finalSize(of: PixelSize(width: picture.width, height: picture.height), in: box)
                    return StandIns.sized(picture, as: target).map { ImageResult(picture: $0, degraded: true, origin: .cachedCopy) }
                }
                if let cheap, !outlet.yield(cheap) { return }
            }
            let body = try await OffPool.run { () throws(GpickError) in
                try HTTPFetch.get(source.url, limit: source.maxBytes, timeout: source.timeout, isWanted: { outlet.isWanted }).bytes
            }
            guard outlet.isWanted else { return }
            let (whole, picture) = try await DecodeGate.shared.run { () async throws(GpickError) in
                try await OffPool.run { () throws(GpickError) -> (VipsPicture, VipsPicture) in
                    let header = try Self.header(of: body, name: source.url)
                    let shown = PixelSize(width: header.width, height: header.height)
                    var box = request.box(for: shown)
                    // fill: the whole picture covering the box first (what is kept), then cropped.
                    let fill = box.mode == .fill ? box : nil
                    if fill != nil {
                        let cover = StandIns.coverSize(of: shown, box: box)
                        box = ImageBox(width: cover.width, height: cover.height, mode: .fit)
                    }
                    let whole = try StillImage.thumbnail(data: body, name: source.url, box: box, limits: request.limits).srgb8(subject: source.url)
                    return (whole, try fill.map { f throws(GpickError) in try whole.scaled(to: f) } ?? whole)
                }
            }
            // Kept for next time before the final result goes: a caller that leaves as soon as it
            // has it (gpick thumb exits at once) must not leave the copy half-made or unmade. A
            // copy that cannot be written only costs a stand-in later.
            if max(whole.width, whole.height) <= URLCopies.largestSide {
                await OffPool.run { () -> Void in source.copies.keep(whole, of: source.url) }
            }
            outlet.yield(ImageResult(picture: picture, degraded: false, origin: .fetched))
        }
    }

    public func fullResolutionData() async throws(GpickError) -> [UInt8] {
        let source = self
        return try await OffPool.run { () throws(GpickError) in
            try HTTPFetch.get(source.url, limit: source.maxBytes, timeout: source.timeout).bytes
        }
    }

    /// The size from the first bytes of the body: the transfer stops once gpick's readers find
    /// the header (JPEG, PNG, WebP, GIF, HEIF…), so a large photo is not downloaded for it.
    public func size() async throws(GpickError) -> PixelSize {
        let source = self
        return try await OffPool.run { () throws(GpickError) -> PixelSize in
            let response = try HTTPFetch.get(source.url, limit: source.maxBytes, timeout: source.timeout,
                                             enough: { Self.shownSize(of: $0) != nil })
            if let size = Self.shownSize(of: response.bytes) { return size }
            let header = try Self.header(of: response.bytes, name: source.url)
            return PixelSize(width: header.width, height: header.height)
        }
    }

    static func shownSize(of bytes: [UInt8]) -> PixelSize? {
        guard bytes.count >= 16, let meta = try? MetadataReader.read(MemoryBytes(bytes)), !meta.isVideo else { return nil }
        return StandIns.shownSize(meta)
    }

    /// libvips' header of a body held in memory: the check that it is an image at all.
    static func header(of body: [UInt8], name: String) throws(GpickError) -> ImageHeader {
        guard !body.isEmpty else { throw GpickError(.input, "cannot read \(name): the server sent no data") }
        return try body.withUnsafeBytes { bytes in
            Result { () throws(GpickError) -> ImageHeader in
                let source = try Vips.source(memory: bytes, name: name)
                defer { cvips_unref_source(source) }
                return try StillImage.header(source: source, name: name)
            }
        }.get()
    }
}

/// Scaled copies of pictures fetched from URLs: `BASE/SHA256(URL)/SIDE.png`, where SIDE is the
/// copy's longest side. Directories 0700, files 0600, each written whole (temp file, rename).
public struct URLCopies: Sendable {
    public let base: String
    /// Copies are kept up to this size (a thumbnail's, not a photo's).
    static let largestSide = 1024

    /// `$XDG_CACHE_HOME/gpick/url-copies` by default.
    public init(base: String? = nil) {
        self.base = base ?? String(ThumbnailCache.defaultBase().dropLast("/thumbnails".count)) + "/gpick/url-copies"
    }

    func folder(of url: String) -> String {
        let hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, url, -1).map { p in
            defer { g_free(p) }
            return String(cString: p)
        } ?? "none"
        return "\(base)/\(hex)"
    }

    /// The kept copy to stand in for a picture of long side `side`: the largest not larger, else
    /// the smallest larger one; nil when there is none.
    func nearest(to url: String, side: Int?) -> String? {
        let folder = folder(of: url)
        guard let dir = opendir(folder) else { return nil }
        defer { closedir(dir) }
        var sides: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".png"), let n = Int(name.dropLast(4)), n > 0 { sides.append(n) }
        }
        let want = side ?? Int.max
        guard let pick = sides.filter({ $0 <= want }).max() ?? sides.min() else { return nil }
        return "\(folder)/\(pick).png"
    }

    /// Keeps `picture` as a copy of `url`'s picture.
    func keep(_ picture: VipsPicture, of url: String) {
        let side = max(picture.width, picture.height)
        guard side <= Self.largestSide, let png = try? picture.pngData() else { return }
        try? ThumbnailFile.write(png, directory: folder(of: url), name: "\(side).png")
    }
}
