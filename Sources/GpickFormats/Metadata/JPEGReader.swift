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
        var meta = MediaMetadata(container: .jpeg)
        var exif: ExifFacts?, xmp: XMPFacts?
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
        let samsung = exif?.make?.lowercased().contains("samsung") == true
        let found = try EmbeddedVideo.locate(src, xmp: x, samsung: samsung, imageDataStart: scanStart)
        meta.motionPhoto = found.info
        meta.motionPhotoProblem = found.problem
        return meta
    }

    /// The EXIF facts every still format shares.
    static func apply(_ e: ExifFacts, to meta: inout MediaMetadata) {
        meta.orientation = meta.orientation ?? e.orientation
        meta.takenAt = meta.takenAt ?? e.takenAt
        meta.software = meta.software ?? e.software
        meta.userComment = meta.userComment ?? e.userComment
        meta.contentIdentifier = meta.contentIdentifier ?? e.contentIdentifier
        meta.burstUUID = meta.burstUUID ?? e.burstUUID
    }
}
