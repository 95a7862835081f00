import Foundation
import GpickTestSupport
import Testing

/// The shared exiftool (`ExifTool`) answers as `exiftool ARGS…` run on its own would: the other
/// tests' checks rely on its status and streams being those of the command asked.
@Suite struct ExifToolHostTests {
    @Test func statusStdoutAndStderrAreEachCommandsOwn() async throws {
        let dir = TestEnvironment.tempDir()
        let path = dir + "/a.jpg"
        try await MediaFixtures.run([("/usr/bin/gst-launch-1.0", ["-q", "videotestsrc", "num-buffers=1", "!", "video/x-raw,width=64,height=48",
                                                                  "!", "jpegenc", "!", "filesink", "location=\(path)"])])
        let missing = try await ExifTool.run(["-s3", "-ImageWidth", dir + "/no-such.jpg"])
        #expect(missing.status == 1 && missing.stdout.isEmpty, "\(missing)")
        #expect(missing.stderr.contains("File not found") && !missing.stderr.contains("{"), "\(missing.stderr)")
        // Written, then read back: the next command sees what the one before wrote.
        try await ExifTool.check(["-q", "-overwrite_original", "-Orientation#=6", path])
        let read = try await ExifTool.check(["-s3", "-n", "-ImageWidth", "-Orientation", path])
        #expect(read.stdoutLines == ["64", "6"] && read.stderr.isEmpty, "\(read)")
        await #expect(throws: TestFailure.self) { try await ExifTool.check(["-s3", dir + "/no-such.jpg"]) }
        // Several at once are answered one by one, each with its own file's width.
        let widths = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { try await ExifTool.check(["-s3", "-ImageWidth", path]).stdout } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(widths == Array(repeating: "64\n", count: 4), "\(widths)")
    }
}
