import CGStreamer
import CRawVideo
import GstCore

/// gpicky4mdec, gpick's reader of YUV4MPEG2 files (in CRawVideo). y4mdec, behind decodebin's
/// typefind, gathers each frame out of 4 KiB reads into a new block: a 720p frame is 338 reads, a
/// copy, and 1.4 MB of fresh pages faulted in, since gpick keeps blocks that large out of the
/// heap (CGpickStartup). gpicky4mdec pulls each frame with one read into a buffer of the pool the
/// source stage offers, used again frame after frame. Registered where a decodebin may take it,
/// at PRIMARY (above y4mdec's SECONDARY); GST_PLUGIN_FEATURE_RANK="gpicky4mdec:NONE" leaves the
/// files to y4mdec.
public enum RawVideoReader {
    public static let factoryName = "gpicky4mdec"

    /// Registers the element once; whether it is there (false before GStreamer is initialised).
    @discardableResult
    public static func register() -> Bool {
        OwnElementRank.register(factoryName, otherwise: GST_RANK_PRIMARY, with: gpick_y4mdec_register)
    }

    /// Whether `element` is one, reading its frames by pulling them (not from pushed buffers).
    static func pulls(_ element: Element) -> Bool { gpick_y4mdec_pulls(element.pointer) != 0 }
}
