import FoundationEssentials
import GpickBase
import Glibc

/// Turns qtmux's MOV into the movie half of an Apple Live Photo: a `meta` atom in moov with the
/// mdta key `com.apple.quicktime.content.identifier`, and a timed-metadata track (mebx, key
/// `com.apple.quicktime.still-image-time`, int8) with one sample at the still's time, referring
/// to the video track (`cdsc`). GStreamer 1.22's qtmux cannot write mdta keys, so gpick does.
public enum AppleLivePhoto {
    static let contentKey = "com.apple.quicktime.content.identifier"
    static let stillKey = "com.apple.quicktime.still-image-time"

    /// The old moov becomes `free`; a small mdat with the metadata sample and the new moov are
    /// appended, so no chunk offset of the media has to move.
    public static func patch(mov data: [UInt8], uuid: String, stillTime: Double) throws(GpickError) -> [UInt8] {
        let top = QTAtom.children(data, in: 0..<data.count)
        guard let moov = top.last(where: { $0.type == "moov" }) else { throw GpickError(.runtime, "the clip has no moov atom") }
        let kids = QTAtom.children(data, in: moov.payload)
        guard let mvhd = kids.first(where: { $0.type == "mvhd" }) else { throw GpickError(.runtime, "the clip has no mvhd atom") }
        let p = mvhd.payload.lowerBound
        let v1 = data[p] == 1
        let timescale = QTAtom.u32(data, p + (v1 ? 20 : 12))
        let nextIDOffset = p + (v1 ? 108 : 96)
        let nextID = QTAtom.u32(data, nextIDOffset)
        guard timescale > 0 else { throw GpickError(.runtime, "the clip's movie timescale is 0") }
        // The video track's ID, for the cdsc reference.
        var videoID: UInt32 = 1
        for trak in kids where trak.type == "trak" {
            let t = QTAtom.children(data, in: trak.payload)
            guard let tkhd = t.first(where: { $0.type == "tkhd" }), let mdia = t.first(where: { $0.type == "mdia" }) else { continue }
            let hdlr = QTAtom.children(data, in: mdia.payload).first { $0.type == "hdlr" }
            if let h = hdlr, String(decoding: data[(h.payload.lowerBound + 8)..<(h.payload.lowerBound + 12)], as: UTF8.self) == "vide" {
                let tp = tkhd.payload.lowerBound
                videoID = QTAtom.u32(data, tp + (data[tp] == 1 ? 20 : 12))
            }
        }
        let sample: [UInt8] = be32(9) + be32(1) + [0xFF]   // one item: local key 1, int8 -1
        let mdat = QTAtom.atom("mdat", sample)
        let sampleOffset = UInt32(data.count + 8)
        let stillUnits = UInt32((stillTime * Double(timescale)).rounded())
        let sampleUnits = max(1, timescale / 30)

        var moovPayload: [UInt8] = []
        for k in kids {
            var atomBytes = Array(data[k.offset..<(k.offset + k.size)])
            if k.type == "mvhd" {  // one more track
                let o = nextIDOffset - k.offset
                atomBytes.replaceSubrange(o..<(o + 4), with: be32(nextID + 1))
            }
            moovPayload += atomBytes
        }
        moovPayload += metaAtom(uuid: uuid)
        moovPayload += metadataTrack(id: nextID, videoID: videoID, timescale: timescale, still: stillUnits,
                                     sampleUnits: sampleUnits, chunkOffset: sampleOffset)
        var out = data
        out.replaceSubrange((moov.offset + 4)..<(moov.offset + 8), with: Array("free".utf8))
        out += mdat
        out += QTAtom.atom("moov", moovPayload)
        return out
    }

