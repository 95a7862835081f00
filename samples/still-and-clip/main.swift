// A small program using the gpick library: one still and a 2-second clip from the test source.
// Build and run:  swift run gpick-sample [OUTPUT_DIR]
import Foundation
import GpickKit

let dir = CommandLine.arguments.dropFirst().first ?? FileManager.default.currentDirectoryPath

var config = SessionConfiguration()
config.source = .test(.init())             // or .v4l2(device: "/dev/video0"), or .auto
config.audio = .test
config.format = SessionFormat(width: 1280, height: 720, fps: 30)

let session = CaptureSession(config)
do {
    try await session.start()

    // A still: the frame current right now (zero shutter lag), encoded and written atomically.
    let encoder = try await StillEncoder.make(format: .jpeg, quality: 90, library: config.library)
    for try await frame in session.nextFrames(1) {
        let still = try OutputPath("\(dir)/sample-still.jpg")
        try await AtomicWrite.store(try await encoder.encode(frame, camera: session.camera), to: still)
        print("still: \(still)")
    }
    await encoder.close()

    // A clip: a recording branch on the running session, exact to the frame.
    let clip = try await MovieRecording.start(in: session, to: try OutputPath("\(dir)/sample-clip.mp4"),
                                              settings: RecordingSettings(container: .mp4, duration: 2))
    let result = try await clip.finished()
    print("clip: \(result.path) (\(result.frames) frames, \(result.duration) s)")
    await session.stop()
} catch let error as GpickError {
    FileHandle.standardError.write(Data("sample: \(error.message)\n".utf8))
    await session.stop()
    exit(1)
}
