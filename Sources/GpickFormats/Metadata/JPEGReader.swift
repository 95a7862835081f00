import FoundationEssentials
import GpickBase

/// A JPEG's headers: the marker segments from SOI up to the start of scan (SOS), never the image
/// data. With the head of the file cached, a typical photo costs one read; a motion photo (or a
/// Samsung photo) one more at the tail for Samsung's trailer and one where its video should start.
enum JPEGReader {
    static let exifHeader = Array("Exif\0\0".utf8)
    static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let maxSegments = 1024

    static func read(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        var exif: ExifFacts?
        return try read(src, exif: &exif)
    }

    /// The same, handing back the EXIF facts read on the way.
    static func read(_ src: some ByteSource, exif: inout ExifFacts?) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: .jpeg)
        var xmp: XMPFacts?
        var size: (width: Int, height: Int)?
        var scanStart: Int?
        var i = 2, segments = 0
        walk: while segments < maxSegments {
            segments += 1
            let h = ByteView(try src.read(at: i, count: 4))
            guard h.count >= 2 else { break }                   // the end of the file
            guard h.u8(0) == 0xFF, let marker = h.u8(1) else {
                if size == nil { throw GpickError(.input, "damaged JPEG image: no marker at byte \(i)") }
                break
            }
            switch marker {
            case 0xFF: i += 1; continue walk                     // fill byte
            case 0xD8, 0x01, 0xD0...0xD7: i += 2; continue walk  // markers without a length
            case 0xD9: break walk                                // EOI before any scan
            default: break
            }
            guard let length = h.u16(2), length >= 2 else { break }
            let payload = i + 4, payloadLength = length - 2
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                let sof = ByteView(try src.read(at: payload, count: 5))
                if size == nil, let height = sof.u16(1), let width = sof.u16(3) { size = (width, height) }
            case 0xE1 where payloadLength > 6:
                let body = try src.read(at: payload, count: payloadLength)
                if exif == nil, body.starts(with: exifHeader) {
                    let tiffStart = payload + exifHeader.count
                    exif = try ExifReader.facts(source: MemoryBytes(Array(body.dropFirst(exifHeader.count))), base: 0)
                    if let e = exif, let o = e.thumbnailOffset, let n = e.thumbnailLength,
                       o <= src.size - tiffStart, n <= src.size - tiffStart - o {
                        meta.exifThumbnail = ByteRange(offset: tiffStart + o, length: n)
                    }
                } else if xmp == nil, body.starts(with: xmpHeader) {
                    xmp = XMPFacts(body.dropFirst(xmpHeader.count))
                }
            case 0xDA:
                scanStart = i
                break walk
            default: break
            }
            i = payload + payloadLength
        }
        guard let size else { throw GpickError(.input, "not a JPEG image: no frame header before the end of the file") }
        // A SOF with a zero dimension (a "DNL" height, or damage): the size is unknown.
        meta.width = size.width > 0 ? size.width : nil
        meta.height = size.height > 0 ? size.height : nil
        if let e = exif { apply(e, to: &meta) }
        let x = xmp ?? XMPFacts()
        meta.isPanorama = x.isPanorama
        meta.images = try images(src, x, exifThumbnail: meta.exifThumbnail, primary: size)
        let samsung = exif?.make?.lowercased().contains("samsung") == true
        let found = try EmbeddedVideo.locate(src, xmp: x, samsung: samsung, imageDataStart: scanStart)
        meta.motionPhoto = found.info
        meta.motionPhotoProblem = found.problem
        return meta
    }

    /// The primary image, the EXIF thumbnail, and the images a Container directory lists after
    /// the primary (an Ultra HDR gain map, a depth map); the motion photo's video is not an image.
    /// Items after the primary sit at the end of the file, last item last, each `Length` bytes
    /// followed by its `Padding`: a JPEG found where an item should start gives its size.
    static func images(_ src: some ByteSource, _ x: XMPFacts, exifThumbnail: ByteRange?,
                       primary: (width: Int, height: Int)) throws(GpickError) -> [EmbeddedImage] {
        var out = [EmbeddedImage(role: .primary, width: primary.width, height: primary.height, mimeType: "image/jpeg")]
        if let t = exifThumbnail {
            let size = try embeddedJPEGSize(src, t)
            out.append(EmbeddedImage(role: .thumbnail, width: size?.width, height: size?.height, mimeType: "image/jpeg", bytes: t))
        }
        var end = src.size
        var found: [EmbeddedImage] = []
        for item in x.directory.dropFirst().reversed() {
            let length = min(max(0, item.length ?? 0), src.size), padding = min(max(0, item.padding ?? 0), src.size)
            let start = end - padding - length
            defer { end = max(0, start) }
            let semantic = item.semantic.lowercased()
            guard semantic != "motionphoto", item.mime?.hasPrefix("video/") != true else { continue }
            let role: EmbeddedImage.Role = switch semantic {
            case "gainmap": .gainMap
            case "depth": .depth
            default: .auxiliary
            }
            var image = EmbeddedImage(role: role, mimeType: item.mime)
            if length > 0, start >= 0, item.mime == "image/jpeg" || item.mime == nil {
                let range = ByteRange(offset: start, length: length)
                if let size = try embeddedJPEGSize(src, range) {
                    (image.width, image.height, image.bytes) = (size.width, size.height, range)
                }
            }
            found.insert(image, at: 0)
        }
        return out + found
    }

    /// The frame size of the JPEG at `range`, read from its headers; nil when no JPEG is there.
    static func embeddedJPEGSize(_ src: some ByteSource, _ range: ByteRange) throws(GpickError) -> (width: Int, height: Int)? {
        guard range.length > 4, range.offset >= 0, range.offset <= src.size - range.length,
              try src.read(at: range.offset, count: 3) == [0xFF, 0xD8, 0xFF] else { return nil }
        var i = range.offset + 2
        for _ in 0..<64 {
            let h = ByteView(try src.read(at: i, count: 9))
            guard h.u8(0) == 0xFF, let marker = h.u8(1), marker != 0xD9, marker != 0xDA, let length = h.u16(2), length >= 2 else { return nil }
            if [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF].contains(marker),
               let height = h.u16(5), let width = h.u16(7) {
                return (width, height)
            }
            i += 2 + length
            guard i < range.offset + range.length else { return nil }
        }
        return nil
    }

    /// The EXIF facts every still format shares.
    static func apply(_ e: ExifFacts, to meta: inout MediaMetadata) {
        meta.orientation = meta.orientation ?? e.orientation
        meta.takenAt = meta.takenAt ?? e.takenAt
        meta.software = meta.software ?? e.software
        meta.make = meta.make ?? e.make
        meta.model = meta.model ?? e.model
        meta.userComment = meta.userComment ?? e.userComment
        meta.contentIdentifier = meta.contentIdentifier ?? e.contentIdentifier
        meta.burstUUID = meta.burstUUID ?? e.burstUUID
    }
}
