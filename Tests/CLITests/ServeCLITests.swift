import Foundation
import GpickKit
import GpickTestSupport
import Synchronization
import Testing

/// `gpick serve` read by real RTSP clients started here: ffprobe, ffmpeg and GStreamer's rtspsrc
/// (each a program of its own), on 127.0.0.1. The test source stamps every frame, so what a
/// viewer decodes says which frames it got. One test at a time: together they start about twenty
/// viewers at once, and on 2 cores beside the other suites a viewer starved for seconds was
/// seen to get nothing at all (once in a full run, never in 20 rounds of the same clients alone).
@Suite(.serialized) struct ServeCLITests {
    static let small = ["--source", "test", "--width", "320", "--height", "240"]

    /// Starts `gpick serve` and returns it with its URL, read from the `started` event. The
    /// server logs its medias' and viewers' lives (gst-rtsp-server's own debug categories) to a
    /// file, which `diagnosed` shows if a viewer fails.
    static func serve(_ extra: [String] = []) async throws -> (Subprocess.Running, String) {
        let log = TestEnvironment.tempDir() + "/server-gst.log"
        // At most two minutes: a server left behind by a test that failed midway ends by itself.
        let p = try Subprocess.start(TestEnvironment.binary, ["serve", "--port", "0", "--json", "--duration", "3600"] + small + extra,
                                     env: ["GST_DEBUG": "rtspmedia:5,rtspclient:3,rtspstream:4,appsrc:4,rtspsessionmedia:4,gpick:5",
                                           "GST_DEBUG_FILE": log, "GST_DEBUG_NO_COLOR": "1"])
        logs.withLock { $0[p.process.processIdentifier] = log }
        let out = try await p.waitForOutput("\"url\"")
        let started = out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "started" }
        let url = try #require(started?["url"] as? String, "no URL in \(out)")
        return (p, url)
    }

    static let logs = Mutex<[Int32: String]>([:])

    /// Runs `body` (viewers of `server`); a failure it throws also tells what the server was doing:
    /// its feeds' lines, the end of its debug log and its threads' stacks.
    static func diagnosed<T>(_ server: Subprocess.Running, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch {
            let lines = logLines(server)
            let tail = lines.suffix(60).joined(separator: "\n")
            // gpick's own lines (feeds starting, viewers joining, pushes refused), the last 40.
            let own = ownLines(server).suffix(40).joined(separator: "\n")
            throw TestFailure("\(error)\ngpick's feeds:\n\(own)\nthe server's log ends:\n\(tail)\nthe server's threads:\n\(Subprocess.stacks(of: server.process.processIdentifier))")
        }
    }

    /// The lines of a server's debug log (see `serve`).
    static func logLines(_ server: Subprocess.Running) -> [Substring] {
        let log = logs.withLock { $0[server.process.processIdentifier] }.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        return log.split(separator: "\n")
    }

    /// gpick's own lines of a server's debug log (GST_DEBUG=gpick:5).
    static func ownLines(_ server: Subprocess.Running) -> [Substring] {
        logLines(server).filter { $0.contains(" gpick ") }
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
        defer { p.signal(SIGKILL) }
        #expect(url.hasPrefix("rtsp://127.0.0.1:") && url.hasSuffix("/cam"))
        // ffprobe over RTP/UDP (its default); the viewers below over TCP: a loaded machine may
        // drop UDP packets, which a test must not read as frames gpick did not send.
        let probe = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries",
                                                                  "stream=codec_name,width,height", "-of", "csv=p=0", url], timeout: 30)
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,320,240", "\(probe.stderr)")

        // Nine ffmpeg viewers (as NVRs record) and one of GStreamer's, 45 frames each, all at once.
        let frames = 45
        let viewers = try await Self.diagnosed(p) { try await withThrowingTaskGroup(of: (String, Subprocess.Result).self) { group in
            for i in 0..<9 {
                let file = "\(dir)/ffmpeg-\(i).mkv"
                group.addTask {
                    (file, try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url,
                                                                        "-frames:v", "\(frames)", "-c", "copy", "-y", file], timeout: 60))
                }
            }
            let file = "\(dir)/rtspsrc.mkv"
            // identity ends the stream at its Nth buffer, which it does not pass on. Its jitter
            // buffer's log is kept: one full run lost a frame in this viewer alone (the ffmpeg
            // viewers of the same media had it), and the log says whether it came late.
            group.addTask {
                (file, try await Subprocess.run("/usr/bin/gst-launch-1.0", [
                    "-q", "rtspsrc", "location=\(url)", "protocols=tcp", "!", "rtph264depay", "wait-for-keyframe=true", "!", "h264parse", "!",
                    "identity", "eos-after=\(frames + 1)", "!", "matroskamux", "!", "filesink", "location=\(file)"],
                    env: ["GST_DEBUG": "rtpjitterbuffer:5,rtph264depay:5", "GST_DEBUG_FILE": "\(dir)/rtspsrc-gst.log", "GST_DEBUG_NO_COLOR": "1"],
                    timeout: 60))
            }
            return try await group.reduce(into: []) { $0.append($1) }
        } }
        #expect(viewers.count == 10)
        for (file, r) in viewers {
            #expect(r.status == 0, "\(file): \(r.stderr)")
            let log = file.hasSuffix("rtspsrc.mkv") ? (try? String(contentsOfFile: "\(dir)/rtspsrc-gst.log", encoding: .utf8)) ?? "" : ""
            // What the jitter buffer and depayloader say of gaps (one "discont 1" line is the start).
            let gaps = ["Missing packets", "Lost timer", "dropping", "- reset", "GAP", "too late", "discard", "lost packet", "DISCONT", "discont 1"]
            let told = log.split(separator: "\n").filter { line in gaps.contains { line.contains($0) } }.suffix(20).joined(separator: "\n")
            try await Self.expectUnbroken(file, frames: frames, file + (told.isEmpty ? "" : "\n" + told))
        }
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        // Each connection (ffprobe's and the ten viewers') is told opening and closing, numbered.
        let told = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let opened = told.filter { $0["event"] as? String == "viewer-connected" }, closed = told.filter { $0["event"] as? String == "viewer-closed" }
        #expect(opened.count >= 11 && closed.count == opened.count, "\(opened.count) connected, \(closed.count) closed")
        #expect(Set(opened.compactMap { $0["viewer"] as? Int }) == Set(1...opened.count), "\(opened)")
        #expect(opened.allSatisfy { $0["address"] as? String == "127.0.0.1" }, "\(opened)")
        // gpick's own debug lines (GST_DEBUG=gpick:5): both medias' feeds (ffprobe's, then the
        // one the ten viewers share) started on a keyframe.
        let own = Self.ownLines(p)
        #expect(own.filter { $0.contains("feed starts: sample") }.count >= 2, "\(own.suffix(20))")
    }

    /// Two cameras on one server, each its own session and mount: each URL gives its own
    /// camera's frames (the test sources stamp their ids), unbroken.
    @Test func twoCamerasOnOneServerEachAtItsOwnURL() async throws {
        let dir = TestEnvironment.tempDir()
        let (p, url) = try await Self.serve(["--camera", "back=test:pinwheel?id=2"])
        defer { p.signal(SIGKILL) }
        let back = url.replacingOccurrences(of: "/cam", with: "/back")
        for (i, (mount, id)) in [(url, 1), (back, 2)].enumerated() {
            let file = "\(dir)/\(i).mkv"
            let r = try await Self.diagnosed(p) {
                try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", mount,
                                                             "-frames:v", "30", "-c", "copy", "-y", file], timeout: 60)
            }
            #expect(r.status == 0, "\(mount): \(r.stderr)")
            let stamps = try await Media.stampIndices(file, id: id)
            let first = try #require(stamps.first ?? nil, "\(mount): no stamp of camera \(id) on its first frame")
            #expect(stamps.count == 30 && Media.isConsecutive(stamps, from: first), "\(mount): \(stamps)")
        }
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let started = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "started" }
        let mounts = (started?["mounts"] as? [[String: Any]])?.compactMap { $0["url"] as? String }
        #expect(mounts == [url, back], "\(String(describing: started))")
    }

    /// With --audio the viewers hear the session too: Opus on the media's second stream, encoded
    /// once, stamped from the picture's origin. ffmpeg (which lines streams up by the server's
    /// RTCP reports) gets both, starting together, and the sound is the test tone, not silence.
    @Test func audioReachesViewersInStepWithThePicture() async throws {
        let dir = TestEnvironment.tempDir()
        let (p, url) = try await Self.serve(["--audio", "test"])
        defer { p.signal(SIGKILL) }
        let file = "\(dir)/av.mkv"
        let r = try await Self.diagnosed(p) {
            try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url,
                                                         "-frames:v", "60", "-c", "copy", "-y", file], timeout: 60)
        }
        #expect(r.status == 0, "\(r.stderr)")
        let found = try await Media.soundBesidePicture(file)
        let av = try #require(found, "no picture and sound in \(file)")
        #expect(av.video == "h264" && av.audio == "opus", "\(av.streams)")
        // On a failure, gpick's lines say where each feed started and what sound it had kept.
        #expect(av.gap < 0.1, "audio and video start \(av.gap) s apart: \(av.streams)\n\(Self.ownLines(p).prefix(30).joined(separator: "\n"))")
        // The tone, decoded: a sine's RMS is 0.707 of its peak; silence would be 0.
        let samples = try await Media.sound(file)
        #expect(samples.count > 48_000, "\(samples.count) samples for two seconds of picture")
        #expect(Media.rms(samples, skip: 4800) > 1000, "the tone's level: \(Media.rms(samples, skip: 4800))")
        let stamps = try await Media.stampIndices(file)
        let first = try #require(stamps.first ?? nil, "no stamp on the first frame")
        #expect(stamps.count == 60 && Media.isConsecutive(stamps, from: first), "\(stamps)")
    }

    /// A tune without zerolatency (x264 looks ahead) still sends no B-frames: RTP carries no
    /// decoding times, and ffmpeg refuses to store B-frames it reads from RTP ("Can't write
    /// packet with unknown timestamp"). The picture comes late, whole and in order.
    @Test func aTuneWithLookAheadStillPlaysInFFmpeg() async throws {
        let dir = TestEnvironment.tempDir()
        let (p, url) = try await Self.serve(["--set", "tune=fastdecode", "--set", "speed-preset=medium"])
        defer { p.signal(SIGKILL) }
        let r = try await Self.diagnosed(p) {
            try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url,
                                                         "-frames:v", "45", "-c", "copy", "-y", "\(dir)/t.mkv"], timeout: 60)
        }
        #expect(r.status == 0, "\(r.stderr)")
        try await Self.expectUnbroken("\(dir)/t.mkv", frames: 45, "a look-ahead tune's viewer")
    }

    /// A viewer that sets up a stream over TCP and then never reads holds nobody back: another
    /// viewer gets every frame, and the server stops at once with the stalled one connected.
    @Test func aViewerThatNeverReadsHoldsNoOneBack() async throws {
        let dir = TestEnvironment.tempDir()
        let (p, url) = try await Self.serve()
        let stalled = try Subprocess.start("/usr/bin/python3", ["-u", "-c", Self.stalledViewer, url])
        defer { p.signal(SIGKILL); stalled.signal(SIGKILL) }
        _ = try await stalled.waitForOutput("playing", timeout: 30)
        let r = try await Self.diagnosed(p) {
            try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url, "-frames:v", "90",
                                                         "-c", "copy", "-y", "\(dir)/other.mkv"], timeout: 60)
        }
        #expect(r.status == 0, "\(r.stderr)")
        try await Self.expectUnbroken("\(dir)/other.mkv", frames: 90, "the viewer beside the stalled one")
        #expect(stalled.process.isRunning, "the stalled viewer is still connected: \(stalled.stderrSoFar)")
        let stopping = ContinuousClock.now
        p.signal(SIGTERM)
        let done = try await p.wait(timeout: 20)
        #expect(done.status == 0, "\(done.stderr)")
        // Within stop's own bound (the encoder drains for up to 5 s), not held by the stalled one.
        #expect(ContinuousClock.now - stopping < .seconds(HangBound.seconds(10)), "stopped with a stalled viewer connected")
    }

    /// Reliability check 36 whole: with a viewer that never reads connected to a session's
    /// stream, a recording made meanwhile has every frame, and so has a viewer beside it.
    @Test func aStalledViewerHoldsBackNeitherARecordingNorAnotherViewer() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["session", "--rtsp-port", "0", "--output-dir", dir, "--json"] + Self.small,
                                     stdinPipe: true)
        defer { p.signal(SIGKILL) }
        p.send("serve start\n")
        let out = try await p.waitForOutput("\"serve-started\"")
        let url = try #require(out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "serve-started" }?["url"] as? String, "\(out)")
        let stalled = try Subprocess.start("/usr/bin/python3", ["-u", "-c", Self.stalledViewer, url])
        defer { stalled.signal(SIGKILL) }
        _ = try await stalled.waitForOutput("playing", timeout: 30)
        let viewer = try Subprocess.start("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url, "-frames:v", "90",
                                                               "-c", "copy", "-y", "\(dir)/other.mkv"])
        defer { viewer.signal(SIGKILL) }
        try await viewer.waitForFile("\(dir)/other.mkv", timeout: 30)
        p.send("record 3s r.mp4\n")
        let watched = try await viewer.wait(timeout: 60)
        #expect(watched.status == 0, "\(watched.stderr)")
        #expect(try await TestEnvironment.eventually(HangBound.seconds(60)) { p.stdoutSoFar.contains("\"file-written\"") },
                "\(p.stdoutSoFar.suffix(600))")
        #expect(stalled.process.isRunning, "the stalled viewer is still connected: \(stalled.stderrSoFar)")
        p.send("serve stop\n")
        p.closeInput()
        let r = try await p.wait(timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let recorded = try await Media.stampIndices("\(dir)/r.mp4")
        #expect(recorded.count == 90 && Media.isConsecutive(recorded, from: (recorded.first ?? nil) ?? -1), "the recording: \(recorded)")
        try await Self.expectUnbroken("\(dir)/other.mkv", frames: 90, "the viewer beside the stalled one")
    }

    /// An RTSP client by hand: DESCRIBE, SETUP over TCP, PLAY, then it reads nothing more, with a
    /// receive buffer of 4 KiB so the server's side fills at once.
    static let stalledViewer = #"""
