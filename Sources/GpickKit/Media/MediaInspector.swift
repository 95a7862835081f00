import FoundationEssentials
import Glibc
import GpickFormats
import GstCore

/// One decoded frame: its presentation time and the stamp it carries, if any.
public struct DecodedFrame: Sendable, Codable {
    public var pts: Double?
    public var stamp: FrameStamp?
    /// Mean luma and chroma of the whole frame (for colour checks).
    public var width: Int
    public var height: Int
    /// Mean colour and detail, when asked for.
    public var measure: FrameMeasure? = nil
}

/// What `gpick inspect` reports.
public struct InspectReport: Sendable, Codable {
    public var path: String
    public var kind: String            // "photo", "video", "audio"
    public var bytes: Int64
    public var container: String?
    public var codec: String?
    public var width: Int?
    public var height: Int?
    public var fps: Double?
    public var duration: Double
    public var frames: Int?
    public var streams: [MediaInfo.Stream]
    public var stamps: [String?]?
    /// Set for Google Motion Photos: the embedded clip and whether the file is consistent.
    public var motionPhoto: MotionPhotoReport?
    /// Set for either half of an Apple Live Photo pair.
    public var appleLivePhoto: AppleLivePhotoReport?
    /// Set for photos: what gpick's own readers and the decoder say.
    public var still: StillFacts?
}

public struct AppleLivePhotoReport: Sendable, Codable {
    public var contentIdentifier: String?
    /// The other half, found next to this file by name.
    public var pairedWith: String?
    public var pairedIdentifier: String?
    public var stillTime: Double?
    public var stillImageTimeTrack: Bool?
    public var consistent: Bool
    public var problems: [String]
}

public struct MotionPhotoReport: Sendable, Codable {
    public var presentationTimestampUs: Int64?
    public var videoLength: Int
    public var clipDuration: Double?
    public var clipFrames: Int?
    /// Stamp of the clip frame at the presentation timestamp (should be the still's).
    public var stampAtPresentation: String?
    public var consistent: Bool
    public var problems: [String]
}

public enum MediaInspector {
    /// Reads a file's facts; with `decode`, decodes every frame to count them (and read stamps).
    public static func inspect(path: String, decode: Bool, library: PipelineLibrary) async throws(GpickError) -> InspectReport {
        var st = stat()
        guard stat(path, &st) == 0 else { throw GpickError(.input, "no such file: \(path)") }
        let info = try await MediaProbe.discover(path, timeout: 10)
        let video = info.streams.first { $0.kind == "video" || $0.kind == "image" }
        let isPhoto = video?.isImage == true
        var report = InspectReport(path: path, kind: isPhoto ? "photo" : (video != nil ? "video" : "audio"),
                                   bytes: Int64(st.st_size), container: info.container, codec: video?.codec,
                                   width: video?.width, height: video?.height, fps: video?.framerate,
                                   duration: info.durationSeconds, frames: isPhoto ? 1 : nil, streams: info.streams)
        if decode, video != nil {
            let frames = try await decodeFrames(path: path, library: library)
            report.frames = frames.count
            report.stamps = frames.map { $0.stamp?.description }
        }
        if isPhoto, let data = FileManager.default.contents(atPath: path), let parsed = MotionPhoto.parse([UInt8](data)) {
            report.motionPhoto = await motionPhotoReport(
                path: path, video: ByteRange(offset: max(0, data.count - parsed.videoLength), length: parsed.videoLength),
                presentationUs: parsed.presentationUs, problems: parsed.problems, library: library)
        }
        report.appleLivePhoto = appleReport(path: path, isPhoto: isPhoto)
        return report
    }

    /// Reads the pairing UUID from this file and its partner (same name, .mov ↔ .jpg/.jpeg).
    static func appleReport(path: String, isPhoto: Bool) -> AppleLivePhotoReport? {
        let url = URL(fileURLWithPath: path)
        let base = url.deletingPathExtension()
        func movInfo(_ p: String) -> (uuid: String?, stillTime: Double?, hasStillTrack: Bool)? {
            FileManager.default.contents(atPath: p).map { AppleLivePhoto.read(mov: [UInt8]($0)) }
        }
        func jpegID(_ p: String) -> String? {
            FileManager.default.contents(atPath: p).flatMap { AppleMakerNote.contentIdentifier(in: [UInt8]($0)) }
        }
        var r: AppleLivePhotoReport
        if isPhoto {
            guard let id = jpegID(path) else { return nil }
            r = AppleLivePhotoReport(contentIdentifier: id, consistent: true, problems: [])
            if let mov = ["mov", "MOV"].map({ base.appendingPathExtension($0).path }).first(where: FileManager.default.fileExists) {
                let m = movInfo(mov)
                (r.pairedWith, r.pairedIdentifier, r.stillTime, r.stillImageTimeTrack) = (mov, m?.uuid, m?.stillTime, m?.hasStillTrack)
            }
        } else {
            guard let m = movInfo(path), m.uuid != nil || m.hasStillTrack else { return nil }
            r = AppleLivePhotoReport(contentIdentifier: m.uuid, stillTime: m.stillTime, stillImageTimeTrack: m.hasStillTrack,
                                     consistent: true, problems: [])
            if let jpg = ["jpg", "JPG", "jpeg", "JPEG"].map({ base.appendingPathExtension($0).path }).first(where: FileManager.default.fileExists) {
                (r.pairedWith, r.pairedIdentifier) = (jpg, jpegID(jpg))
            }
        }
        if r.contentIdentifier == nil { r.problems.append("no content identifier") }
        if r.pairedWith == nil { r.problems.append("no partner file next to it (\(isPhoto ? "NAME.mov" : "NAME.jpg"))") }
        else if r.pairedIdentifier == nil { r.problems.append("\(r.pairedWith!) carries no content identifier") }
        else if r.pairedIdentifier != r.contentIdentifier { r.problems.append("the UUIDs differ: \(r.contentIdentifier ?? "-") vs \(r.pairedIdentifier!)") }
        if r.stillImageTimeTrack == false { r.problems.append("the movie has no still-image-time track") }
        r.consistent = r.problems.isEmpty
        return r
    }

