import CDe265
import CImaging
import CVips
import GpickBase
import GpickFormats

/// A HEIF grid decoded tile by tile with libde265 and shrunk as it goes (a box average by a power
/// of two that divides the tiles), so a 200 MP photo's 1024 px thumbnail holds a few megabytes, not
/// the 1.2 GB libheif's whole decode does. libvips then scales the small picture into the box.
enum HEIFTiles {
    /// The shrink factor for `box`: the largest power of two that divides the tiles and leaves the
    /// picture at least one and a half times the box (libvips' lanczos then has room to work).
    static func factor(_ grid: HEIFGrid, box: ImageBox) -> Int {
        let scale = box.scale(width: grid.width, height: grid.height, orientation: grid.orientation)
        var k = 1
        while Double(k * 2) <= scale / 1.5, grid.tileWidth % (k * 2) == 0, grid.tileHeight % (k * 2) == 0 { k *= 2 }
        return k
    }

    /// The whole grid shrunk by `factor`, upright.
    @available(*, noasync, message: "it decodes: run it off the cooperative pool")
    static func picture(_ grid: HEIFGrid, fd: Int32, name: String, factor k: Int, limits: DecodeLimits) throws(GpickError) -> VipsPicture {
        guard let (sets, lengthSize) = grid.parameterSets(), !sets.isEmpty else {
            throw GpickError(.input, "cannot read \(name): its HEVC configuration is damaged")
        }
        let (outW, outH) = ((grid.width + k - 1) / k, (grid.height + k - 1) / k)
        guard outW * outH * 3 <= limits.maxWholeImageBytes else {
            throw GpickError(.input, "\(name): image too large to decode: \(grid.width)×\(grid.height) pixels")
        }
        let file = try FileBytes(fd: fd, path: name)
        var canvas = [UInt8](repeating: 0, count: outW * outH * 3)
        let (tileW, tileH) = (grid.tileWidth / k, grid.tileHeight / k)
        for (index, range) in grid.tiles.enumerated() {
            let data = try file.read(at: range.offset, count: range.length)
            guard data.count == range.length else { throw GpickError(.input, "cannot read \(name): the file is truncated or damaged") }
            let (x, y) = (index % grid.columns * tileW, index / grid.columns * tileH)
            guard x < outW, y < outH else { continue }
            try decode(tile: data, sets: sets, lengthSize: lengthSize, name: name) { ycbcr throws(GpickError) in
                var source = ycbcr
                source.matrix = Int32(grid.matrixCoefficients)
                source.full_range = grid.fullRange ? 1 : 0
                let status = canvas.withUnsafeMutableBufferPointer { out in
                    gpick_ycbcr_box_rgb(&source, Int32(k), out.baseAddress, Int32(outW * 3), Int32(x), Int32(y),
                                        Int32(min(tileW, outW - x)), Int32(min(tileH, outH - y)))
                }
                guard status == 0 else { throw GpickError(.input, "cannot read \(name): a tile of the image is damaged") }
            }
        }
        try Vips.start()
        let made = canvas.withUnsafeBytes { cvips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(outW), Int32(outH), 3, VIPS_FORMAT_UCHAR) }
        var picture = try VipsPicture(adopting: Vips.check(made, "cannot read", subject: name, kind: .runtime))
            .derive("cannot read", subject: name) { cvips_copy_as($0, $1, VIPS_INTERPRETATION_sRGB) }
        if let c = grid.cleanAperture {
            // Cut as libheif cuts it, at the shrunk scale.
            let (x, y) = (c.left / k, c.top / k)
            let (w, h) = (max(1, min(outW - x, (c.width + k - 1) / k)), max(1, min(outH - y, (c.height + k - 1) / k)))
            picture = try picture.derive("cannot crop", subject: name) { cvips_extract_area($0, $1, Int32(x), Int32(y), Int32(w), Int32(h)) }
        }
        if (2...8).contains(grid.orientation) {
            cvips_image_set_int(picture.pointer, "orientation", Int32(grid.orientation))
            picture = try picture.derive("cannot turn", subject: name) { cvips_autorot($0, $1) }
        }
        return picture
    }

    /// Decodes one tile (its NAL units after the configuration's) and hands its planes to `use`.
    static func decode(tile: [UInt8], sets: [[UInt8]], lengthSize: Int, name: String,
                       _ use: (gpick_ycbcr) throws(GpickError) -> Void) throws(GpickError) {
        guard let ctx = de265_new_decoder() else { throw GpickError(.runtime, "cannot start the HEVC decoder (libde265)") }
        defer { de265_free_decoder(ctx) }
        for unit in sets { _ = unit.withUnsafeBytes { de265_push_NAL(ctx, $0.baseAddress, Int32($0.count), 0, nil) } }
        var i = 0
        while i + lengthSize <= tile.count {
            var n = 0
            for b in tile[i..<(i + lengthSize)] { n = n << 8 | Int(b) }
            i += lengthSize
            guard n > 0, n <= tile.count - i else { throw GpickError(.input, "cannot read \(name): a tile's data is damaged") }
            _ = tile.withUnsafeBytes { de265_push_NAL(ctx, $0.baseAddress! + i, Int32(n), 0, nil) }
            i += n
        }
        de265_flush_data(ctx)
        var more: Int32 = 1
        var picture: OpaquePointer?
        while more != 0, picture == nil {
            let err = de265_decode(ctx, &more)
            if let p = de265_get_next_picture(ctx) { picture = p }
            if de265_isOK(err) == 0, err != DE265_ERROR_WAITING_FOR_INPUT_DATA { break }
        }
        guard let image = picture else { throw GpickError(.input, "cannot read \(name): a tile of the image does not decode") }
        let chroma = de265_get_chroma_format(image)
        guard chroma != de265_chroma_mono else { throw GpickError(.input, "cannot read \(name): grey HEIF tiles are not read here") }
        var ycbcr = gpick_ycbcr()
        var strides: [Int32] = [0, 0, 0]
        let planes = (0..<3).map { c in de265_get_image_plane(image, Int32(c), &strides[c]) }
        guard let y = planes[0], let u = planes[1], let v = planes[2] else {
            throw GpickError(.input, "cannot read \(name): a tile of the image does not decode")
        }
        ycbcr.planes = (y, u, v)
        ycbcr.strides = (strides[0], strides[1], strides[2])
        ycbcr.width = de265_get_image_width(image, 0)
        ycbcr.height = de265_get_image_height(image, 0)
        ycbcr.bits = de265_get_bits_per_pixel(image, 0)
        ycbcr.chroma_shift_x = chroma == de265_chroma_444 ? 0 : 1
        ycbcr.chroma_shift_y = chroma == de265_chroma_420 ? 1 : 0
        try use(ycbcr)
    }
}
