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

    /// The surface as PNG bytes (cairo's writer: no time stamp, so the same pixels give the same
    /// bytes).
    func png() throws(GpickError) -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let status = withExtendedLifetime(sink) {
            cairo_surface_write_to_png_stream(surface, { closure, data, length in
                let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw GpickError(.runtime, "cannot encode the avatar as PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        return sink.bytes
    }
}
