import FoundationEssentials
import GpickBase

/// Reads what the media library's scanner needs of a photo or video from its headers: the
/// container from its magic bytes (never the name), then the container's own reader. A typical
/// file costs one to three small reads; nothing reads the media data.
public enum MetadataReader {
    public static func read(path: String) throws(GpickError) -> MediaMetadata {
        let file = try FileBytes(path: path)
        do {
            return try read(file)
        } catch {
            // Read errors name the path already; what the bytes say gets it here.
            if error.message.contains(path) { throw error }
            var e = error
            e.message = "\(path): \(error.message)"
            throw e
        }
    }

    public static func read(_ source: some ByteSource) throws(GpickError) -> MediaMetadata {
        var meta = try readContainer(source)
        // Every still holds its primary image, whichever reader named the others.
        if !meta.isVideo, meta.images.isEmpty {
            meta.images = [EmbeddedImage(role: .primary, width: meta.width, height: meta.height, mimeType: meta.mimeType)]
        }
        return meta
    }

    static func readContainer(_ source: some ByteSource) throws(GpickError) -> MediaMetadata {
        guard source.size > 0 else { throw GpickError(.input, "empty file") }
        let src = try HeadCachedSource(source)
        let h = ByteView(src.head)
        if h.u8(0) == 0xFF, h.u8(1) == 0xD8, h.u8(2) == 0xFF { return try JPEGReader.read(src) }
        if h.slice(0, 8)?.elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == true { return try PNGReader.read(src) }
        if h.matches(0, "RIFF") {
            if h.matches(8, "WEBP") { return try WebPReader.read(src) }
            if h.matches(8, "AVI ") { return try AVIReader.read(src) }
        }
        if h.matches(0, "GIF87a") || h.matches(0, "GIF89a") { return try GIFReader.read(src) }
        if h.matches(0, "II*\0") || h.matches(0, "MM\0*") {
            if let raw = try RawReader.readTIFF(src) { return raw }
            return try TIFFReader.read(src)
        }
        // Olympus ORF ("IIRO", "IIRS", "MMOR") and Panasonic RW2 ("IIU\0"): TIFF with a magic of their own.
        if h.matches(0, "IIRO") || h.matches(0, "IIRS") || h.matches(0, "MMOR") || h.matches(0, "IIU\0") {
            guard let raw = try RawReader.readTIFF(src) else { throw GpickError(.input, "damaged camera RAW image: no readable IFD") }
            return raw
        }
        if h.matches(0, "FUJIFILMCCD-RAW") { return try RawReader.readRAF(src) }
        if h.slice(0, 2)?.elementsEqual([0xFF, 0x0A]) == true || h.slice(0, 12)?.elementsEqual(JXLReader.container) == true {
            return try JXLReader.read(src)
        }
        if h.u32(0) == 0x1A45DFA3 { return try MatroskaReader.read(src) }
        if h.matches(4, "ftyp") { return try readISOBMFF(src, h) }
        // QuickTime movies from before ftyp start straight with their atoms.
        if let first = h.fourCC(4), ["moov", "mdat", "wide", "pnot"].contains(first), let size = h.u32(0), size >= 8 {
            let top = try Box.topLevel(src, until: ["moov"])
            return try MovieReader.read(src, container: .quicktime, top: top)
        }
        throw GpickError(.input, "unknown file type")
    }

    /// Whether the file's first bytes are a still image's (JPEG, PNG, GIF, WebP, TIFF and the
    /// TIFF-based RAWs, ORF, RW2, RAF, JPEG XL, HEIF, AVIF, CR3), whatever its name says. A file
    /// that cannot be read is not one (the caller reports it in its own words).
    public static func looksLikeStill(path: String) -> Bool {
        guard let file = try? FileBytes(path: path), let head = try? file.read(at: 0, count: 32), head.count >= 12 else { return false }
        let h = ByteView(head)
        let magics: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47], Array("GIF8".utf8), Array("II*\0".utf8), Array("MM\0*".utf8),
            Array("IIRO".utf8), Array("IIRS".utf8), Array("MMOR".utf8), Array("IIU\0".utf8), Array("FUJIFILMCCD-RAW".utf8),
            [0xFF, 0x0A], JXLReader.container,
        ]
        if magics.contains(where: { head.starts(with: $0) }) { return true }
        if h.matches(0, "RIFF"), h.matches(8, "WEBP") { return true }
        if h.matches(4, "ftyp"), let major = h.fourCC(8) {
            return Brand.heif.contains(major) || Brand.avif.contains(major) || major == "crx "
        }
        return false
    }

    static func readISOBMFF(_ src: HeadCachedSource, _ h: ByteView) throws(GpickError) -> MediaMetadata {
        let ftypSize = min(h.u32(0) ?? 0, 4096)
        guard ftypSize >= 16 else { throw GpickError(.input, "damaged MP4: the ftyp box is too small") }
        let ftyp = Box(type: "ftyp", offset: 0, headerSize: 8, size: ftypSize)
        let (major, compatible) = Brand.read(ByteView(try src.read(at: 0, count: ftypSize)), ftyp)
        // ISO BMFF that is neither a photo nor a movie: say so rather than call it a video.
        if major == "crx " { return try RawReader.readCR3(src, top: try Box.topLevel(src, until: [])) }
        if ["M4A ", "M4B ", "M4P "].contains(major) { throw GpickError(.input, "unsupported file type: MPEG-4 audio") }
        let container = Brand.container(major: major, compatible: compatible)
        if container == .heif || container == .avif {
            return try HEIFReader.read(src, container: container, top: try Box.topLevel(src, until: ["meta"]))
        }
        return try MovieReader.read(src, container: container, top: try Box.topLevel(src, until: ["moov"]))
    }
}
