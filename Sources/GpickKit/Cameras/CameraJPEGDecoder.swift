import CGStreamer
import CJPEGDecoder
import GstCore

/// gpickjpegdec, gpick's decoder for a camera's MJPEG (libjpeg-turbo, in CJPEGDecoder): it
/// decodes each frame once and drops one whose coded data is damaged as it finds it (libjpeg's
/// corrupt-data warnings, coefficients no 8-bit JPEG holds), where jpegdec would decode past
/// them and show the damage. It is registered before a pipeline with a decodebin is parsed, at
/// jpegdec's rank (taken before it; a hardware decoder ranked above both is taken first), and
/// only where libjpeg opens: without it, jpegdec decodes and `MJPEGGuard` walks the codes itself.
public enum CameraJPEGDecoder {
    public static let factoryName = "gpickjpegdec"

    /// Registers the element once; whether it is there (false before GStreamer is initialised).
    @discardableResult
    public static func register() -> Bool {
        OwnElementRank.register(factoryName, otherwise: GST_RANK_PRIMARY, with: gpick_jpegdec_register)
    }

    /// Whether the pipeline text needs it registered: a decodebin may pick it, or it is named.
    static func mayBeUsed(in text: String) -> Bool {
        text.contains("decodebin") || text.contains(factoryName)
    }

    static func isOne(_ element: Element) -> Bool { gpick_jpegdec_is(element.pointer) != 0 }

    /// `handler` hears each frame the element drops as damaged, on its streaming thread.
    static func watch(_ element: Element, _ handler: @escaping @Sendable (String) -> Void) {
        let box = Unmanaged.passRetained(DamagedHandler(handler)).toOpaque()
        gpick_jpegdec_watch(element.pointer, { context, reason in
            guard let context else { return }
            Unmanaged<DamagedHandler>.fromOpaque(context).takeUnretainedValue().call(reason.map { String(cString: $0) } ?? "")
        }, box, { context in
            if let context { Unmanaged<DamagedHandler>.fromOpaque(context).release() }
        })
    }
}

private final class DamagedHandler: Sendable {
    let call: @Sendable (String) -> Void
    init(_ call: @escaping @Sendable (String) -> Void) { self.call = call }
}
