import CVips
import GpickBase
import GpickFormats
import GpickKit

/// The decoder's half of `gpick inspect` on a photo: libvips reads its header, so the report says
/// which loader reads the file and at what size, then decodes it small (shrink-on-load, a HEIF's
/// thumbnail item: milliseconds) as a thumbnail would, so a truncated or damaged file is one error
/// line, not a clean report. A camera RAW file is read through its JPEG preview.
public enum StillInspector {
    public static func decoderFacts(path: String, metadata: MediaMetadata) async throws(GpickError) -> StillDecoderFacts {
        try await OffPool.run { () throws(GpickError) -> StillDecoderFacts in
            if metadata.container == .raw {
                guard let preview = metadata.images.first(where: { $0.role == .preview }), let range = preview.bytes else {
                    throw GpickError(.input, "cannot read \(path): this camera RAW file holds no JPEG preview (gpick shows RAW files by their previews)")
                }
                let jpeg = try FileBytes(path: path).read(at: range.offset, count: range.length)
                let header = try StillImage.header(data: jpeg, name: "\(path) (its preview)")
                _ = try ThumbnailRequest(path: path, box: .square(64), content: .still, metadata: metadata).makeNow()
                return StillDecoderFacts(decoder: loaderName(header.loader) + " (the RAW file's preview)",
                                         width: header.width, height: header.height)
            }
            let header = try StillImage.header(path: path)
            // What `inspect` read already is handed on, not read again.
            _ = try ThumbnailRequest(path: path, box: .square(64), content: .still, metadata: metadata).makeNow()
            return StillDecoderFacts(decoder: loaderName(header.loader), width: header.width, height: header.height)
        }
    }

    /// "VipsForeignLoadHeifSource" → "heifload", as libvips' own operations are named.
    static func loaderName(_ loader: String) -> String {
        var name = Substring(loader)
        if name.hasPrefix("VipsForeignLoad") { name = name.dropFirst("VipsForeignLoad".count) }
        for suffix in ["Source", "File", "Buffer"] where name.hasSuffix(suffix) { name = name.dropLast(suffix.count) }
        return name.lowercased() + "load"
    }
}
