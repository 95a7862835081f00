import FoundationEssentials
import GpickBase

/// The items of a HEIF/AVIF `meta` box (ISO/IEC 23008-12): what each item is (`iinf`), how items
/// refer to each other (`iref`: thumbnails, auxiliary images, tiles), which properties each has
/// (`iprp`: size, rotation, mirror, auxiliary type) and where its bytes are (`iloc`).
struct HEIFItems {
    struct Item {
        var id: Int
        var type: String
        var contentType: String?
        var hidden: Bool
    }

    struct Reference {
        var type: String
        var from: Int
        var to: [Int]
    }

    let view: ByteView
    let children: [Box]
    var items: [Item] = []
    var references: [Reference] = []
    var primary: Int?
    /// ipco's property boxes, and each item's 1-based indices into them.
    private var properties: [Box] = []
    private var associations: [Int: [Int]] = [:]

    init(view v: ByteView, meta: Box) {
        view = v
        children = Box.children(v, in: span(meta.headerSize + 4, v.count))  // meta is a full box here
        primary = children.first { $0.type == "pitm" }.flatMap { p in
            v.u8(p.payload.lowerBound) == 0 ? v.u16(p.payload.lowerBound + 4) : v.u32(p.payload.lowerBound + 4)
        }
        if let iinf = children.first(where: { $0.type == "iinf" }) { items = Self.itemInfos(v, iinf) }
        if let iref = children.first(where: { $0.type == "iref" }) { references = Self.references(v, iref) }
        if let iprp = children.first(where: { $0.type == "iprp" }) {
            let boxes = Box.children(v, in: iprp.payload)
            if let ipco = boxes.first(where: { $0.type == "ipco" }) { properties = Box.children(v, in: ipco.payload) }
            if let ipma = boxes.first(where: { $0.type == "ipma" }) { associations = Self.associations(v, ipma) }
        }
    }

    /// The property boxes associated with `item`, in association order.
    func properties(of item: Int) -> [Box] {
        (associations[item] ?? []).compactMap { $0 >= 1 && $0 <= properties.count ? properties[$0 - 1] : nil }
    }

    /// `ispe`'s size of `item`; without ipma, the largest ispe in ipco (the others are thumbnails and tiles).
    func size(of item: Int?) -> (width: Int, height: Int)? {
        let chosen = item.map(properties(of:)) ?? []
        let sizes = (chosen.isEmpty && item == primary ? properties : chosen).filter { $0.type == "ispe" }
            .compactMap { b -> (Int, Int)? in
                guard let w = view.u32(b.payload.lowerBound + 4), let h = view.u32(b.payload.lowerBound + 8) else { return nil }
                return (w, h)
            }
        return sizes.max { Double($0.0) * Double($0.1) < Double($1.0) * Double($1.1) }
    }

    /// The EXIF orientation (1…8) that `irot` and `imir` of `item` amount to, applied in their
    /// association order as HEIF decoders do; nil when it has neither.
    func orientation(of item: Int) -> Int? {
        // 2×2 matrices (row-major) on y-down coordinates, display = M · stored.
        var m = [1, 0, 0, 1]
        var any = false
        func apply(_ t: [Int]) {
            m = [t[0] * m[0] + t[1] * m[2], t[0] * m[1] + t[1] * m[3], t[2] * m[0] + t[3] * m[2], t[2] * m[1] + t[3] * m[3]]
        }
        for p in properties(of: item) {
            guard let value = view.u8(p.payload.lowerBound) else { continue }
            if p.type == "irot" {
                any = true
                for _ in 0..<(value & 3) { apply([0, 1, -1, 0]) }  // a quarter turn anticlockwise
            } else if p.type == "imir" {
                any = true
                apply(value & 1 == 0 ? [-1, 0, 0, 1] : [1, 0, 0, -1])  // axis 0: vertical (left-right flip)
            }
        }
        guard any else { return nil }
        let exif: [[Int]: Int] = [
            [1, 0, 0, 1]: 1, [-1, 0, 0, 1]: 2, [-1, 0, 0, -1]: 3, [1, 0, 0, -1]: 4,
            [0, 1, 1, 0]: 5, [0, -1, 1, 0]: 6, [0, -1, -1, 0]: 7, [0, 1, -1, 0]: 8,
        ]
        return exif[m]
    }

