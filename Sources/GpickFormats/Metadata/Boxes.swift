import FoundationEssentials
import GpickBase

/// An ISO BMFF box (a QuickTime atom): MP4, MOV, 3GP, HEIF and AVIF are all made of them.
struct Box {
    let type: String
    let offset: Int      // of the header, in whatever the box was found in
    let headerSize: Int  // 8, or 16 with a 64-bit `largesize`
    let size: Int        // header included
    var payload: Range<Int> { (offset + headerSize)..<(offset + size) }

    static let maxChildren = 4096

    /// The boxes in `range` of `bytes`, one level; the walk stops at the first box whose size
    /// is impossible (smaller than its header, or past the range), so it always ends.
    static func children(_ v: ByteView, in range: Range<Int>) -> [Box] {
        var out: [Box] = []
        var i = max(0, range.lowerBound)
        let end = min(range.upperBound, v.count)
        while out.count < maxChildren, i <= end - 8, let size32 = v.u32(i), let type = v.fourCC(i + 4) {
            var size = size32, header = 8
            if size32 == 1 {
                guard let large = v.u64(i + 8) else { break }
                size = large
                header = 16
            } else if size32 == 0 {
                size = end - i  // to the end
            }
            guard size >= header, size <= end - i else { break }
            out.append(Box(type: type, offset: i, headerSize: header, size: size))
            i += size
        }
        return out
    }

    static func first(_ type: String, _ v: ByteView, in range: Range<Int>) -> Box? {
        children(v, in: range).first { $0.type == type }
    }

    /// The top-level boxes of a file, read header by header (16 bytes each), up to and including
    /// the first box of a type in `until`. A box running past the end of the file is returned
    /// with its claimed size, and ends the walk (the file is truncated there).
    static func topLevel(_ src: some ByteSource, until: Set<String>) throws(GpickError) -> [Box] {
        var out: [Box] = []
        var i = 0
        while out.count < maxChildren, i <= src.size - 8 {
            let h = ByteView(try src.read(at: i, count: 16))
            guard let size32 = h.u32(0), let type = h.fourCC(4) else { break }
            var size = size32, header = 8
            if size32 == 1 {
                guard let large = h.u64(8) else { break }
                size = large
                header = 16
            } else if size32 == 0 {
                size = src.size - i
            }
            guard size >= header else { break }
            out.append(Box(type: type, offset: i, headerSize: header, size: size))
            if until.contains(type) || size > src.size - i { break }
            i += size
        }
        return out
    }

    /// A box's payload read whole, clipped to the end of the file; nil above `limit` bytes.
    static func load(_ box: Box, from src: some ByteSource, limit: Int) throws(GpickError) -> ByteView? {
        let available = min(box.size, src.size - box.offset)
        guard available <= limit else { return nil }
        return ByteView(try src.read(at: box.offset, count: available))
    }

    /// A `meta` box's children: MP4's is a full box (4 bytes of version and flags first),
    /// QuickTime's is not. Told apart by whether a box header starts right after the header.
    static func metaChildren(_ v: ByteView, _ meta: Box) -> [Box] {
        let p = meta.payload.lowerBound
        let looksLikeBox = v.u32(p).map { $0 >= 8 && $0 <= meta.payload.count } == true
            && v.slice(p + 4, 4)?.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x20 || ($0 >= 0x30 && $0 <= 0x39) } == true
        return children(v, in: span(looksLikeBox ? p : p + 4, meta.payload.upperBound))
    }
}

/// `lo..<hi`, or empty when a damaged size puts `hi` before `lo` (a plain range would trap).
func span(_ lo: Int, _ hi: Int) -> Range<Int> { lo..<max(lo, hi) }

/// What an `ftyp` box says a file is.
enum Brand {
    static let heif: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "mif2"]
    static let avif: Set<String> = ["avif", "avis"]

    /// The container for the major and compatible brands (any brand not HEIF/AVIF is a movie).
    static func container(major: String, compatible: [String]) -> MediaMetadata.Container {
        if avif.contains(major) { return .avif }
        if heif.contains(major) {
            // A plain "mif1" file is AVIF when it lists avif and no HEVC brand.
            let hevc = compatible.contains { ["heic", "heix", "heim", "heis"].contains($0) }
            return !hevc && compatible.contains("avif") ? .avif : .heif
        }
        return major == "qt  " ? .quicktime : .mp4
    }

    static func read(_ v: ByteView, _ ftyp: Box) -> (major: String, compatible: [String]) {
        let p = ftyp.payload
        let major = v.fourCC(p.lowerBound) ?? ""
        var compatible: [String] = []
        var i = p.lowerBound + 8
        while i + 4 <= p.upperBound, compatible.count < 64, let b = v.fourCC(i) {
            compatible.append(b)
            i += 4
        }
        return (major, compatible)
    }
}
