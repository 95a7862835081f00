import FoundationEssentials
import GpickBase

/// Matroska and WebM: the EBML header's DocType, then Info (duration, date) and Tracks (the first
/// video track's size) when they sit in the file's first block, as muxers put them.
enum MatroskaReader {
    static let headBytes = 256 * 1024

    struct Element {
        let id: Int
        let data: Range<Int>
    }

    static func read(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        let v = ByteView(try src.read(at: 0, count: headBytes))
        let top = elements(v, in: 0..<v.count)
        guard let header = top.first, header.id == 0x1A45DFA3 else { throw GpickError(.input, "not a Matroska file: no EBML header") }
        let docType = elements(v, in: header.data).first { $0.id == 0x4282 }.flatMap { cleanText(v.bytes[$0.data]) }
        var meta = MediaMetadata(container: docType == "webm" ? .webm : .matroska)
        guard let segment = top.first(where: { $0.id == 0x18538067 }) else { return meta }
        for e in elements(v, in: segment.data, stopAt: 0x1F43B675) {  // up to the first Cluster
            switch e.id {
            case 0x1549A966: readInfo(v, e, into: &meta)
            case 0x1654AE6B where meta.width == nil:
                for track in elements(v, in: e.data) where track.id == 0xAE {
                    let fields = elements(v, in: track.data)
                    guard fields.first(where: { $0.id == 0x83 }).flatMap({ uint(v, $0) }) == 1,
                          let video = fields.first(where: { $0.id == 0xE0 }) else { continue }
                    let dims = elements(v, in: video.data)
                    meta.width = dims.first { $0.id == 0xB0 }.flatMap { uint(v, $0) }
                    meta.height = dims.first { $0.id == 0xBA }.flatMap { uint(v, $0) }
                    break
                }
            default: break
            }
        }
        return meta
    }

    static func readInfo(_ v: ByteView, _ info: Element, into meta: inout MediaMetadata) {
        let fields = elements(v, in: info.data)
        let scale = fields.first { $0.id == 0x2AD7B1 }.flatMap { uint(v, $0) } ?? 1_000_000
        if let d = fields.first(where: { $0.id == 0x4489 }).flatMap({ float(v, $0) }), d.isFinite, d > 0 {
            meta.duration = d * Double(scale) / 1e9
        }
        // DateUTC: nanoseconds since 2001-01-01 UTC, which is 3,061,152,000 s after 1904.
        if let e = fields.first(where: { $0.id == 0x4461 }), e.data.count == 8, let ns = v.u64(e.data.lowerBound) {
            meta.takenAt = TakenDate.fromMacEpoch(ns / 1_000_000_000 + 3_061_152_000)
        }
    }

    /// Elements in `range`, one level; an unknown size (all ones) runs to the end of the range.
    static func elements(_ v: ByteView, in range: Range<Int>, stopAt: Int? = nil) -> [Element] {
        var out: [Element] = []
        var i = range.lowerBound
        while out.count < 1024, i < range.upperBound {
            guard let (id, idLength) = vint(v, i, keepMarker: true), idLength <= 4,
                  let (size, sizeLength) = vint(v, i + idLength, keepMarker: false) else { break }
            if id == stopAt { break }
            let start = i + idLength + sizeLength
            guard start <= range.upperBound else { break }
            let unknown = size == (1 << (7 * sizeLength)) - 1
            let end = unknown || size > range.upperBound - start ? range.upperBound : start + size
            out.append(Element(id: id, data: start..<end))
            i = end
        }
        return out
    }

    /// An EBML variable-length integer: its length is told by the first byte's leading zeros.
    static func vint(_ v: ByteView, _ at: Int, keepMarker: Bool) -> (Int, Int)? {
        guard let first = v.u8(at), first != 0 else { return nil }
        let length = first.leadingZeroBitCount - (Int.bitWidth - 8) + 1
        guard length <= 8, v.has(at, length) else { return nil }
        var value = keepMarker ? first : first & (0xFF >> length)
        for k in 1..<length { value = value << 8 | Int(v.bytes[at + k]) }
        return (value, length)
    }

    static func uint(_ v: ByteView, _ e: Element) -> Int? {
        guard e.data.count >= 1, e.data.count <= 7 else { return nil }
        return v.bytes[e.data].reduce(0) { $0 << 8 | Int($1) }
    }

    static func float(_ v: ByteView, _ e: Element) -> Double? {
        switch e.data.count {
        case 4: v.u32(e.data.lowerBound).map { Double(Float(bitPattern: UInt32($0))) }
        case 8: v.u32(e.data.lowerBound).flatMap { hi in
            v.u32(e.data.lowerBound + 4).map { lo in Double(bitPattern: UInt64(hi) << 32 | UInt64(lo)) }
        }
        default: nil
        }
    }
}

/// AVI: RIFF "AVI " with the main header (avih) first in its hdrl list: frame time, frame
/// count and size.
enum AVIReader {
    static func read(_ src: some ByteSource) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: .avi)
        let v = ByteView(try src.read(at: 0, count: 96), littleEndian: true)
        guard v.matches(12, "LIST"), v.matches(20, "hdrl"), v.matches(24, "avih") else { return meta }
        let h = 32
        if let usPerFrame = v.u32(h), let frames = v.u32(h + 16), usPerFrame > 0, frames > 0 {
            meta.duration = Double(frames) * Double(usPerFrame) / 1e6
        }
        if let w = v.u32(h + 32), let height = v.u32(h + 36), w > 0, height > 0 {
            meta.width = w
            meta.height = height
        }
        return meta
    }
}
