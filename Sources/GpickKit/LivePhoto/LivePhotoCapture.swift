import FoundationEssentials
import Glibc
import GstCore

public enum LivePhotoFormat: String, Sendable, CaseIterable {
    case apple, motion, both
}

public struct LivePhotoSettings: Sendable {
    public var before: Double = 1.5
    public var after: Double = 1.5
    public var format: LivePhotoFormat = .both
    public var quality: Int?
    /// Replace existing outputs (otherwise refuse before anything is written).
    public var force = false
    public init() {}

    public func validate() throws(GpickError) {
        for (name, v) in [("before", before), ("after", after)] {
            guard v > 0, v <= 10, v.isFinite else { throw GpickError(.usage, "the clip's \(name) part (\(v) s) must be more than 0 and at most 10 seconds") }
        }
    }
}

public struct LivePhotoResult: Sendable, Codable {
    /// `NAME.MP.jpg` (Motion Photo).
    public var motionPhoto: String?
    /// `NAME.jpg` + `NAME.mov` (Apple pair) and the UUID they share.
    public var still: String?
    public var movie: String?
    public var contentIdentifier: String?
    /// Where the still is in the clip, in seconds.
    public var stillTime: Double
    public var clipDuration: Double
    public var clipFrames: Int
    public var stamp: String?
}

/// Takes live photos on a running session with an armed ring: the still is the raw frame at the
/// shutter (the retained frame, taken before any encoder), the clip covers `before` + `after`
/// around it, cut on a keyframe at or before shutter − before.
public enum LivePhotoCapture {
    /// The outputs a name gives, checked before anything is written.
    /// Motion: [NAME.MP.jpg]; apple: [NAME.jpg, NAME.mov]; both: all three.
    public static func outputs(for name: OutputPath, format: LivePhotoFormat, force: Bool) throws(GpickError) -> [OutputPath] {
        var base = name.name
        for ext in [".MP.jpg", ".jpg", ".jpeg", ".mov"] where base.lowercased().hasSuffix(ext.lowercased()) {
            base = String(base.dropLast(ext.count))
            break
        }
        var outs: [OutputPath] = []
        if format != .apple { outs.append(name.sibling("\(base).MP.jpg")) }
        if format != .motion { outs += [name.sibling("\(base).jpg"), name.sibling("\(base).mov")] }
        if !force {
            for o in outs where FileManager.default.fileExists(atPath: o.path) {
                throw GpickError(.output, "\(o.path) already exists", remedy: .force)
            }
        }
        return outs
    }

