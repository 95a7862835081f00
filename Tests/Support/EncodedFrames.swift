import GstCore
import Synchronization
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

extension CameraStandIn {
    /// `count` JPEG frames of stamped frames (frame i stamped with index i, as the raw
    /// stand-in's), 4:2:0 as webcams send MJPEG, encoded in this process by jpegenc (1080p
    /// frames would make gigabytes as a raw file).
    public static func jpegFrames(width: Int, height: Int, count: Int) async throws -> [[UInt8]] {
        guard let raw = RawFrames(format: "I420", width: width, height: height) else {
            throw TestFailure("no stamped I420 frames at \(width)x\(height)")
        }
        let pipeline = try await Pipeline.parse(
            "appsrc name=in format=time block=true max-bytes=20000000 caps=video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1 ! "
                + "jpegenc quality=85 ! appsink name=out sync=false")
        let src = try AppSrc(try pipeline.requireElement(named: "in"))
        let sink = try AppSink(try pipeline.requireElement(named: "out"))
        let made = Mutex<[[UInt8]]>([])
        let ended = Mutex(false)
        sink.setCallbacks(onSample: { sample in made.withLock { $0.append(sample.data) } }, onEOS: { ended.withLock { $0 = true } })
        _ = try await pipeline.setState(.playing)
        for i in 0..<count {
            let bytes = raw.frame(i)
            guard let buffer = bytes.withUnsafeBytes({ OwnedBuffer.copying($0) }) else { throw TestFailure("no buffer") }
            buffer.view.setPTS(UInt64(i) * 33_333_333)
            try src.push(buffer)
        }
        src.endOfStream()
        let deadline = Date().addingTimeInterval(HangBound.seconds(120))
        while !ended.withLock({ $0 }) {
            guard Date() < deadline else { throw TestFailure("jpegenc did not finish \(count) frames") }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        _ = try await pipeline.setState(.null)
        let frames = made.withLock { $0 }
        guard frames.count == count else { throw TestFailure("jpegenc made \(frames.count) of \(count) frames") }
        return frames
    }
}
