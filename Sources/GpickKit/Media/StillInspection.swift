import FoundationEssentials
import Glibc
import GpickFormats
import GstCore

/// What `gpick inspect` says of a photo, from gpick's own metadata readers (never GStreamer's
/// discoverer, which takes a HEIF for a QuickTime movie and the gain map of an Ultra HDR JPEG for
/// a second frame) and from the decoder that reads its pixels.
public struct StillFacts: Sendable, Codable {
    /// The MIME type the content says ("image/heic"), whatever the name says.
    public var format: String
    /// The size as stored, before the orientation is applied.
    public var storedWidth: Int?
    public var storedHeight: Int?
    /// The part of the stored picture that is shown (HEIF and AVIF `clap`), before orientation.
    public var cleanAperture: CleanAperture?
    /// EXIF orientation 1…8 (for HEIF, what `irot` and `imir` amount to).
    public var orientation: Int?
    /// When it was taken, as the file says: ISO 8601 with the UTC offset when the file has one.
    public var taken: String?
    public var make: String?
    public var model: String?
    public var software: String?
    /// Every picture the file holds, named: primary, thumbnail, preview, gain-map, depth…
    public var images: [EmbeddedImage]
    /// Google or Samsung Motion Photo: the kind, and the video's bytes (checked to be an MP4).
    public var motionPhotoKind: String?
    public var videoOffset: Int?
    public var videoLength: Int?
    /// Flagged as a motion photo, but the video is not where it says.
    public var motionPhotoProblem: String?
    /// Apple's live-photo pairing UUID (MakerNote 0x11).
    public var contentIdentifier: String?
    /// The decoder that reads the pixels ("libvips heifload"), and the size it decodes to.
    public var decoder: String?
    public var decodedWidth: Int?
    public var decodedHeight: Int?

    public init(_ meta: MediaMetadata) {
        format = meta.mimeType
        storedWidth = meta.width
        storedHeight = meta.height
        cleanAperture = meta.cleanAperture
        orientation = meta.orientation
        taken = meta.takenAt?.iso8601
        make = meta.make
        model = meta.model
        software = meta.software
        images = meta.images
        motionPhotoKind = meta.motionPhoto?.kind.rawValue
        videoOffset = meta.motionPhoto?.video.offset
        videoLength = meta.motionPhoto?.video.length
        motionPhotoProblem = meta.motionPhotoProblem
        contentIdentifier = meta.contentIdentifier
    }
}

/// What a still's decoder says of it: the pixel reader's own check that it can read the file.
public struct StillDecoderFacts: Sendable {
    public var decoder: String
    public var width: Int
    public var height: Int

    public init(decoder: String, width: Int, height: Int) {
        self.decoder = decoder
        self.width = width
        self.height = height
    }
}

extension MediaInspector {
    /// The report of a photo: gpick's metadata, the decoder's header, the embedded video of a
    /// Motion Photo read back, and the Apple pair. With `stamps`, a JPEG or PNG still (one gpick
    /// wrote) is decoded by GStreamer for its frame stamp.
    public static func inspectStill(path: String, metadata meta: MediaMetadata, decoder: StillDecoderFacts?,
                                    stamps: Bool, library: PipelineLibrary) async throws(GpickError) -> InspectReport {
        var st = stat()
        guard stat(path, &st) == 0 else { throw GpickError(.input, "no such file: \(path)") }
        var facts = StillFacts(meta)
        facts.decoder = decoder.map { "libvips \($0.decoder)" }
        (facts.decodedWidth, facts.decodedHeight) = (decoder?.width, decoder?.height)
        let upright = meta.uprightSize
        var report = InspectReport(path: path, kind: "photo", bytes: Int64(st.st_size), container: meta.container.rawValue,
                                   codec: meta.mimeType, width: upright?.width, height: upright?.height, fps: nil,
                                   duration: 0, frames: 1, streams: [])
        report.still = facts
        if stamps, meta.container == .jpeg || meta.container == .png {
            let frames = try await decodeFrames(path: path, library: library)
            report.stamps = frames.map { $0.stamp?.description }
        }
        if let video = meta.motionPhoto {
            // gpick's own strict checks (media3's and Immich's readers) apply to JPEG Motion Photos.
            // Samsung's trailer and MicroVideo have layouts of their own.
            var problems: [String] = []
            if meta.container == .jpeg, video.kind == .google, let data = FileManager.default.contents(atPath: path) {
                problems = MotionPhoto.parse([UInt8](data))?.problems ?? []
            }
            report.motionPhoto = await motionPhotoReport(path: path, video: video.video, presentationUs: video.presentationUs,
                                                         problems: problems, library: library)
        } else if let problem = meta.motionPhotoProblem {
            report.motionPhoto = MotionPhotoReport(presentationTimestampUs: nil, videoLength: 0, consistent: false, problems: [problem])
        }
        if meta.container == .jpeg { report.appleLivePhoto = appleReport(path: path, isPhoto: true) }
        return report
    }
}
