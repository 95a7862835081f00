import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// `gpick serve` read by real RTSP clients started here: ffprobe, ffmpeg and GStreamer's rtspsrc
/// (each a program of its own), on 127.0.0.1. The test source stamps every frame, so what a
/// viewer decodes says which frames it got.
@Suite struct ServeCLITests {
    static let small = ["--source", "test", "--width", "640", "--height", "360"]

    /// Starts `gpick serve` and returns it with its URL, read from the `started` event.
    static func serve(_ extra: [String] = []) async throws -> (Subprocess.Running, String) {
        let p = try Subprocess.start(TestEnvironment.binary, ["serve", "--port", "0", "--json"] + small + extra)
        let out = try await p.waitForOutput("\"url\"")
        let started = out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "started" }
        let url = try #require(started?["url"] as? String, "no URL in \(out)")
        return (p, url)
    }

    /// Stamps of a viewer's frames, which must run on without a gap from the first it decodes.
    static func expectUnbroken(_ file: String, frames: Int, _ who: String) async throws {
        let indices = try await Media.stampIndices(file)
        #expect(indices.count == frames, "\(who): \(indices.count) frames")
        let first = try #require(indices.first ?? nil, "\(who): its first frame carries no stamp: \(indices.prefix(5))")
        #expect(Media.isConsecutive(indices, from: first), "\(who): \(indices.map { $0.map(String.init) ?? "-" }.joined(separator: " "))")
    }

    @Test func tenViewersAtOnceEachGetEveryFrameFromTheirFirstOn() async throws {
        let dir = TestEnvironment.tempDir()
        let (p, url) = try await Self.serve()
        #expect(url.hasPrefix("rtsp://127.0.0.1:") && url.hasSuffix("/cam"))
        // ffprobe over RTP/UDP (its default); the viewers below over TCP: a loaded machine may
        // drop UDP packets, which a test must not read as frames gpick did not send.
        let probe = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries",
                                                                  "stream=codec_name,width,height", "-of", "csv=p=0", url], timeout: 30)
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,640,360", "\(probe.stderr)")

        // Nine ffmpeg viewers (as NVRs record) and one of GStreamer's, 45 frames each, all at once.
        let frames = 45
        let viewers = try await withThrowingTaskGroup(of: (String, Subprocess.Result).self) { group in
            for i in 0..<9 {
                let file = "\(dir)/ffmpeg-\(i).mkv"
                group.addTask {
                    (file, try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url,
                                                                        "-frames:v", "\(frames)", "-c", "copy", "-y", file], timeout: 60))
                }
            }
            let file = "\(dir)/rtspsrc.mkv"
            // identity ends the stream at its Nth buffer, which it does not pass on.
            group.addTask {
                (file, try await Subprocess.run("/usr/bin/gst-launch-1.0", [
                    "-q", "rtspsrc", "location=\(url)", "protocols=tcp", "!", "rtph264depay", "wait-for-keyframe=true", "!", "h264parse", "!",
                    "identity", "eos-after=\(frames + 1)", "!", "matroskamux", "!", "filesink", "location=\(file)"], timeout: 60))
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(viewers.count == 10)
        for (file, r) in viewers {
            #expect(r.status == 0, "\(file): \(r.stderr)")
            try await Self.expectUnbroken(file, frames: frames, file)
        }
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }

    /// Off 127.0.0.1 a viewer needs the credentials: without them RTSP answers 401, with them the
    /// stream plays. The random password is printed once, on stderr, and never in the events.
    @Test func offLoopbackAViewerWithoutCredentialsGets401() async throws {
        let p = try Subprocess.start(TestEnvironment.binary, ["serve", "--port", "0", "--listen", "0.0.0.0"] + Self.small)
        let err = try await p.waitForOutput("password", stderr: true)
        let out = try await p.waitForOutput("rtsp://")
        let line = try #require(err.split(separator: "\n").first { $0.contains("password") }.map(String.init))
        #expect(line.hasPrefix("gpick: viewers need user gpick, password "), "\(line)")
        let password = String(line.split(separator: " ").last ?? "")
        #expect(password.count == 16)
        let url = try #require(out.split(separator: "\n").first.map(String.init))
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first.map(String.init))
        let local = "rtsp://127.0.0.1:\(port)/cam"
        // A DESCRIBE by hand, as any client sends it first.
        let describe = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
            s.sendall(b"DESCRIBE \(local) RTSP/1.0\\r\\nCSeq: 1\\r\\nAccept: application/sdp\\r\\n\\r\\n")
            print(s.recv(4096).decode().splitlines()[0])
            """
        let refused = try await Subprocess.run("/usr/bin/python3", ["-c", describe, port], timeout: 20)
        #expect(refused.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "RTSP/1.0 401 Unauthorized", "\(refused.stdout)\(refused.stderr)")
        let wrong = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-rtsp_transport", "tcp",
                                                                  "rtsp://gpick:wrong@127.0.0.1:\(port)/cam"], timeout: 30)
        #expect(wrong.status != 0)
        let right = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-rtsp_transport", "tcp", "-show_entries", "stream=codec_name",
                                                                  "-of", "csv=p=0", "rtsp://gpick:\(password)@127.0.0.1:\(port)/cam"], timeout: 30)
        #expect(right.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "h264", "\(right.stderr)")
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// Bad input: one line, the user's terms, the right exit code, and nothing left running.
    @Test func badInputIsOneLine() async throws {
        let holder = try RTSPServer(port: 0)
        let dir = TestEnvironment.tempDir()
        try "just-a-user\n".write(toFile: "\(dir)/creds", atomically: true, encoding: .utf8)
        let cases: [([String], Int32, String)] = [
            (["--port", "\(holder.port)"], 64, "gpick: error: RTSP port \(holder.port) on 127.0.0.1 is in use (choose another with --port)"),
            (["--port", "0", "--name", "a/b"], 64, "gpick: error: stream name \"a/b\" must be 1 to 64 letters, digits, '-', '_' or '.' (not first)"),
            (["--port", "0", "--credentials", "\(dir)/creds"], 65, "gpick: error: \(dir)/creds:1: credentials must be one line USER:PASSWORD"),
            (["--port", "0", "--set", "bitrate=9"], 65, "gpick: error: parameter bitrate: \"9\" is out of range 64…200000"),
        ]
        for (args, status, line) in cases {
            let r = try await Subprocess.gpick(["serve", "--duration", "5"] + Self.small + args)
            #expect(r.status == status, "\(args): \(r.stderr)")
            #expect(r.stderrLines == [line], "\(args)")
        }
        await holder.close()
    }
}
