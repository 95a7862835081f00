import Foundation

/// A real HEIF file given a clean aperture (`clap`, ISO/IEC 14496-12 12.1.4): the crop that
/// iPhones and some encoders store beside the coded size, which every viewer applies. The file's
/// pictures are untouched: a `clap` property is added to `ipco`, associated with the primary
/// item before its rotation and mirror (the order HEIF requires), and the offsets `iloc` holds
/// into the file after `meta` move by what `meta` grew.
public enum HEIFCleanAperture {
    public struct EditError: Error, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }

    /// Fractions as the box stores them: numerator, denominator.
    public typealias Fraction = (Int32, Int32)

    public static func adding(to file: [UInt8], width: Fraction, height: Fraction,
                              horizontalOffset: Fraction = (0, 1), verticalOffset: Fraction = (0, 1)) throws -> [UInt8] {
        let top = try boxes(file, 0..<file.count)
        guard let meta = top.first(where: { $0.type == "meta" }) else { throw EditError("no meta box") }
        let children = try boxes(file, meta.start + 12..<meta.end)
        guard let pitm = children.first(where: { $0.type == "pitm" }), let iprp = children.first(where: { $0.type == "iprp" }),
              children.contains(where: { $0.type == "iloc" }) else { throw EditError("no pitm, iprp or iloc") }
        let primary = file[pitm.start + 8] == 0 ? u16(file, pitm.start + 12) : u32(file, pitm.start + 12)
        let properties = try boxes(file, iprp.start + 8..<iprp.end)
        guard let ipco = properties.first(where: { $0.type == "ipco" }), let ipma = properties.first(where: { $0.type == "ipma" }) else {
            throw EditError("no ipco or ipma")
        }
        let existing = try boxes(file, ipco.start + 8..<ipco.end)
        var clap = [UInt8]()
        for (n, d) in [width, height, horizontalOffset, verticalOffset] { clap += be32(UInt32(bitPattern: n)) + be32(UInt32(bitPattern: d)) }
        let newIpco = box("ipco", Array(file[ipco.start + 8..<ipco.end]) + box("clap", clap))
        let newIpma = try associate(file, ipma, item: primary, property: existing.count + 1, types: existing.map(\.type))

        var newIprp = [UInt8]()
        for p in properties {
            newIprp += p.type == "ipco" ? newIpco : p.type == "ipma" ? newIpma : Array(file[p.start..<p.end])
        }
        let grown = newIpco.count - (ipco.end - ipco.start) + newIpma.count - (ipma.end - ipma.start)
        var body = Array(file[meta.start + 8..<meta.start + 12])
        for c in children {
            switch c.type {
            case "iprp": body += box("iprp", newIprp)
            case "iloc": body += try moved(Array(file[c.start..<c.end]), by: grown, after: meta.end)
            default: body += file[c.start..<c.end]
            }
        }
        return Array(file[..<meta.start]) + box("meta", body) + Array(file[meta.end...])
    }

    struct Found { let type: String; let start: Int; let end: Int }

    static func boxes(_ b: [UInt8], _ range: Range<Int>) throws -> [Found] {
        var out: [Found] = [], i = range.lowerBound
        while i + 8 <= range.upperBound {
            var size = u32(b, i)
            if size == 0 { size = range.upperBound - i }  // to the end
            if size == 1, i + 16 <= range.upperBound { size = u32(b, i + 8) << 32 | u32(b, i + 12) }  // 64-bit
            guard size >= 8, i + size <= range.upperBound else { throw EditError("a box at \(i) does not fit") }
            out.append(Found(type: String(decoding: b[i + 4..<i + 8], as: UTF8.self), start: i, end: i + size))
            i += size
        }
        return out
    }

    /// ipma with `property` (1-based) added to `item`'s associations, essential, before its
    /// first irot or imir.
    static func associate(_ b: [UInt8], _ ipma: Found, item: Int, property: Int, types: [String]) throws -> [UInt8] {
        let version = b[ipma.start + 8], wide = b[ipma.start + 11] & 1 == 1
        guard wide || property < 128 else { throw EditError("ipma's 7-bit indices cannot reach property \(property)") }
        var out = Array(b[ipma.start + 8..<ipma.start + 16])  // version, flags, entry count
        var i = ipma.start + 16
        for _ in 0..<u32(b, ipma.start + 12) {
            let idSize = version < 1 ? 2 : 4
            let id = version < 1 ? u16(b, i) : u32(b, i)
            let count = Int(b[i + idSize])
            let each = wide ? 2 : 1
            var list = (0..<count).map { Array(b[i + idSize + 1 + $0 * each..<i + idSize + 1 + ($0 + 1) * each]) }
            if id == item {
                let index = { (a: [UInt8]) in wide ? (Int(a[0] & 0x7f) << 8 | Int(a[1])) : Int(a[0] & 0x7f) }
                let at = list.firstIndex { ["irot", "imir"].contains(types[safe: index($0) - 1] ?? "") } ?? list.count
                list.insert(wide ? [0x80 | UInt8(property >> 8), UInt8(property & 0xff)] : [0x80 | UInt8(property)], at: at)
            }
            out += b[i..<i + idSize] + [UInt8(list.count)] + list.flatMap { $0 }
            i += idSize + 1 + count * each
        }
        return box("ipma", out)
    }

    /// iloc with every file offset (construction method 0) past `after` moved by `delta`.
    static func moved(_ iloc: [UInt8], by delta: Int, after: Int) throws -> [UInt8] {
        var b = iloc
        let version = b[8], offsetSize = Int(b[12] >> 4), lengthSize = Int(b[12] & 15), baseSize = Int(b[13] >> 4)
        let indexSize = version >= 1 ? Int(b[13] & 15) : 0
        func read(_ at: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 << 8 | Int(b[at + $1]) } }
        func write(_ at: Int, _ n: Int, _ v: Int) throws {
            guard n == 8 || v < 1 << (8 * n) else { throw EditError("an offset no longer fits iloc's \(n) bytes") }
            for k in 0..<n { b[at + k] = UInt8(truncatingIfNeeded: v >> (8 * (n - 1 - k))) }
        }
        var i = 14
        let count = version < 2 ? read(i, 2) : read(i, 4)
        i += version < 2 ? 2 : 4
        for _ in 0..<count {
            i += version < 2 ? 2 : 4
            var method = 0
            if version >= 1 { method = read(i, 2) & 15; i += 2 }
            i += 2
            let baseAt = i, base = read(i, baseSize)
            i += baseSize
            let extents = read(i, 2)
            i += 2
            if method == 0, base > 0, base >= after { try write(baseAt, baseSize, base + delta) }
            for _ in 0..<extents {
                i += indexSize
                let offset = read(i, offsetSize)
                if method == 0, base == 0, offset >= after { try write(i, offsetSize, offset + delta) }
                i += offsetSize + lengthSize
            }
        }
        return b
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { ISOBox.box(type, payload) }
    static func be32(_ v: UInt32) -> [UInt8] { ISOBox.be32(v) }
    static func u16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    static func u32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
}

private extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