    /// moov/meta: hdlr mdta, keys, ilst (QuickTime's meta is not a full atom).
    static func metaAtom(uuid: String) -> [UInt8] {
        let hdlr = QTAtom.fullAtom("hdlr", be32(0) + Array("mdta".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let key = be32(UInt32(8 + contentKey.utf8.count)) + Array("mdta".utf8) + Array(contentKey.utf8)
        let keys = QTAtom.fullAtom("keys", be32(1) + key)
        let value = QTAtom.atom("data", be32(1) + be32(0) + Array(uuid.utf8))   // type 1: UTF-8
        let item = be32(UInt32(8 + value.count)) + be32(1) + value              // item for key index 1
        let ilst = QTAtom.atom("ilst", item)
        return QTAtom.atom("meta", hdlr + keys + ilst)
    }

    static func metadataTrack(id: UInt32, videoID: UInt32, timescale: UInt32, still: UInt32, sampleUnits: UInt32,
                              chunkOffset: UInt32) -> [UInt8] {
        let duration = still + sampleUnits
        let matrix: [UInt8] = be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x4000_0000)
        let tkhd = QTAtom.fullAtom("tkhd", flags: 0x000001,
                                   be32(0) + be32(0) + be32(id) + be32(0) + be32(duration) + be64(0) +
                                   be16(0) + be16(0) + be16(0) + be16(0) + matrix + be32(0) + be32(0))
        let tref = QTAtom.atom("tref", QTAtom.atom("cdsc", be32(videoID)))
        // The sample plays at the still's time: an empty edit up to it, then the sample.
        var edits: [UInt8] = []
        var count: UInt32 = 0
        if still > 0 { edits += be32(still) + be32(0xFFFF_FFFF) + be32(0x0001_0000); count += 1 }
        edits += be32(sampleUnits) + be32(0) + be32(0x0001_0000); count += 1
        let edts = QTAtom.atom("edts", QTAtom.fullAtom("elst", be32(count) + edits))
        let mdhd = QTAtom.fullAtom("mdhd", be32(0) + be32(0) + be32(timescale) + be32(sampleUnits) + be16(0x55C4) + be16(0))
        let hdlr = QTAtom.fullAtom("hdlr", Array("mhlr".utf8) + Array("meta".utf8) + be32(0) + be32(0) + be32(0) + [0])
        let keyd = QTAtom.atom("keyd", Array("mdta".utf8) + Array(stillKey.utf8))
        let dtyp = QTAtom.atom("dtyp", be32(0) + be32(65))                       // well-known type 65: int8
        let localKey = be32(UInt32(8 + keyd.count + dtyp.count)) + be32(1) + keyd + dtyp
        let keysBox = QTAtom.atom("keys", localKey)
        let mebx = QTAtom.atom("mebx", [UInt8](repeating: 0, count: 6) + be16(1) + keysBox)
        let stsd = QTAtom.fullAtom("stsd", be32(1) + mebx)
        let stts = QTAtom.fullAtom("stts", be32(1) + be32(1) + be32(sampleUnits))
        let stsc = QTAtom.fullAtom("stsc", be32(1) + be32(1) + be32(1) + be32(1))
        let stsz = QTAtom.fullAtom("stsz", be32(9) + be32(1))
        let stco = QTAtom.fullAtom("stco", be32(1) + be32(chunkOffset))
        let stbl = QTAtom.atom("stbl", stsd + stts + stsc + stsz + stco)
        let dref = QTAtom.fullAtom("dref", be32(1) + QTAtom.fullAtom("alis", flags: 1, []))
        let minf = QTAtom.atom("minf", QTAtom.fullAtom("nmhd", []) + QTAtom.atom("dinf", dref) + stbl)
        let mdia = QTAtom.atom("mdia", mdhd + hdlr + minf)
        return QTAtom.atom("trak", tkhd + tref + edts + mdia)
    }

    /// Reads the content identifier and the still-image-time back from a MOV (for inspect).
    public static func read(mov data: [UInt8]) -> (uuid: String?, stillTime: Double?, hasStillTrack: Bool) {
        let top = QTAtom.children(data, in: 0..<data.count)
        guard let moov = top.last(where: { $0.type == "moov" }) else { return (nil, nil, false) }
        let kids = QTAtom.children(data, in: moov.payload)
        var uuid: String?
        if let meta = kids.first(where: { $0.type == "meta" }) {
            let m = QTAtom.children(data, in: meta.payload)
            if let ilst = m.first(where: { $0.type == "ilst" }), let item = QTAtom.children(data, in: ilst.payload).first,
               let d = QTAtom.children(data, in: item.payload).first(where: { $0.type == "data" }) {
                uuid = String(decoding: data[(d.payload.lowerBound + 8)..<d.payload.upperBound], as: UTF8.self)
            }
        }
        var still: Double?, hasTrack = false
        let timescale: UInt32 = {
            guard let mvhd = kids.first(where: { $0.type == "mvhd" }) else { return 0 }
            let p = mvhd.payload.lowerBound
            return QTAtom.u32(data, p + (data[p] == 1 ? 20 : 12))
        }()
        for trak in kids where trak.type == "trak" {
            let bytes = data[trak.payload]
            guard bytes.count > 40, String(decoding: bytes, as: UTF8.self).contains(stillKey) else { continue }
            hasTrack = true
            let t = QTAtom.children(data, in: trak.payload)
            if let edts = t.first(where: { $0.type == "edts" }), let elst = QTAtom.children(data, in: edts.payload).first,
               timescale > 0 {
                let e = elst.payload.lowerBound
                let n = QTAtom.u32(data, e + 4)
                let firstMediaTime = QTAtom.u32(data, e + 12)
                still = n > 1 && firstMediaTime == 0xFFFF_FFFF ? Double(QTAtom.u32(data, e + 8)) / Double(timescale) : 0
            }
        }
        return (uuid, still, hasTrack)
    }
}
