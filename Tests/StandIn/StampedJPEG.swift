import Foundation
import GstCore
import Synchronization

extension CameraStandIn {
    /// `count` JPEG frames of stamped frames (frame i stamped with index i, as the raw
    /// stand-in's), 4:2:0 as webcams send MJPEG, encoded in this process by jpegenc (1080p
    /// frames would make gigabytes as a raw file).
    public static func jpegFrames(width: Int, height: Int, count: Int, timeout: Double = 120) async throws -> [[UInt8]] {
        guard let raw = RawFrames(format: "I420", width: width, height: height) else {
            throw StandInError("no stamped I420 frames at \(width)x\(height)")
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
            guard let buffer = bytes.withUnsafeBytes({ OwnedBuffer.copying($0) }) else { throw StandInError("no buffer") }
            buffer.view.setPTS(UInt64(i) * 33_333_333)
            try src.push(buffer)
        }
        src.endOfStream()
        let deadline = Date().addingTimeInterval(timeout)
        while !ended.withLock({ $0 }) {
            guard Date() < deadline else { throw StandInError("jpegenc did not finish \(count) frames") }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        _ = try await pipeline.setState(.null)
        let frames = made.withLock { $0 }
        guard frames.count == count else { throw StandInError("jpegenc made \(frames.count) of \(count) frames") }
        return frames
    }
}
