import Foundation
import GpickKit
import GpickTestSupport
import Testing

@Suite(.serialized) struct PipelineCLITests {
    static let shipped = ["audio-test", "decode-frames", "live-clip", "live-ring", "record-mkv", "record-mp4", "record-webm",
                          "session", "source-file", "source-test", "still-jpeg", "still-png"]

    /// A small recording to feed the file-reading pipelines.
    static func sampleClip() async throws -> String {
        let dir = TestEnvironment.tempDir("clip")
        _ = try await Subprocess.gpick(["record", "--source", "test", "--duration", "1", "--width", "320", "--height", "240", "-o", "\(dir)/in.mp4"])
        return "\(dir)/in.mp4"
    }

    @Test(arguments: shipped)
    func showPrintsALineThatRunsUnderGstLaunch(name: String) async throws {
        let dir = TestEnvironment.tempDir()
        var args = ["pipelines", "show", name, "--duration", "1"]
        if name.hasPrefix("record-") { args += ["--set", "output=\(dir)/o ut.\(name.dropFirst(7))"] }
        if name == "live-clip" { args += ["--set", "output=\(dir)/o ut.mp4"] }
        if name == "source-file" || name == "decode-frames" { args += ["--set", "path=\(try await Self.sampleClip())"] }
        let show = try await Subprocess.gpick(args)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdoutLines.count == 1 && show.stdout.hasPrefix("gst-launch-1.0 -e "))
        let r = try await Subprocess.run("/bin/bash", ["-c", show.stdout], timeout: 30)
        #expect(r.status == 0, "\(show.stdout)\n\(r.stderr)")
        if name.hasPrefix("record-") {
            let stamps = try await Media.frames("\(dir)/o ut.\(name.dropFirst(7))")
            #expect(stamps.count == 30, "\(name): \(stamps.count) frames")
        }
    }

    @Test(arguments: shipped)
    func everyShippedFileRunsOnTheTestSource(name: String) async throws {
        let dir = TestEnvironment.tempDir()
        var args = ["run", name, "--source", "test", "--width", "320", "--height", "240", "--duration", "1", "--output-dir", dir]
        if name.hasPrefix("record-") { args += ["--set", "output=o.\(name.dropFirst(7))"] }
        if name == "live-clip" { args += ["--set", "output=o.mp4"] }
        if name.hasPrefix("still-") { args += ["-o", "s.\(name == "still-png" ? "png" : "jpg")"] }
        if name == "source-file" || name == "decode-frames" { args += ["--set", "path=\(try await Self.sampleClip())"] }
        let r = try await Subprocess.gpick(args)
        #expect(r.status == 0, "\(name): \(r.stderr)")
        if name.hasPrefix("record-") {
            #expect(try await Media.stampIndices("\(dir)/o.\(name.dropFirst(7))").count == 30)
        }
        if name == "live-clip" {
            #expect(try await Media.stampIndices("\(dir)/o.mp4").count >= 30)
        }
        if name.hasPrefix("still-") {
            #expect(try await Media.frames("\(dir)/\(TestEnvironment.files(in: dir)[0])").first?.stamp != nil)
        }
    }

    /// The files gpick ships are built into the library too, byte for byte: a gpick (or a program
    /// using GpickKit) far from any checkout or share folder lists and runs them all.
    @Test func theShippedFilesAreBuiltInAndServeAProgramFarFromThem() async throws {
        let root = TestEnvironment.repoRoot + "/pipelines"
        let files = TestEnvironment.files(in: root).filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
        #expect(BuiltInPipelines.names == files)
        let dir = TestEnvironment.tempDir("lone")
        let lone = dir + "/gpick"
        try TestEnvironment.placeBinary(at: lone)
        let list = try await Subprocess.run(lone, ["pipelines", "list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let listed = list.events
        #expect(listed.compactMap { $0["name"] as? String } == files)
        #expect(listed.allSatisfy { ($0["path"] as? String)?.hasPrefix("<built-in>/") == true }, "\(list.stdout)")
        let snap = try await Subprocess.run(lone, ["snap", "--source", "test", "--width", "320", "--height", "240", "-o", dir + "/still.jpg"])
        #expect(snap.status == 0, "\(snap.stderr)")
        let frames = try await Media.frames(dir + "/still.jpg")
        #expect(frames.count == 1 && frames.first?.stamp != nil, "a still from the test source, made with the built-in files")
        let check = try await Subprocess.run(lone, ["pipelines", "check", "session"])
        #expect(check.status == 0 && check.stdout == "ok <built-in>/session.yaml\n", "\(check.stdout) \(check.stderr)")
    }

    @Test func setValuesCannotInjectElementsOrEscape() async throws {
        let root = TestEnvironment.tempDir()
        let dir = "\(root)/out"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for value in ["o.mp4 ! filesink location=\(root)/owned", "../owned.mp4", "\(root)/owned.mp4"] {
            let r = try await Subprocess.gpick(["run", "record-mp4", "--source", "test", "--duration", "1", "--output-dir", dir, "--set", "output=\(value)"])
            #expect(r.status != 0, "\(value) was accepted")
            #expect(r.stderrLines.count == 1)
        }
        // A typed parameter takes the text as its value, never as pipeline syntax.
        let e = try await Subprocess.gpick(["run", "record-mp4", "--source", "test", "--duration", "1", "--output-dir", dir,
                                            "--set", "output=x.mp4", "--set", "speed-preset=fast ! filesink location=\(root)/owned"])
        #expect(e.status != 0 && e.stderr.contains("is not one of"), "\(e.stderr)")
        #expect(TestEnvironment.files(in: root) == ["out"])
        #expect(TestEnvironment.files(in: dir).isEmpty)
    }

    @Test func userPipelineWithLiteralPathIsRefusedUnlessAllowed() async throws {
        let dir = TestEnvironment.tempDir()
        try "name: dump\nkind: pipeline\npipeline: videotestsrc num-buffers=1 ! jpegenc ! filesink location=\(dir)/direct.jpg\n"
            .write(toFile: "\(dir)/dump.yaml", atomically: false, encoding: .utf8)
        let r = try await Subprocess.gpick(["run", "\(dir)/dump.yaml", "--output-dir", dir])
        #expect(r.status == 65 && r.stderr.contains("dump.yaml:3: element filesink writes to a path"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/direct.jpg"))
        let ok = try await Subprocess.gpick(["run", "\(dir)/dump.yaml", "--output-dir", dir, "--allow-paths"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(dir)/direct.jpg"))
    }

    @Test func copiedFileWithAnotherEncoderRunsWithoutRebuilding() async throws {
        let dir = TestEnvironment.tempDir()
        let original = try String(contentsOfFile: "\(TestEnvironment.repoRoot)/pipelines/still-jpeg.yaml", encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(dir)/p", withIntermediateDirectories: true)
        for f in TestEnvironment.files(in: "\(TestEnvironment.repoRoot)/pipelines") {
            try FileManager.default.copyItem(atPath: "\(TestEnvironment.repoRoot)/pipelines/\(f)", toPath: "\(dir)/p/\(f)")
        }
        // Same name, another encoder chain (greyscale before jpegenc), picked up without a rebuild.
        try original.replacingOccurrences(of: "jpegenc name=enc", with: "videoconvert ! video/x-raw,format=GRAY8 ! jpegenc name=enc")
            .write(toFile: "\(dir)/p/still-jpeg.yaml", atomically: false, encoding: .utf8)
        let r = try await Subprocess.gpick(["snap", "--source", "test", "--width", "320", "--height", "240", "-o", "\(dir)/g.jpg", "--pipelines", "\(dir)/p"])
        #expect(r.status == 0, "\(r.stderr)")
        let img = try await Media.rgb("\(dir)/g.jpg")
        let (red, green, blue) = Media.pixel(img, 40 + 45, 120)  // the yellow bar, now grey
        #expect(abs(red - blue) < 12 && abs(green - blue) < 12, "\(red),\(green),\(blue)")
    }
}