    /// An auxiliary item's type URN (`auxC`), e.g. depth, alpha or an HDR gain map.
    func auxiliaryType(of item: Int) -> String? {
        guard let auxC = properties(of: item).first(where: { $0.type == "auxC" }),
              let bytes = view.slice(auxC.payload.lowerBound + 4, auxC.payload.count - 4) else { return nil }
        return cleanText(bytes.prefix { $0 != 0 })
    }

    /// The items `type` references point from `item` to (thmb, auxl and cdsc point from the
    /// thumbnail, auxiliary image or metadata to the image they belong to).
    func referencing(_ item: Int, type: String) -> [Int] {
        references.filter { $0.type == type && $0.to.contains(item) }.map(\.from)
    }

    /// The bytes of `item` (first extent only; metadata items have one), bounded by `limit`.
    func bytes(of item: Int, in src: some ByteSource, limit: Int) throws(GpickError) -> [UInt8]? {
        guard let iloc = children.first(where: { $0.type == "iloc" }),
              let (method, offset, length) = HEIFReader.location(view, iloc, item: item),
              length > 0, length <= limit, offset >= 0 else { return nil }
        switch method {
        case 0:  // in the file
            guard offset <= src.size - length else { return nil }
            return try src.read(at: offset, count: length)
        case 1:  // in the meta box's idat
            guard let idat = children.first(where: { $0.type == "idat" }),
                  let s = view.slice(idat.payload.lowerBound + offset, length) else { return nil }
            return Array(s)
        default: return nil
        }
    }

    static func itemInfos(_ v: ByteView, _ iinf: Box) -> [Item] {
        let ip = iinf.payload.lowerBound
        let entriesStart = ip + (v.u8(ip) == 0 ? 6 : 8)
        var out: [Item] = []
        for infe in Box.children(v, in: span(entriesStart, iinf.payload.upperBound)) where infe.type == "infe" {
            let q = infe.payload.lowerBound
            guard let version = v.u8(q), version >= 2, let flags = v.u8(q + 3),
                  let id = version == 2 ? v.u16(q + 4) : v.u32(q + 4) else { continue }
            let typeAt = q + 4 + (version == 2 ? 2 : 4) + 2
            guard let type = v.fourCC(typeAt) else { continue }
            var contentType: String?
            if type == "mime", let rest = v.slice(typeAt + 4, infe.payload.upperBound - typeAt - 4) {
                // item_name NUL content_type NUL [content_encoding NUL]
                let parts = rest.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count >= 2 { contentType = cleanText(parts[1]) }
            }
            out.append(Item(id: id, type: type, contentType: contentType, hidden: flags & 1 == 1))
        }
        return out
    }

    static func references(_ v: ByteView, _ iref: Box) -> [Reference] {
        let p = iref.payload.lowerBound
        guard let version = v.u8(p) else { return [] }
        let idSize = version == 0 ? 2 : 4
        var out: [Reference] = []
        for box in Box.children(v, in: span(p + 4, iref.payload.upperBound)) {
            var i = box.payload.lowerBound
            func id() -> Int? {
                defer { i += idSize }
                return idSize == 2 ? v.u16(i) : v.u32(i)
            }
            guard let from = id(), let count = v.u16(i) else { continue }
            i += 2
            var to: [Int] = []
            for _ in 0..<count {
                guard i + idSize <= box.payload.upperBound, let t = id() else { break }
                to.append(t)
            }
            out.append(Reference(type: box.type, from: from, to: to))
        }
        return out
    }

    /// Every item's property indices (1-based) from `ipma`.
    static func associations(_ v: ByteView, _ ipma: Box) -> [Int: [Int]] {
        let p = ipma.payload.lowerBound
        guard let version = v.u8(p), let flags = v.u8(p + 3), let count = v.u32(p + 4) else { return [:] }
        let wide = flags & 1 == 1
        var i = p + 8
        var out: [Int: [Int]] = [:]
        for _ in 0..<min(count, 65_536) {
            guard let id = version < 1 ? v.u16(i) : v.u32(i) else { break }
            i += version < 1 ? 2 : 4
            guard let n = v.u8(i) else { break }
            i += 1
            var list: [Int] = []
            for _ in 0..<n {
                guard let a = wide ? v.u16(i) : v.u8(i) else { return out }
                list.append(wide ? a & 0x7FFF : a & 0x7F)
                i += wide ? 2 : 1
            }
            out[id] = list
            if i >= ipma.payload.upperBound { break }
        }
        return out
    }
}
