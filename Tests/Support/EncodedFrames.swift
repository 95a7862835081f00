@_exported import GpickCameraStandIn
import Foundation

extension CameraStandIn {
    /// `count` H.264 access units of stamped frames (frame i stamped with index i, as the raw
    /// stand-in's), encoded as a UVC camera's own encoder sends them: byte-stream, one frame per
    /// unit, a keyframe each second, no B-frames (so frames come in display order).
    public static func h264Frames(width: Int, height: Int, count: Int) async throws -> [[UInt8]] {
        guard let raw = RawFrames(format: "I420", width: width, height: height) else {
            throw TestFailure("no stamped I420 frames at \(width)x\(height)")
        }
        let dir = TestEnvironment.tempDir("h264-frames")
        var all = [UInt8]()
        all.reserveCapacity(raw.blank.count * count)
        for i in 0..<count { all += raw.frame(i) }
        try Data(all).write(to: URL(fileURLWithPath: "\(dir)/raw.yuv"))
        let r = try await Subprocess.run("/usr/bin/gst-launch-1.0", [
            "-q", "filesrc", "location=\(dir)/raw.yuv", "!",
            "rawvideoparse", "format=i420", "width=\(width)", "height=\(height)", "framerate=30/1", "!",
            "x264enc", "tune=zerolatency", "speed-preset=ultrafast", "key-int-max=30", "!",
            "video/x-h264,stream-format=byte-stream,alignment=au", "!", "multifilesink", "location=\(dir)/%05d.h264",
        ], timeout: 120)
        guard r.status == 0 else { throw TestFailure("encoding the stamped frames: \(r.stderr)") }
        let units = try (0..<count).map { i in
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(dir)/" + String(format: "%05d.h264", i))))
        }
        try? FileManager.default.removeItem(atPath: "\(dir)/raw.yuv")
        return units
    }
}
