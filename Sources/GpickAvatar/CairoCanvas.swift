import CPNG
import CPangoCairo
import GpickBase

/// One cairo image surface (ARGB32, premultiplied, native-endian: B, G, R, A bytes on x86) and
/// its drawing context. Both are owned (transfer full) and released with this object.
///
/// `@unchecked Sendable` invariant: used by one thread at a time (a render runs on one OffPool
/// thread from start to end); it is handed between threads only whole, never shared.
final class CairoCanvas: @unchecked Sendable {
    let surface: OpaquePointer
    let cr: OpaquePointer
    let side: Int

    init(side: Int) throws(GpickError) {
        guard let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(side), Int32(side)) else {
            throw GpickError(.runtime, "cannot draw a \(side)×\(side) avatar: out of memory")
        }
        let status = cairo_surface_status(s)
        guard status == CAIRO_STATUS_SUCCESS, let c = cairo_create(s) else {
            cairo_surface_destroy(s)
            throw GpickError(.runtime, "cannot draw a \(side)×\(side) avatar: \(String(cString: cairo_status_to_string(status)))")
        }
        surface = s
        cr = c
        self.side = side
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// Fails with cairo's own reason if any drawing so far went wrong (cairo latches errors).
    func check(_ what: String) throws(GpickError) {
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw GpickError(.runtime, "cannot draw \(what): \(String(cString: cairo_status_to_string(status)))")
        }
    }

    /// The pixels, for reading (after a flush) or writing (then `markDirty`).
    func withPixels<R>(_ body: (UnsafeMutablePointer<UInt8>, _ stride: Int) -> R) -> R {
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!
        return body(data, Int(cairo_image_surface_get_stride(surface)))
    }

    func markDirty() { cairo_surface_mark_dirty(surface) }

    func setSource(_ c: AvatarColor) {
        cairo_set_source_rgba(cr, Double(c.red) / 255, Double(c.green) / 255, Double(c.blue) / 255, Double(c.alpha) / 255)
    }

    /// A rectangle with corners rounded by `radius`, as the current path.
    func roundedRect(x: Double, y: Double, width: Double, height: Double, radius: Double) {
        let r = max(0, min(radius, width / 2, height / 2))
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + width - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cr, x + width - r, y + height - r, r, 0, .pi / 2)
        cairo_arc(cr, x + r, y + height - r, r, .pi / 2, .pi)
        cairo_arc(cr, x + r, y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }

    /// Straight (not premultiplied) RGBA rows, `side * 4` bytes each.
    func straightRGBA() -> [UInt8] {
        withPixels { data, stride in
            var out = [UInt8](repeating: 0, count: side * side * 4)
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<side {
                    let row = data + y * stride
                    for x in 0..<side {
                        let p = row + x * 4
                        let a = Int(p[3])
                        let i = (y * side + x) * 4
                        if a == 255 {
                            o[i] = p[2]; o[i + 1] = p[1]; o[i + 2] = p[0]
                        } else if a > 0 {
                            o[i] = UInt8((Int(p[2]) * 255 + a / 2) / a)
                            o[i + 1] = UInt8((Int(p[1]) * 255 + a / 2) / a)
                            o[i + 2] = UInt8((Int(p[0]) * 255 + a / 2) / a)
                        }
                        o[i + 3] = UInt8(a)
                    }
                }
            }
            return out
        }
    }

    /// The surface as PNG bytes: 8-bit RGBA, libpng's fast setting (no filters, light zlib).
    /// Nothing in them depends on the time or the machine: the same pixels give the same bytes.
    func png() throws(GpickError) -> [UInt8] {
        let rgba = straightRGBA()
        var image = png_image()
        image.version = cpng_image_version()
        image.width = png_uint_32(side)
        image.height = png_uint_32(side)
        image.format = cpng_format_rgba()
        image.flags = cpng_flag_fast()
        let side = self.side
        let made = rgba.withUnsafeBytes { pixels in Result { () throws(GpickError) -> [UInt8] in
            // The first call says how much room the file needs, the second writes it.
            var size: png_alloc_size_t = 0
            guard png_image_write_to_memory(&image, nil, &size, 0, pixels.baseAddress, Int32(side * 4), nil) != 0, size > 0 else {
                throw Self.pngFailure(&image)
            }
            var out = [UInt8](repeating: 0, count: Int(size))
            let ok = out.withUnsafeMutableBytes { png_image_write_to_memory(&image, $0.baseAddress, &size, 0, pixels.baseAddress, Int32(side * 4), nil) }
            guard ok != 0 else { throw Self.pngFailure(&image) }
            out.removeLast(out.count - Int(size))
            return out
        } }
        return try made.get()
    }

    static func pngFailure(_ image: inout png_image) -> GpickError {
        let message = withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        png_image_free(&image)
        return GpickError(.runtime, "cannot encode the avatar as PNG: \(message.isEmpty ? "libpng failed" : message)")
    }
}
