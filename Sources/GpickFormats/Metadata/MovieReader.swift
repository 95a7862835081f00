import FoundationEssentials
import GpickBase

/// MP4, MOV, M4V and 3GP: the top-level boxes by their headers, then `moov` read whole (it holds
/// every fact read here; never the media data).
enum MovieReader {
    static let maxMoov = 64 * 1024 * 1024
    static let contentKey = "com.apple.quicktime.content.identifier"
    static let creationKey = "com.apple.quicktime.creationdate"

    static func read(_ src: some ByteSource, container: MediaMetadata.Container,
                     top: [Box]) throws(GpickError) -> MediaMetadata {
        var meta = MediaMetadata(container: container)
        let name = container == .quicktime ? "QuickTime movie" : "MP4"
        guard let moovBox = top.first(where: { $0.type == "moov" }) else {
            throw GpickError(.input, "truncated \(name): no moov box")
        }
        // A moov beyond the bound is left unread: the container alone is still right.
        guard let v = try Box.load(moovBox, from: src, limit: maxMoov) else { return meta }
        let moov = Box.children(v, in: moovBox.headerSize..<v.count)
        if let mvhd = moov.first(where: { $0.type == "mvhd" }) { readMovieHeader(v, mvhd, into: &meta) }
        for trak in moov where trak.type == "trak" {
            if readVideoTrack(v, trak, into: &meta) { break }
        }
        // QuickTime keys live in moov/meta; some writers put them in moov/udta/meta.
        var metas = moov.filter { $0.type == "meta" }
        if let udta = moov.first(where: { $0.type == "udta" }) {
            metas += Box.children(v, in: udta.payload).filter { $0.type == "meta" }
        }
        for m in metas {
            let keys = readKeys(v, m)
            if meta.contentIdentifier == nil { meta.contentIdentifier = keys[contentKey].flatMap(cleanText) }
            if let date = keys[creationKey].flatMap(cleanText).flatMap(TakenDate.parse) { meta.takenAt = date }
        }
        return meta
    }

    /// mvhd: the duration, and the creation time (seconds since 1904, UTC; 0 = unset).
    static func readMovieHeader(_ v: ByteView, _ mvhd: Box, into meta: inout MediaMetadata) {
        let p = mvhd.payload.lowerBound
        let v1 = v.u8(p) == 1
        let created = v1 ? v.u64(p + 4) : v.u32(p + 4)
        let timescale = v.u32(p + (v1 ? 20 : 12))
        let duration = v1 ? v.u64(p + 24) : v.u32(p + 16).flatMap { $0 == 0xFFFF_FFFF ? nil : $0 }
        if let timescale, timescale > 0, let duration, duration > 0 {
            meta.duration = Double(duration) / Double(timescale)
        }
        if meta.takenAt == nil, let created { meta.takenAt = TakenDate.fromMacEpoch(created) }
    }

    /// The first video track's size and rotation; false when `trak` is no video track.
    static func readVideoTrack(_ v: ByteView, _ trak: Box, into meta: inout MediaMetadata) -> Bool {
        let kids = Box.children(v, in: trak.payload)
        guard let tkhd = kids.first(where: { $0.type == "tkhd" }), let mdia = kids.first(where: { $0.type == "mdia" }) else {
            return false
        }
        let media = Box.children(v, in: mdia.payload)
        guard let hdlr = media.first(where: { $0.type == "hdlr" }), v.fourCC(hdlr.payload.lowerBound + 8) == "vide" else {
            return false
        }
        let p = tkhd.payload.lowerBound
        let v1 = v.u8(p) == 1
        let matrix = p + (v1 ? 52 : 40)
        let w = v.u32(matrix + 36).map { $0 >> 16 }, h = v.u32(matrix + 40).map { $0 >> 16 }
        if let w, let h, w > 0, h > 0 {
            meta.width = w
            meta.height = h
        } else if let size = sampleEntrySize(v, media) {
            meta.width = size.0
            meta.height = size.1
        }
        if let a = v.s32(matrix), let b = v.s32(matrix + 4), let c = v.s32(matrix + 12), let d = v.s32(matrix + 16) {
            meta.orientation = orientation(a: a, b: b, c: c, d: d)
        }
        return true
    }

    /// The visual sample entry's coded size (when tkhd has none): minf/stbl/stsd's first entry.
    static func sampleEntrySize(_ v: ByteView, _ media: [Box]) -> (Int, Int)? {
        guard let minf = media.first(where: { $0.type == "minf" }),
              let stbl = Box.first("stbl", v, in: minf.payload),
              let stsd = Box.first("stsd", v, in: stbl.payload),
              let entry = Box.children(v, in: span(stsd.payload.lowerBound + 8, stsd.payload.upperBound)).first else { return nil }
        // VisualSampleEntry: 6 reserved, 2 index, 16 predefined/reserved, then width and height.
        let q = entry.payload.lowerBound
        guard let w = v.u16(q + 24), let h = v.u16(q + 26), w > 0, h > 0 else { return nil }
        return (w, h)
    }

    /// The tkhd matrix's rotation as an EXIF orientation: the display turns the stored frame by
    /// 90° clockwise when a = 0, b = 1, c = −1, d = 0 (what exiftool calls Rotation 90).
    static func orientation(a: Int, b: Int, c: Int, d: Int) -> Int? {
        switch (a.signum(), b.signum(), c.signum(), d.signum()) {
        case (1, 0, 0, 1): 1
        case (-1, 0, 0, 1): 2
        case (-1, 0, 0, -1): 3
        case (1, 0, 0, -1): 4
        case (0, 1, 1, 0): 5
        case (0, 1, -1, 0): 6
        case (0, -1, -1, 0): 7
        case (0, -1, 1, 0): 8
        default: nil
        }
    }

    /// A QuickTime `meta` box's mdta keys with their ilst values (raw bytes of `data`).
    static func readKeys(_ v: ByteView, _ meta: Box) -> [String: ArraySlice<UInt8>] {
        let kids = Box.metaChildren(v, meta)
        guard let keysBox = kids.first(where: { $0.type == "keys" }),
              let ilst = kids.first(where: { $0.type == "ilst" }) else { return [:] }
        var names: [String] = []
        let p = keysBox.payload
        var i = p.lowerBound + 8
        if let n = v.u32(p.lowerBound + 4) {
            for _ in 0..<min(n, 1024) {
                guard let size = v.u32(i), size >= 8, size <= p.upperBound - i, let key = v.slice(i + 8, size - 8) else { break }
                names.append(String(decoding: key, as: UTF8.self))
                i += size
            }
        }
        var out: [String: ArraySlice<UInt8>] = [:]
        for item in Box.children(v, in: ilst.payload) {
            // An item's type is its 1-based key index, big-endian.
            guard let index = v.u32(item.offset + 4), index >= 1, index <= names.count,
                  let data = Box.first("data", v, in: item.payload), data.payload.count >= 8 else { continue }
            let value = v.bytes[(data.payload.lowerBound + 8)..<data.payload.upperBound]
            out[names[index - 1]] = out[names[index - 1]] ?? value
        }
        return out
    }
}
