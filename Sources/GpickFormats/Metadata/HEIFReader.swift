import FoundationEssentials
import GpickBase

/// HEIF and AVIF stills: the primary item's `ispe` (size), `clap` (the part shown) and `irot`
/// (rotation) from meta/iprp, and its Exif item (dates, Apple's content identifier) located
/// through iinf/iloc.
enum HEIFReader {
    static let maxMeta = 4 * 1024 * 1024
    static let maxExif = 256 * 1024

    static func read(_ src: some ByteSource, container: MediaMetadata.Container, top: [Box]) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: container)
        let name = container == .avif ? "AVIF" : "HEIF"
        guard let metaBox = top.first(where: { $0.type == "meta" }) else { throw GpickError(.input, "truncated \(name) image: no meta box") }
        guard let v = try Box.load(metaBox, from: src, limit: maxMeta) else { return meta }
        let items = HEIFItems(view: v, meta: Box(type: "meta", offset: 0, headerSize: metaBox.headerSize, size: v.count))
        if let size = items.size(of: items.primary) {
            meta.width = size.width
            meta.height = size.height
        }
        meta.cleanAperture = items.primary.flatMap(items.cleanAperture(of:))
        var xmp = XMPFacts()
        if let primary = items.primary {
            // Metadata items point at the image they describe (cdsc); a file may also have them unlinked.
            let described = Set(items.referencing(primary, type: "cdsc"))
            let ordered = items.items.sorted { described.contains($0.id) && !described.contains($1.id) }
            if let exif = ordered.first(where: { $0.type == "Exif" }),
               var bytes = try items.bytes(of: exif.id, in: src, limit: maxExif),
               let skip = ByteView(bytes).u32(0), skip <= bytes.count - 4 - 8 {
                bytes.removeFirst(4 + skip)
                if let e = try ExifReader.facts(source: MemoryBytes(bytes), base: 0) { JPEGReader.apply(e, to: &meta) }
            }
            if let item = ordered.first(where: { $0.type == "mime" && $0.contentType == "application/rdf+xml" }),
               let bytes = try items.bytes(of: item.id, in: src, limit: XMPScanner.maxBytes) {
                xmp = XMPFacts(bytes)
                meta.isPanorama = meta.isPanorama || xmp.isPanorama
            }
            meta.images = images(items, primary: primary)
        }
        // HEIF decoders apply irot and imir and ignore EXIF's orientation: reporting EXIF's would turn twice.
        meta.orientation = items.primary.flatMap(items.orientation(of:))
        let samsung = meta.make?.lowercased().contains("samsung") == true
        let found = try motionVideo(src, xmp: xmp, samsung: samsung, after: metaBox)
        meta.motionPhoto = found.info
        meta.motionPhotoProblem = found.problem
        return meta
    }

    /// A HEIF Motion Photo's video: Google's format 1.0 for HEIF (and Samsung's One UI 6 and
    /// later) puts the MP4 in a top-level `mpvd` box after `meta`, and lists it in the XMP as for
    /// JPEG. The top-level walk after `meta` costs nothing for a still whose `mdat` ends the file.
    static func motionVideo(_ src: some ByteSource, xmp: XMPFacts, samsung: Bool, after meta: Box) throws(GpickError) -> EmbeddedVideo.Outcome {
        let top = try Box.topLevel(src, until: ["mpvd"])
        if let mpvd = top.first(where: { $0.type == "mpvd" }), mpvd.size <= src.size - mpvd.offset,
           try EmbeddedVideo.isMP4(src, at: mpvd.payload.lowerBound) {
            return EmbeddedVideo.Outcome(info: MotionPhotoInfo(
                kind: xmp.motionPhoto || !samsung ? .google : .samsung,
                video: ByteRange(offset: mpvd.payload.lowerBound, length: mpvd.payload.count), presentationUs: xmp.presentationUs))
        }
        guard xmp.motionPhoto || xmp.microVideo || samsung else { return EmbeddedVideo.Outcome() }
        return try EmbeddedVideo.locate(src, xmp: xmp, samsung: samsung, imageDataStart: meta.offset + meta.size)
    }

    /// The primary image, then its thumbnails and auxiliary images, named.
    static func images(_ items: HEIFItems, primary: Int) -> [EmbeddedImage] {
        func image(_ id: Int, _ role: EmbeddedImage.Role) -> EmbeddedImage {
            let size = items.size(of: id)
            let type = items.items.first { $0.id == id }?.type
            let mime: String? = switch type {
            case "hvc1", "grid": "image/heic"
            case "av01": "image/avif"
            case "jpeg": "image/jpeg"
            default: nil
            }
            return EmbeddedImage(role: role, width: size?.width, height: size?.height, mimeType: mime)
        }
        var out = [image(primary, .primary)]
        out += items.referencing(primary, type: "thmb").map { image($0, .thumbnail) }
        for aux in items.referencing(primary, type: "auxl") {
            let urn = items.auxiliaryType(of: aux)?.lowercased() ?? ""
            let role: EmbeddedImage.Role = if urn.contains("gainmap") { .gainMap }
                else if urn.contains("depth") || urn.contains("disparity") { .depth }
                else if urn.contains("alpha") || urn.hasSuffix("auxid:1") { .alpha }
                else { .auxiliary }
            out.append(image(aux, role))
        }
        return out
    }

    /// iloc's first extent of `item`: construction method, offset, length.
    static func location(_ v: ByteView, _ iloc: Box, item: Int) -> (Int, Int, Int)? {
        let p = iloc.payload.lowerBound
        guard let version = v.u8(p), version <= 2, let s1 = v.u8(p + 4), let s2 = v.u8(p + 5) else { return nil }
        let offsetSize = s1 >> 4, lengthSize = s1 & 15, baseSize = s2 >> 4, indexSize = version >= 1 ? s2 & 15 : 0
        // Every extent must take bytes, so a hostile count cannot spin in place.
        guard offsetSize + lengthSize > 0 else { return nil }
        func sized(_ at: Int, _ n: Int) -> Int? {
            switch n {
            case 0: 0
            case 4: v.u32(at)
            case 8: v.u64(at)
            default: nil
            }
        }
        var i = p + 6
        guard let count = version < 2 ? v.u16(i) : v.u32(i) else { return nil }
        i += version < 2 ? 2 : 4
        for _ in 0..<min(count, 65_536) {
            guard let id = version < 2 ? v.u16(i) : v.u32(i) else { return nil }
            i += version < 2 ? 2 : 4
            var method = 0
            if version >= 1 {
                guard let m = v.u16(i) else { return nil }
                method = m & 15
                i += 2
            }
            i += 2  // data_reference_index
            guard let base = sized(i, baseSize) else { return nil }
            i += baseSize
            guard let extents = v.u16(i) else { return nil }
            i += 2
            var first: (Int, Int)?
            for _ in 0..<extents {
                i += indexSize
                guard let o = sized(i, offsetSize), let l = sized(i + offsetSize, lengthSize) else { return nil }
                i += offsetSize + lengthSize
                if first == nil { first = (o, l) }
            }
            if id == item, let (o, l) = first, base < 1 << 48, o < 1 << 48 { return (method, base + o, l) }
            if i >= iloc.payload.upperBound { break }
        }
        return nil
    }
}