    /// Extracts the embedded MP4 (`video` of the file) and reads it back: duration, frames, and
    /// the stamp of the frame at the still's time.
    static func motionPhotoReport(path: String, video: ByteRange, presentationUs: Int64?, problems: [String],
                                  library: PipelineLibrary) async -> MotionPhotoReport {
        var r = MotionPhotoReport(presentationTimestampUs: presentationUs, videoLength: video.length,
                                  consistent: problems.isEmpty, problems: problems)
        guard problems.isEmpty else { return r }
        let tmp = FileManager.default.temporaryDirectory.path + "/" + "gpick-mp-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).mp4"
        defer { unlink(tmp) }
        guard let bytes = try? FileBytes(path: path).read(at: video.offset, count: video.length), bytes.count == video.length,
              FileManager.default.createFile(atPath: tmp, contents: Data(bytes)) else {
            r.problems.append("the embedded video cannot be read")
            r.consistent = false
            return r
        }
        do {
            let info = try await Discoverer.discover(path: tmp)
            r.clipDuration = info.durationSeconds
            let frames = try await decodeFrames(path: tmp, library: library)
            r.clipFrames = frames.count
            if let us = presentationUs {
                let t = Double(us) / 1e6
                let at = frames.last { ($0.pts ?? 0) <= t + 0.0005 }
                r.stampAtPresentation = at?.stamp?.description
            }
            if let us = presentationUs, Double(us) / 1e6 > info.durationSeconds {
                r.problems.append("presentation time \(Double(us) / 1e6) s is past the clip's end (\(info.durationSeconds) s)")
            }
        } catch {
            r.problems.append("the embedded video does not play: \((error as? GpickError)?.message ?? "\(error)")")
        }
        r.consistent = r.problems.isEmpty
        return r
    }

    /// Decodes every video frame of a file (or the still) and reads its stamp.
    public static func decodeFrames(path: String, library: PipelineLibrary, measure: Bool = false,
                                    timeout: Double = 120) async throws(GpickError) -> [DecodedFrame] {
        let file = try library.load("decode-frames")
        let bin = try await PipelineBuilder.build(file, outputs: ["path": .string(path)], asPipeline: true)
        guard let pipeline = bin as? Pipeline, let tap = file.tap("frames") else {
            throw GpickError(.pipeline, "\(file.path): needs a frames appsink tap")
        }
        let collected = Collected()
        do {
            let sink = try AppSink(try pipeline.requireElement(named: tap.element))
            sink.setCallbacks(onSample: { sample in
                let frame = sample.withVideoFrame { f -> DecodedFrame in
                    DecodedFrame(pts: sample.buffer?.pts.map { Double($0) / 1e9 }, stamp: FrameStamp.read(from: f),
                                 width: f.width, height: f.height, measure: measure ? FrameMeasure(f) : nil)
                }
                if let frame { collected.append(frame) }
            })
        } catch {
            throw GpickError(.pipeline, "\(file.path): \(error.message)")
        }
        let messages = pipeline.bus.messages()
        do { try await pipeline.setState(.playing) } catch {}
        let outcome: GpickError? = await {
            do {
                return try await withTimeout(timeout) { () async -> GpickError? in
                    for await m in messages {
                        switch m {
                        case .endOfStream: return nil
                        case .error(let e):
                            // GStreamer's words ("Internal data stream error.") go to --verbose.
                            return GpickError(.input, "\(path): cannot be decoded: the data is damaged or truncated",
                                              detail: e.message + "\n" + e.diagnostic)
                        default: continue
                        }
                    }
                    return GpickError(.runtime, "\(path): decoding ended without a result")
                }
            } catch {
                return GpickError(.runtime, "\(path): decoding took longer than \(Int(timeout)) s")
            }
        }()
        _ = try? await pipeline.setState(.null)
        if let outcome { throw outcome }
        return collected.frames
    }

    /// Frames collected on the streaming thread.
    final class Collected: Sendable {
        private let items = Locked<[DecodedFrame]>([])
        func append(_ f: DecodedFrame) { items.withLock { $0.append(f) } }
        var frames: [DecodedFrame] { items.withLock { $0 } }
    }
}
