import FoundationEssentials
import GpickBase

/// Finds the video inside a motion photo, and believes no one: an offset counts only when an
/// `ftyp` box really starts there. Editors strip the video and keep the XMP; Samsung files carry
/// Google XMP with wrong numbers, so their own trailer wins.
enum EmbeddedVideo {
    struct Outcome {
        var info: MotionPhotoInfo?
        var problem: String?
    }

    /// The bound on the search for a video after the image when the XMP says where not (#30654).
    static let maxScan = 64 * 1024 * 1024

    /// `imageDataStart`: where the JPEG's scan data begins (the search for an `ftyp` box after the
    /// image starts there). `samsung`: the EXIF Make says Samsung, whose older motion photos have
    /// the trailer and no XMP flag. The trailer is looked for only then or when the XMP flags a
    /// motion photo: for every other photo the tail would be a second disk read in a cold scan.
    static func locate(_ src: some ByteSource, xmp: XMPFacts, samsung fromSamsung: Bool,
                       imageDataStart: Int?) throws(GpickError) -> Outcome {
        let size = src.size
        // Samsung's trailer first: it is the one that is right on Samsung's files.
        if fromSamsung || xmp.motionPhoto || xmp.microVideo, let samsung = try SamsungTrailer.video(src) {
            if try isMP4(src, at: samsung.offset) {
                return Outcome(info: MotionPhotoInfo(kind: .samsung, video: samsung, presentationUs: xmp.presentationUs))
            }
            if !xmp.motionPhoto && !xmp.microVideo {
                return Outcome(problem: "the Samsung trailer's MotionPhoto_Data holds no video")
            }
        }
        if xmp.motionPhoto {
            // Numbers from the file are bounded by it before any arithmetic.
            let length = min(max(0, xmp.itemLength ?? 0), size), padding = min(max(0, xmp.itemPadding ?? 0), size)
            if xmp.hasVideoItem, length > 0 {
                // Padding after the video per the spec; some writers count it the other way.
                for back in [length + padding] + (padding > 0 ? [length] : []) {
                    if let r = try video(src, fromEnd: back, length: length) {
                        return Outcome(info: MotionPhotoInfo(kind: .google, video: r, presentationUs: xmp.presentationUs))
                    }
                }
                return Outcome(problem: "MotionPhoto=1 but no video at the Container offset (stripped by an editor?)")
            }
            if let back = xmp.microVideoOffset, let r = try video(src, fromEnd: back, length: back) {
                return Outcome(info: MotionPhotoInfo(kind: .microVideo, video: r, presentationUs: xmp.presentationUs))
            }
            if let start = imageDataStart, let at = try scanForMP4(src, from: start) {
                return Outcome(info: MotionPhotoInfo(kind: .google, video: ByteRange(offset: at, length: size - at),
                                                     presentationUs: xmp.presentationUs))
            }
            return Outcome(problem: "MotionPhoto=1 but no MotionPhoto item and no video after the image")
        }
        if xmp.microVideo {
            if let back = xmp.microVideoOffset, let r = try video(src, fromEnd: back, length: back) {
                return Outcome(info: MotionPhotoInfo(kind: .microVideo, video: r, presentationUs: xmp.presentationUs))
            }
            return Outcome(problem: "MicroVideo=1 but no video at MicroVideoOffset (stripped by an editor?)")
        }
        return Outcome()
    }

    static func video(_ src: some ByteSource, fromEnd back: Int, length: Int) throws(GpickError) -> ByteRange? {
        guard back > 0, back < src.size, length > 0, length <= back else { return nil }
        let at = src.size - back
        return try isMP4(src, at: at) ? ByteRange(offset: at, length: length) : nil
    }

    /// An `ftyp` box at `offset`: a big-endian size of at least 8 that fits in the file, then "ftyp".
    static func isMP4(_ src: some ByteSource, at offset: Int) throws(GpickError) -> Bool {
        guard offset >= 0, offset <= src.size - 16 else { return false }
        let v = ByteView(try src.read(at: offset, count: 8))
        guard let size = v.u32(0), size >= 8, size <= src.size - offset else { return false }
        return v.matches(4, "ftyp")
    }

    /// The first plausible `ftyp` box after `from`, read in 1 MiB blocks, at most `maxScan` bytes.
    static func scanForMP4(_ src: some ByteSource, from: Int) throws(GpickError) -> Int? {
        let block = 1 << 20, needle = Array("ftyp".utf8)
        var at = max(0, from)
        let stop = min(src.size, at + maxScan)
        while at < stop {
            let bytes = try src.read(at: at, count: min(block + 16, stop - at))
            guard bytes.count >= 8 else { return nil }
            var i = 4
            while let hit = bytes.firstIndex(of: needle, from: i) {
                let start = at + hit - 4
                if let size = ByteView(bytes).u32(hit - 4), size >= 16, size <= 4096, try isMP4(src, at: start) {
                    return start
                }
                i = hit + 1
            }
            at += block
        }
        return nil
    }
}

/// Samsung's SEF trailer, at the very end of the file: `…[blocks][SEFH directory][length LE]["SEFT"]`.
/// The directory counts its entries' positions back from its own start; each block is
/// `[2 bytes 0][type LE][name length LE][name][data]`. Type 0x0A30, named "MotionPhoto_Data",
/// holds the MP4. (Layout as exiftool's Samsung.pm reads it.)
enum SamsungTrailer {
    static let motionPhotoType = 0x0A30

    /// The MotionPhoto_Data block's data, when the trailer lists one inside the file.
    static func video(_ src: some ByteSource) throws(GpickError) -> ByteRange? {
        let size = src.size
        guard size >= 32 else { return nil }
        let tail = ByteView(try src.read(at: size - 8, count: 8), littleEndian: true)
        guard tail.matches(4, "SEFT"), let dirLength = tail.u32(0), dirLength >= 12, dirLength < 0x10000,
              dirLength + 8 < size else { return nil }
        let dirStart = size - 8 - dirLength
        let dir = ByteView(try src.read(at: dirStart, count: dirLength), littleEndian: true)
        guard dir.matches(0, "SEFH"), let count = dir.u32(8), count <= (dirLength - 12) / 12 else { return nil }
        for k in 0..<count {
            let e = 12 + 12 * k
            guard let type = dir.u16(e + 2), let back = dir.u32(e + 4), let length = dir.u32(e + 8) else { break }
            guard back <= dirStart, length >= 8, length <= back else { continue }
            let blockStart = dirStart - back
            let head = ByteView(try src.read(at: blockStart, count: 8 + 64), littleEndian: true)
            guard let nameLength = head.u32(4), nameLength <= 64, nameLength + 8 < length else { continue }
            let name = head.slice(8, nameLength).map { String(decoding: $0, as: UTF8.self) }
            guard type == motionPhotoType || name == "MotionPhoto_Data" else { continue }
            return ByteRange(offset: blockStart + 8 + nameLength, length: length - 8 - nameLength)
        }
        return nil
    }
}
