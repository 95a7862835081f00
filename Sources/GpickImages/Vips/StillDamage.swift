import GpickBase
import GpickFormats

/// Why a still libvips failed to decode, from the file itself: cut short (its structure runs past
/// its end) or damaged. libvips' own words come through its error buffer, one for the whole
/// process, which whichever thread reads next takes: with decodes on several threads a file's
/// reason was read by another thread (leaving "could not be decoded") or another file's words
/// were taken for its own. The file's structure says the same thing every time, on any thread.
enum StillDamage {
    static let truncated = "the file is truncated or damaged"
    static let damaged = "the file is damaged"

    /// The reason for a failed decode of `file`. `said` is libvips' words, worded (what they are
    /// worth): only a want of memory is kept from them, as that is no fault of the file.
    static func reason(_ file: some ByteSource, said: String) -> String {
        if (try? isCut(file)) == true { return truncated }
        return said == Vips.outOfMemory ? said : damaged
    }

    /// True when the file ends before its own structure does: a JPEG without the end of its
    /// last scan, a PNG before IEND, an ISO box (HEIF, AVIF), a RIFF (WebP) or a GIF cut short.
    /// nil when its format has no such check here (TIFF, JPEG XL).
    static func isCut(_ file: some ByteSource) throws(GpickError) -> Bool? {
        let head = try file.read(at: 0, count: 12)
        if head.starts(with: [0xFF, 0xD8]) { return try jpegIsCut(file) }
        if head.starts(with: PNGChecksums.signature) { return try pngIsCut(file) }
        if head.count >= 8, head[4..<8].elementsEqual("ftyp".utf8) { return try boxesAreCut(file) }
        if head.count >= 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) {
            return 8 + le32(head, 4) > file.size
        }
        if head.starts(with: Array("GIF8".utf8)) {
            // The trailer (0x3B), perhaps followed by padding.
            let tail = try file.read(at: max(0, file.size - 64), count: 64)
            return tail.last(where: { $0 != 0 }) != 0x3B
        }
        return nil
    }

    /// Markers from SOI on: each segment's length must fit, and each scan's entropy-coded data
    /// must end at a marker (0xFF not followed by 0 or a restart); EOI ends the image. A Motion
    /// Photo's movie after EOI is never looked at.
    private static func jpegIsCut(_ file: some ByteSource) throws(GpickError) -> Bool {
        var at = 2
        while true {
            let m = try file.read(at: at, count: 4)
            guard m.count >= 2 else { return true }
            guard m[0] == 0xFF else { return false }  // not a marker: damaged, not cut
            let marker = m[1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xD9 { return false }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { at += 2; continue }
            guard m.count == 4 else { return true }
            let length = Int(m[2]) << 8 | Int(m[3])
            guard at + 2 + length <= file.size else { return true }
            at += 2 + length
            guard marker == 0xDA else { continue }
            // The scan's data, up to the next marker.
            guard let next = try nextMarker(file, from: at) else { return true }
            at = next
        }
    }

    private static func nextMarker(_ file: some ByteSource, from start: Int) throws(GpickError) -> Int? {
        var at = start
        while at < file.size {
            let chunk = try file.read(at: at, count: 1 << 20)
            guard !chunk.isEmpty else { return nil }
            for i in 0..<(chunk.count - 1) where chunk[i] == 0xFF {
                let b = chunk[i + 1]
                if b != 0, b != 0xFF, !(0xD0...0xD7).contains(b) { return at + i }
            }
            // The last byte may be the 0xFF of a marker split across two reads.
            at += max(1, chunk.count - 1)
        }
        return nil
    }

    private static func pngIsCut(_ file: some ByteSource) throws(GpickError) -> Bool {
        var at = 8
        while true {
            let head = try file.read(at: at, count: 8)
            guard head.count == 8 else { return true }
            let length = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            guard at + 12 + length <= file.size else { return true }
            if head[4..<8].elementsEqual("IEND".utf8) { return false }
            at += 12 + length
        }
    }

    /// ISO base media boxes at the top level (ftyp, meta, mdat…): each must end within the file.
    private static func boxesAreCut(_ file: some ByteSource) throws(GpickError) -> Bool {
        var at = 0
        while at < file.size {
            let head = try file.read(at: at, count: 16)
            guard head.count >= 8 else { return true }
            var size = Int(be32(head, 0))
            if size == 1 {
                guard head.count == 16 else { return true }
                size = Int(be32(head, 8)) << 32 | Int(be32(head, 12))
            } else if size == 0 {
                return false  // to the end of the file
            }
            guard size >= 8, at + size <= file.size else { return true }
            at += size
        }
        return false
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func le32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24
    }
}