    public static func capture(session: CaptureSession, ring: LiveRing, encoder: StillEncoder, name: OutputPath,
                               settings: LivePhotoSettings) async throws(GpickError) -> LivePhotoResult {
        try settings.validate()
        let outs = try outputs(for: name, format: settings.format, force: settings.force)
        // A ring armed a moment ago may not hold a frame yet: once it holds its first (a
        // keyframe), the retained frame is at least that new, so the clip can contain the still.
        do {
            try await withTimeout(10) { try await ring.waitUntil(0) }
        } catch {
            throw session.failureReason ?? GpickError(.runtime, "the live-photo ring received no frame")
        }
        guard var frame = session.latestFrame, var shutterTime = frame.runningTime else {
            throw session.failureReason ?? GpickError(.runtime, "no frame to take a live photo from")
        }
        // On a busy machine the retained frame can lag behind the ring's first (a live photo as
        // a session's first command, under a full test run): the still is then the first frame
        // the ring holds too, a few frames on.
        var later = 0
        while let oldest = ring.oldestVideoTime, shutterTime < oldest, later < 60 {
            later += 1
            do {
                for try await next in session.nextFrames(1) {
                    if let t = next.runningTime { (frame, shutterTime) = (next, t) }
                }
            } catch {
                throw session.failureReason ?? GpickError(.runtime, "no frame to take a live photo from")
            }
        }
        let shutter = shutterTime
        let stamp = frame.withVideoFrame { FrameStamp.read(from: $0) } ?? nil
        let exif = StillExif(frame: frame, camera: session.camera)
        let jpeg = try await encoder.encode(frame, exif: exif)
        let before = UInt64(settings.before * 1e9), after = UInt64(settings.after * 1e9)
        let from = shutter > before ? shutter - before : 0
        ring.pin(from)
        defer { ring.unpin(from) }
        do {
            try await withTimeout(settings.after + 10) { try await ring.waitUntil(shutter + after) }
        } catch let e as GpickError {
            throw e
        } catch {
            throw session.failureReason ?? GpickError(.runtime, "the live-photo ring did not reach the shutter + \(settings.after) s")
        }
        let (video, audio) = ring.clip(from: from, to: shutter + after)
        guard let start = video.first?.time, start <= shutter else {
            throw GpickError(.runtime, "the live-photo ring does not hold the shutter frame")
        }
        let library = session.configuration.library
        let presentationUs = Int64((shutter - start) / 1000)
        let stillTime = Double(presentationUs) / 1e6
        var result = LivePhotoResult(stillTime: stillTime, clipDuration: 0, clipFrames: 0, stamp: stamp?.description)
        // The MP4 (Motion Photo) and the MOV (Apple) are muxed side by side: two small pipelines.
        let wantMotion = settings.format != .apple, wantApple = settings.format != .motion
        let movFile: PipelineFile? = wantApple ? try library.load("live-clip-mov") : nil
        let mp4Scratch = name.sibling(".\(outs[0].name).clip.mp4"), movScratch = name.sibling(".\(outs[outs.count - 1].name).clip.mov")
        async let mp4Clip: Result<ClipWriter.Clip, GpickError>? = wantMotion ? Self.mux(video, audio, start, mp4Scratch, library, nil) : nil
        async let movClip: Result<ClipWriter.Clip, GpickError>? = wantApple ? Self.mux(video, audio, start, movScratch, library, movFile) : nil
        let (mp4Result, movResult) = await (mp4Clip, movClip)
        var files: [(OutputPath, [UInt8])] = []
        if let r = mp4Result {
            let clip = try r.get()
            files.append((outs[0], try MotionPhoto.compose(jpeg: jpeg, mp4: clip.bytes, presentationUs: presentationUs)))
            result.motionPhoto = outs[0].path
            (result.clipDuration, result.clipFrames) = (clip.duration, clip.frames)
        }
        if let r = movResult {
            let clip = try r.get()
            let (stillOut, movOut) = (outs[outs.count - 2], outs[outs.count - 1])
            let uuid = UUID().uuidString.uppercased()
            var appleExif = exif
            appleExif.makerNote = AppleMakerNote.makerNote(uuid: uuid)
            files.append((stillOut, try appleExif.insert(into: jpeg)))
            files.append((movOut, try AppleLivePhoto.patch(mov: clip.bytes, uuid: uuid, stillTime: stillTime)))
            (result.still, result.movie, result.contentIdentifier) = (stillOut.path, movOut.path, uuid)
            (result.clipDuration, result.clipFrames) = (clip.duration, clip.frames)
        }
        try await writeAll(files)
        return result
    }

    static func mux(_ video: [LiveRing.Entry], _ audio: [LiveRing.Entry], _ start: UInt64, _ scratch: OutputPath,
                    _ library: PipelineLibrary, _ file: PipelineFile?) async -> Result<ClipWriter.Clip, GpickError> {
        do {
            return .success(try await ClipWriter.write(video: video, audio: audio, start: start, scratch: scratch,
                                                       library: library, file: file))
        } catch {
            return .failure(error)
        }
    }

    /// All files or none: every temp file is written (and fsynced) first, then they are renamed;
    /// if any step fails, what was written or renamed is removed.
    static func writeAll(_ files: [(OutputPath, [UInt8])]) async throws(GpickError) {
        try await OffPool.run { () throws(GpickError) in
            var temps: [TempFile] = []
            do throws(GpickError) {
                for (target, bytes) in files {
                    let t = try TempFile(for: target)
                    temps.append(t)
                    try t.write(bytes)
                }
                for t in temps { try t.finish() }
            } catch {
                for t in temps { t.discard() }
                throw error
            }
        }
    }
}
