import FoundationEssentials
import GpickBase

/// A HEIF image stored as a grid of HEVC tiles (how phones store 12 MP and larger photos: a
/// Galaxy S24 Ultra's 200 MP is 32 × 24 tiles of 512 × 512): where each tile's bytes are, the
/// decoder configuration they share, and how the whole is turned and coloured. A decoder can
/// then shrink the tiles one by one, never holding the whole image (HEIF, ISO/IEC 23008-12 6.6.2.3).
public struct HEIFGrid: Sendable, Equatable {
    public var rows: Int
    public var columns: Int
    /// The output size (the tiles may cover more; the rest is cut).
    public var width: Int
    public var height: Int
    public var tileWidth: Int
    public var tileHeight: Int
    /// Each tile's HEVC data (length-prefixed NAL units), row by row.
    public var tiles: [ByteRange]
    /// The tiles' `hvcC` payload: the parameter sets every tile is decoded with.
    public var decoderConfiguration: [UInt8]
    /// The part of the output that is shown (`clap`), cut before it is turned.
    public var cleanAperture: CleanAperture?
    /// EXIF-style orientation of the whole (irot, imir), 1 when none.
    public var orientation: Int
    /// `colr` nclx: ITU-T H.273 matrix coefficients and range (HEIF's default: BT.601, full range).
    public var matrixCoefficients: Int
    public var fullRange: Bool

    static let maxTiles = 16_384

    /// The primary image's grid, or nil when the primary image is not an HEVC grid (or the grid
    /// does not add up: tiles missing, of different sizes or configurations).
    public static func read(_ src: some ByteSource) throws(GpickError) -> HEIFGrid? {
        let top = try Box.topLevel(src, until: ["meta"])
        guard let metaBox = top.first(where: { $0.type == "meta" }),
              let v = try Box.load(metaBox, from: src, limit: HEIFReader.maxMeta) else { return nil }
        let items = HEIFItems(view: v, meta: Box(type: "meta", offset: 0, headerSize: metaBox.headerSize, size: v.count))
        guard let primary = items.primary, items.items.first(where: { $0.id == primary })?.type == "grid",
              let data = try items.bytes(of: primary, in: src, limit: 64), data.count >= 8 else { return nil }
        let g = ByteView(data)
        guard let flags = g.u8(1), let rowsMinusOne = g.u8(2), let columnsMinusOne = g.u8(3) else { return nil }
        let wide = flags & 1 == 1
        guard let width = wide ? g.u32(4) : g.u16(4), let height = wide ? g.u32(8) : g.u16(6), width > 0, height > 0 else { return nil }
        let ids = items.references.first { $0.type == "dimg" && $0.from == primary }?.to ?? []
        let (rows, columns) = (rowsMinusOne + 1, columnsMinusOne + 1)
        guard ids.count == rows * columns, ids.count <= maxTiles,
              ids.allSatisfy({ id in items.items.first { $0.id == id }?.type == "hvc1" }) else { return nil }
        // Every tile: one size, one configuration, one extent of bytes inside the file.
        guard let first = ids.first, let size = items.size(of: first),
              let config = items.properties(of: first).first(where: { $0.type == "hvcC" }),
              let configBytes = v.slice(config.payload.lowerBound, config.payload.count),
              let iloc = items.children.first(where: { $0.type == "iloc" }) else { return nil }
        var tiles: [ByteRange] = []
        tiles.reserveCapacity(ids.count)
        for id in ids {
            guard let s = items.size(of: id), s == size,
                  items.properties(of: id).first(where: { $0.type == "hvcC" })?.offset == config.offset,
                  let (method, offset, length) = HEIFReader.location(v, iloc, item: id), method == 0,
                  length > 0, offset >= 0, offset <= src.size - length else { return nil }
            tiles.append(ByteRange(offset: offset, length: length))
        }
        guard size.width * columns >= width, size.height * rows >= height else { return nil }
        var matrix = 6, full = true
        let colour = items.properties(of: primary).first { $0.type == "colr" } ?? items.properties(of: first).first { $0.type == "colr" }
        if let colr = colour, v.fourCC(colr.payload.lowerBound) == "nclx",
           let m = v.u16(colr.payload.lowerBound + 8), let range = v.u8(colr.payload.lowerBound + 10) {
            matrix = m
            full = range & 0x80 != 0
        }
        return HEIFGrid(rows: rows, columns: columns, width: width, height: height, tileWidth: size.width, tileHeight: size.height,
                        tiles: tiles, decoderConfiguration: Array(configBytes),
                        cleanAperture: items.cleanAperture(of: primary), orientation: items.orientation(of: primary) ?? 1,
                        matrixCoefficients: matrix, fullRange: full)
    }

    /// The parameter sets (VPS, SPS, PPS…) of `decoderConfiguration`, and how many bytes prefix
    /// each NAL unit's length in the tiles' data.
    public func parameterSets() -> (nalUnits: [[UInt8]], lengthSize: Int)? {
        let c = ByteView(decoderConfiguration)
        guard let sizeByte = c.u8(21), let arrays = c.u8(22) else { return nil }
        var units: [[UInt8]] = []
        var i = 23
        for _ in 0..<arrays {
            guard let count = c.u16(i + 1) else { return nil }
            i += 3
            for _ in 0..<count {
                guard let n = c.u16(i), let unit = c.slice(i + 2, n) else { return nil }
                units.append(Array(unit))
                i += 2 + n
            }
        }
        return (units, (sizeByte & 3) + 1)
    }
}
