// C3: a whole session on the camera stand-in at 1080p30, once from raw frames and once from the
// same frames JPEG-encoded with one in ten (from the 15th) cut short; the stamps of the frames
// the session delivers, slot by slot.
import Foundation
import GpickBase
import GpickCameraStandIn
import GpickKit
import GstCore

/// The BRIO's 1080p modes (its `v4l2-ctl --list-formats-ext`, as the tests' facts hold it): NV12
/// and MJPG at 30 fps, so one table serves both runs.
let brio1080 = """
    ioctl: VIDIOC_ENUM_FMT
    \tType: Video Capture

    \t[0]: 'MJPG' (Motion-JPEG, compressed)
    \t\tSize: Discrete 1920x1080
    \t\t\tInterval: Discrete 0.033s (30.000 fps)
    \t[1]: 'NV12' (Y/UV 4:2:0)
    \t\tSize: Discrete 1920x1080
    \t\t\tInterval: Discrete 0.033s (30.000 fps)

    """

struct SessionRun {
    let format: String
    let frames: CameraStandIn.Frames

    /// `seconds` of the session's frames (640x360 at 30 fps, the camera at 1920x1080@30 in
    /// `format`): each one's stamp index (-1: none), what the camera sent and what was dropped
    /// as damaged, and the process's CPU over the run.
    func run(seconds: Int) async throws -> [String: Any] {
        let standIn = CameraStandIn(offers: V4L2FormatListing(parsing: brio1080).offers, frames: frames)
        defer { standIn.stop() }
        var c = SessionConfiguration()
        c.source = .v4l2(device: "/dev/video-stand-in")
        c.sourceFile = try standIn.sourcePart(PipelineLibrary())
        c.format = SessionFormat(width: 640, height: 360, fps: 30)
        c.mode = try ModeRequest(parsing: "1920x1080@30/\(format)")
        let session = CaptureSession(c)
        try await session.prepare()
        let mode = session.cameraMode?.description ?? "?"
        let stream = session.nextFrames(seconds * 30)
        try standIn.start(in: session)
        let before = cpuSeconds()
        try await session.play()
        var stamps: [Int] = []
        for try await sample in stream {
            stamps.append((sample.withVideoFrame { FrameStamp.read(from: $0)?.index } ?? nil) ?? -1)
        }
        let cpu = cpuSeconds() - before
        let dropped = session.droppedFrames, sent = standIn.pushed
        await session.stop()
        return ["mode": mode, "stamps": stamps, "sent": sent, "dropped": dropped, "cpu_seconds": cpu,
                "failure": session.failureReason?.message ?? standIn.failure ?? NSNull()]
    }
}

/// Both runs; the damaged frames are those whose index is 5 past a multiple of ten, from 15.
func sessions(seconds: Int) async throws -> [String: Any] {
    let count = (seconds + 3) * 30
    let encoded = try await CameraStandIn.jpegFrames(width: 1920, height: 1080, count: count)
    let damaged = (15..<count).filter { $0 % 10 == 5 }
    let bad = Set(damaged)
    let jpegs = encoded.enumerated().map { i, f in bad.contains(i) ? Array(f.prefix(f.count / 2)) : f }
    let raw = try await SessionRun(format: "NV12", frames: .stamped).run(seconds: seconds)
    let mjpeg = try await SessionRun(format: "MJPG", frames: .jpeg { i in i < jpegs.count ? jpegs[i] : [] }).run(seconds: seconds)
    return ["seconds": seconds, "damaged": damaged, "raw": raw, "mjpeg": mjpeg]
}