import re, socket, sys, time, urllib.parse
url = sys.argv[1]
u = urllib.parse.urlparse(url)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect((u.hostname, u.port))
def request(method, uri, cseq, extra=""):
    s.sendall(("%s %s RTSP/1.0\r\nCSeq: %d\r\n%s\r\n" % (method, uri, cseq, extra)).encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += s.recv(1)
    head = head.decode()
    m = re.search(r"Content-Length: *(\d+)", head, re.I)
    left = int(m.group(1)) if m else 0
    while left > 0:
        left -= len(s.recv(left))
    return head
request("DESCRIBE", url, 1, "Accept: application/sdp\r\n")
head = request("SETUP", url + "/stream=0", 2, "Transport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n")
session = re.search(r"Session: *([^;\r\n]+)", head).group(1)
request("PLAY", url + "/", 3, "Session: %s\r\n" % session)
print("playing", flush=True)
time.sleep(120)
"""#

    /// Off 127.0.0.1 a viewer needs the credentials: without them RTSP answers 401, with them the
    /// stream plays. The random password is printed once, on stderr, and never in the events.
    @Test func offLoopbackAViewerWithoutCredentialsGets401() async throws {
        let p = try Subprocess.start(TestEnvironment.binary, ["serve", "--port", "0", "--listen", "0.0.0.0", "--duration", "3600"] + Self.small)
        defer { p.signal(SIGKILL) }
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
        // Printed once, and never again: not for the refused viewers, nor the one let in, nor on
        // stdout (the URL there carries no credentials).
        #expect(r.stderr.components(separatedBy: password).count == 2, "\(r.stderr)")
        #expect(!r.stdout.contains(password), "\(r.stdout)")
    }

    /// While a viewer watches: a snap is the frame at the shutter, a recording has exactly its
    /// frames, and two flips show the viewer the blurred placeholder, then the other camera, and
    /// never a black frame. All through `gpick session`, as a program would drive it.
    @Test func stillsRecordingsAndFlipsGoOnWhileAViewerWatches() async throws {
        let dir = TestEnvironment.tempDir()
        let p = try Subprocess.start(TestEnvironment.binary, ["session", "--front", "test:pinwheel?id=2&warmup=0.5", "--rtsp-port", "0",
                                                              "--output-dir", dir, "--json"] + Self.small, stdinPipe: true)
        defer { p.signal(SIGKILL) }
        p.send("serve start\n")
        let out = try await p.waitForOutput("\"serve-started\"")
        let started = out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "serve-started" }
        let url = try #require(started?["url"] as? String, "\(out)")
        // It watches until the stream ends (serve stop), however long the commands take.
        let viewer = try Subprocess.start("/usr/bin/ffmpeg", ["-v", "error", "-rtsp_transport", "tcp", "-i", url,
                                                               "-c", "copy", "-y", "\(dir)/viewer.mkv"])
        defer { viewer.signal(SIGKILL) }
        // Once the viewer gets frames, the session goes on.
        try await viewer.waitForFile("\(dir)/viewer.mkv", timeout: 30)
        p.send("snap s.jpg\nrecord 2s r.mp4\nflip\n")
        // Each flip back and forth once the other camera delivers (the front one warms up 0.5 s).
        try await Self.waitForCamera(p, "front", times: 1)
        p.send("wait 0.5s\nflip\n")
        try await Self.waitForCamera(p, "back", times: 1)
        p.send("wait 1s\nserve stop\n")
        let watched = try await viewer.wait(timeout: 60)
        #expect(watched.status == 0, "\(watched.stderr)")
        p.closeInput()
        let r = try await p.wait(timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")

        let snap = try #require(try await Media.frames("\(dir)/s.jpg").first?.stamp)
        let recorded = try await Media.stampIndices("\(dir)/r.mp4")
        let first = try #require(recorded.first ?? nil)
        #expect(recorded.count == 60 && Media.isConsecutive(recorded, from: first), "the recording: \(recorded)")
        #expect(snap.sourceID == 1 && snap.index <= first && first - snap.index <= 15,
                "the snap (frame \(snap.index)) is the frame at its shutter, just before the recording's first (\(first))")

        let frames = try await Media.frames("\(dir)/viewer.mkv", measure: true)
        #expect(frames.count >= 120, "\(frames.count) frames")
        for f in frames { #expect((f.measure?.meanY ?? 0) > 24, "a black frame at \(f.pts ?? -1)") }
        let ids = frames.map { $0.stamp?.sourceID }
        let shown = ids.map { $0.map(String.init) ?? "-" }.joined(separator: " ")
        let front = try #require(ids.firstIndex(of: 2), "the viewer never saw the front camera: \(shown)")
        let lastBack = try #require(ids[..<front].lastIndex(of: 1), "\(shown)")
        _ = try #require(ids[front...].firstIndex(of: 1), "the viewer never saw the back camera again: \(shown)")
        // The front camera takes half a second to deliver: meanwhile, the placeholder (no stamp).
        #expect(front - lastBack - 1 >= 5 && ids[(lastBack + 1)..<front].allSatisfy { $0 == nil }, "\(shown)")
        // The snapped frame reached the viewer too, once. (Counted before the first flip: the
        // back camera reopened after the second flip is a new test source, stamping from 0 again,
        // so on a slow run its frames reach the snap's index a second time.)
        let beforeFlip: [FrameStamp] = frames[..<front].compactMap(\.stamp)
        let snapped = beforeFlip.filter { $0.index == snap.index && $0.sourceID == 1 }.count
        #expect(snapped == 1, "the viewer got the snapped frame (\(snap.index)) once: \(shown)")
    }

    /// Waits for the session's `times`-th `source-live` event of the camera at `position`.
    static func waitForCamera(_ p: Subprocess.Running, _ position: String, times: Int) async throws {
        let live = try await TestEnvironment.eventually(30) {
            p.eventsSoFar
                .filter { $0["event"] as? String == "source-live" && $0["position"] as? String == position }.count >= times
        }
        try #require(live, "the \(position) camera never delivered: \(p.stdoutSoFar.suffix(600))")
    }

    /// Bad input: one line, the user's terms, the right exit code, and nothing left running.
    @Test func badInputIsOneLine() async throws {
        let holder = try RTSPServer(port: 0)
        let dir = TestEnvironment.tempDir()
        try "just-a-user\n".write(toFile: "\(dir)/creds", atomically: false, encoding: .utf8)
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
