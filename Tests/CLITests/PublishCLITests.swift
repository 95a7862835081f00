import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// `gpick publish` to real servers started here on 127.0.0.1: Debian's srt-live-transmit and
/// GStreamer's srtsrc as SRT listeners, nginx with libnginx-mod-rtmp as the RTMP server, read
/// back with ffprobe and ffmpeg. The test source stamps every frame, so what a receiver decodes
/// says which frames it got.
@Suite struct PublishCLITests {
    static let small = ["--source", "test", "--width", "320", "--height", "240"]

    static func events(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// ffmpeg reads `frames` video frames of `url` from nginx into `file`, with its progress
    /// (`-stats`) on stderr. One that does not end fails with what the publisher and nginx said
    /// meanwhile: whether gpick stopped sending, reconnected, or nginx dropped it.
    ///
    /// A reader that does not finish is given one more try, by a second ffmpeg: under the
    /// suite's load, nginx-rtmp has taken gpick's stream and a player of it (its log says so,
    /// and no error) and given that player no 60 frames in a minute, in 3 of 9 full runs in a
    /// day, never alone. The second player's file is checked as the first one's would be: a
    /// stream gpick got wrong fails it too.
    static func readBack(_ url: String, frames: Int, to file: String, publisher: Subprocess.Running, nginxDir: String) async throws -> Subprocess.Result {
        var said: [String] = []
        for timeout in [25.0, 30.0] {
            do {
                return try await Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-stats", "-i", url, "-frames:v", "\(frames)", "-c", "copy", "-y", file],
                                                timeout: timeout)
            } catch {
                said.append("\(error)")
            }
        }
        let log = (try? String(contentsOfFile: "\(nginxDir)/error.log", encoding: .utf8)) ?? ""
        throw TestFailure("\(said.joined(separator: "\nthen: "))\npublisher's events: \(publisher.stdoutSoFar.suffix(2000))\npublisher's stderr: \(publisher.stderrSoFar.suffix(1000))\nnginx: \(log.suffix(3000))")
    }

    /// The listener goes away for 5 s (killed: it says nothing to gpick), then a new one starts on
    /// the same port: gpick tells the loss and the reconnection, the new listener gets unbroken
    /// stamps, and the recording taken meanwhile in the same session has every frame.
    @Test func srtComesBackAfterTheListenerWasGoneAndTheRecordingKeepsEveryFrame() async throws {
        let dir = TestEnvironment.tempDir()
        let port = try StreamServers.freePort(udp: true)
        // Debian's srt-live-transmit, relaying to a UDP port nobody reads.
        let first = try Subprocess.start("/usr/bin/srt-live-transmit", ["-q", "srt://127.0.0.1:\(port)?mode=listener",
                                                                        "udp://127.0.0.1:\(try StreamServers.freePort(udp: true))"])
        defer { first.signal(SIGKILL) }
        // The first connection must hold: the listener has bound its port first.
        #expect(try await TestEnvironment.eventually(10) { StreamServers.udpBound(port) }, "srt-live-transmit did not bind \(port)")
        let p = try Subprocess.start(TestEnvironment.binary, ["session", "--output-dir", dir, "--json"] + Self.small, stdinPipe: true)
        defer { p.signal(SIGKILL) }
        p.send("publish start srt://127.0.0.1:\(port)\nrecord start r.mp4\n")
        _ = try await p.waitForOutput("\"record-started\"", timeout: 30)
        first.signal(SIGKILL)
        _ = try await first.wait(timeout: 10)
        let killed = Date()
        // SRT notices a silent peer after its idle timeout (5 s).
        _ = try await p.waitForOutput("\"publish-lost\"", timeout: 30)
        let outage = 5 - Date().timeIntervalSince(killed)
        if outage > 0 { try await Task.sleep(nanoseconds: UInt64(outage * 1e9)) }
        let second = try StreamServers.srtReceiver(port: port, file: "\(dir)/second.mkv")
        defer { second.signal(SIGKILL) }
        // An attempt that began before the listener was back waits out SRT's 3 s connect timeout.
        _ = try await p.waitForOutput("\"publish-connected\"", timeout: 30)
        p.send("wait 2s\nrecord stop\npublish stop\n")
        _ = try await p.waitForOutput("\"publish-stopped\"", timeout: 30)
        p.closeInput()
        let r = try await p.wait(timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let events = Self.events(r.stdout)
        let lost = events.filter { $0["event"] as? String == "publish-lost" }
        #expect((lost.first?["cause"] as? String)?.contains("SRT connection broke") == true, "\(lost)")
        let stopped = try #require(events.first { $0["event"] as? String == "publish-stopped" }, "\(r.stdout)")
        #expect(stopped["connections"] as? Int == 2, "\(stopped)")

        // The receiver ends when gpick hangs up.
        let rx = try await StreamServers.ended(second)
        #expect(rx.status == 0, "\(rx.stderr)")
        let received = try await Media.stampIndices("\(dir)/second.mkv")
        let firstStamp = try #require(received.first ?? nil, "its first frame carries no stamp: \(received.prefix(5))")
        #expect(Media.isConsecutive(received, from: firstStamp), "\(received.map { $0.map(String.init) ?? "-" }.joined(separator: " "))")

        let written = try #require(events.first { $0["event"] as? String == "file-written" }, "\(r.stdout)")
        let recorded = try await Media.stampIndices("\(dir)/r.mp4")
        #expect(recorded.count == written["frames"] as? Int, "recording: \(recorded.count) frames, \(written)")
        let from = try #require(recorded.first ?? nil)
        #expect(Media.isConsecutive(recorded, from: from), "recording: a gap in \(recorded.count) frames")
        // It began before the first listener went, and holds the second connection's first frame:
        // it went on through the outage. (That frame was sent before "publish-connected", so
        // before "record stop", however late a busy machine runs the session.)
        #expect(recorded.contains(firstStamp), "recording \(from)…\(recorded.count) frames, the second connection began at \(firstStamp)")
        // The second listener has every frame the session took while it was connected (the
        // recording's, from its first frame on; the recording stopped first), counted in frames
        // taken rather than in wall time: a starved test source makes fewer than 30 a second.
        let during = recorded.compactMap { $0 }.filter { $0 >= firstStamp }
        #expect(during.count >= 30, "the second connection lasted \(during.count) frames of the 2 s before the stop")
        #expect(Set(received.compactMap { $0 }).isSuperset(of: during),
                "the second listener got \(received.count) frames, the recording \(during.count) from \(firstStamp) on")
        #expect(stopped["sent"] as? Int ?? 0 > received.count, "both connections' frames are counted: \(stopped)")
    }

    /// nginx-rtmp takes the stream; ffprobe and ffmpeg read it back from nginx, with unbroken
    /// stamps. SIGTERM ends the publication cleanly.
    @Test func nginxRTMPServesWhatGpickPublishes() async throws {
        let dir = TestEnvironment.tempDir()
        let port = try StreamServers.freePort(udp: false)
        let nginx = try await StreamServers.rtmpServer(port: port, dir: dir)
        defer { nginx.signal(SIGKILL) }
        let url = "rtmp://127.0.0.1:\(port)/live/cam"
        let p = try Subprocess.start(TestEnvironment.binary, ["publish", url, "--json", "--duration", "90"] + Self.small)
        defer { p.signal(SIGKILL) }
        let started = try await p.waitForOutput("\"started\"", timeout: 30)
        // The stream key is not printed.
        #expect(started.contains("rtmp://127.0.0.1:\(port)/live/…") && !started.contains("/live/cam"), "\(started)")
        let probe = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height",
                                                                  "-of", "csv=p=0", url], timeout: 30)
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,320,240", "\(probe.stderr)")
        let file = "\(dir)/back.mkv"
        let read = try await Self.readBack(url, frames: 60, to: file, publisher: p, nginxDir: dir)
        #expect(read.status == 0, "\(read.stderr)")
        let stamps = try await Media.stampIndices(file)
        #expect(stamps.count == 60, "\(stamps.count) frames")
        let first = try #require(stamps.first ?? nil, "no stamp on the first frame read back")
        #expect(Media.isConsecutive(stamps, from: first), "\(stamps.map { $0.map(String.init) ?? "-" }.joined(separator: " "))")
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(Self.events(r.stdout).contains { $0["event"] as? String == "finished" && $0["connections"] as? Int == 1 }, "\(r.stdout)")
    }

    /// With --audio an SRT listener gets the sound too: AAC in the MPEG-TS beside the picture,
    /// stamped from the same origin, so the two start together in what it received as sent.
    @Test func srtGetsTheSoundInStep() async throws {
        let dir = TestEnvironment.tempDir()
        let port = try StreamServers.freePort(udp: true)
        let file = "\(dir)/av.ts"
        let rx = try StreamServers.srtTSReceiver(port: port, file: file)
        defer { rx.signal(SIGKILL) }
        #expect(try await TestEnvironment.eventually(10) { StreamServers.udpBound(port) }, "srtsrc did not bind \(port)")
        let r = try await Subprocess.gpick(["publish", "srt://127.0.0.1:\(port)", "--audio", "test", "--duration", "3", "--json"] + Self.small)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        _ = try await StreamServers.ended(rx)
        let found = try await Media.soundBesidePicture(file)
        let av = try #require(found, "no picture and sound in \(file)")
        #expect(av.video == "h264" && av.audio == "aac", "\(av.streams)")
        #expect(av.gap < 0.1, "audio and video start \(av.gap) s apart: \(av.streams)")
        let samples = try await Media.sound(file)
        #expect(samples.count > 2 * 48_000 && Media.rms(samples, skip: 4800) > 1000, "\(samples.count) samples at \(Media.rms(samples, skip: 4800))")
        let stamps = try await Media.stampIndices(file)
        let first = try #require(stamps.first ?? nil, "no stamp on the first frame received")
        let sent = try #require(Self.events(r.stdout).first { $0["event"] as? String == "finished" }?["sent"] as? Int, "\(r.stdout)")
        #expect(sent >= 30 && stamps.count == sent && Media.isConsecutive(stamps, from: first), "\(stamps.count) frames of \(sent) sent")
    }

    /// Over RTMP too (AAC, as FLV requires): nginx-rtmp hands a player its sound and picture,
    /// each from where it joined them (its timestamps are per stream), so here only that both
    /// arrive, the tone and the picture, is checked; SRT above shows they are in step.
    @Test func nginxRTMPGetsTheSoundToo() async throws {
        let dir = TestEnvironment.tempDir()
        let port = try StreamServers.freePort(udp: false)
        let nginx = try await StreamServers.rtmpServer(port: port, dir: dir)
        defer { nginx.signal(SIGKILL) }
        let url = "rtmp://127.0.0.1:\(port)/live/cam"
        let p = try Subprocess.start(TestEnvironment.binary, ["publish", url, "--audio", "test", "--json", "--duration", "90"] + Self.small)
        defer { p.signal(SIGKILL) }
        _ = try await p.waitForOutput("\"started\"", timeout: 30)
        let file = "\(dir)/av.mkv"
        let read = try await Self.readBack(url, frames: 60, to: file, publisher: p, nginxDir: dir)
        #expect(read.status == 0, "\(read.stderr)")
        let streams = try await Media.probedStreams(file)
        #expect(streams.map(\.codec).sorted() == ["aac", "h264"], "\(streams)")
        let samples = try await Media.sound(file)
        #expect(samples.count > 48_000 && Media.rms(samples, skip: 4800) > 1000, "\(samples.count) samples at \(Media.rms(samples, skip: 4800))")
        let stamps = try await Media.stampIndices(file)
        let first = try #require(stamps.first ?? nil, "no stamp on the first frame read back")
        #expect(stamps.count == 60 && Media.isConsecutive(stamps, from: first), "\(stamps.count) frames")
        p.signal(SIGTERM)
        let r = try await p.wait(timeout: 20)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
    }

    /// RTSP's RECORD (what MediaMTX takes from a publisher), to gst-rtsp-server in record mode:
    /// what it recorded has the picture with the test source's stamps in order, and the sound.
    @Test func anRTSPServerRecordsWhatGpickPublishes() async throws {
        let dir = TestEnvironment.tempDir()
        let port = try StreamServers.freePort(udp: false)
        let server = try StreamServers.rtspRecordServer(port: port, dir: dir)
        defer { server.signal(SIGKILL) }
        // It says so once it listens: Python, GObject and GStreamer's registry took over 10 s to
        // start beside the full suite on 2 cores.
        _ = try await server.waitForOutput("listening", timeout: 60)
        #expect(try await TestEnvironment.eventually(10) { StreamServers.tcpListening(port) }, "the RTSP server did not listen on \(port)")
        let r = try await Subprocess.gpick(["publish", "rtsp://127.0.0.1:\(port)/live/cam", "--audio", "test", "--duration", "3", "--json"] + Self.small)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(Self.events(r.stdout).contains { $0["event"] as? String == "started" && $0["url"] as? String == "rtsp://127.0.0.1:\(port)/live/cam" },
                "\(r.stdout)")
        let rx = try await server.wait(timeout: 90)
        #expect(rx.status == 0, "the RTSP server: \(rx.stderr)")
        let said = "gpick said: \(r.stdout)\nthe RTSP server said: \(rx.stdout) \(rx.stderr)"
        #expect(FileManager.default.fileExists(atPath: "\(dir)/video.ts") && FileManager.default.fileExists(atPath: "\(dir)/audio.ts"), "\(said)")
        #expect(try await Media.probedStreams("\(dir)/video.ts").map(\.codec) == ["h264"], "\(said)")
        #expect(try await Media.probedStreams("\(dir)/audio.ts").map(\.codec) == ["opus"], "\(said)")
        let samples = try await Media.sound("\(dir)/audio.ts")
        #expect(samples.count > 2 * 48_000 && Media.rms(samples, skip: 4800) > 1000, "\(samples.count) samples at \(Media.rms(samples, skip: 4800))")
        let stamps = try await Media.stampIndices("\(dir)/video.ts")
        let first = try #require(stamps.first ?? nil, "no stamp on the first frame recorded")
        // Every frame gpick sent, in order. (Counted against gpick's own figure, not the clock:
        // on a busy machine the session itself runs late, and 3 s may hold fewer than 90 frames.)
        let sent = try #require(Self.events(r.stdout).first { $0["event"] as? String == "finished" }?["sent"] as? Int, "\(r.stdout)")
        #expect(sent >= 30 && stamps.count == sent && Media.isConsecutive(stamps, from: first), "\(stamps.count) frames of \(sent) sent")
    }

    /// The server goes away and stays away: with --retry-for, gpick gives up with one line and 69.
    @Test func aServerGoneForGoodEndsWithOneLineAfterRetryFor() async throws {
        let dir = TestEnvironment.tempDir()
        let port = try StreamServers.freePort(udp: false)
        let nginx = try await StreamServers.rtmpServer(port: port, dir: dir)
        defer { nginx.signal(SIGKILL) }
        let p = try Subprocess.start(TestEnvironment.binary, ["publish", "rtmp://127.0.0.1:\(port)/live/cam", "--json",
                                                              "--retry-for", "2", "--duration", "60"] + Self.small)
        defer { p.signal(SIGKILL) }
        _ = try await p.waitForOutput("\"started\"", timeout: 30)
        nginx.signal(SIGKILL)
        let r = try await p.wait(timeout: 30)
        #expect(r.status == 69, "\(r.status): \(r.stderr)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("stayed unreachable for 2 s"), "\(r.stderr)")
        let lost = Self.events(r.stdout).filter { $0["event"] as? String == "lost" }
        #expect(lost.count >= 2, "retries: \(lost)")
        // Pauses grow: 0.5 s, then 1 s…
        #expect(lost.compactMap { $0["retry_in"] as? Double }.prefix(2) == [0.5, 1], "\(lost)")
    }

    /// Each mistake is one line with its exit code, before or instead of a retry loop.
    @Test func badURLsServersAndPassphrasesAreOneLine() async throws {
        let dir = TestEnvironment.tempDir()
        func run(_ args: [String]) async throws -> Subprocess.Result {
            try await Subprocess.gpick(["publish"] + args + Self.small + ["--duration", "5"], timeout: 60)
        }
        // TCP ports held, never listening: in a full run a port merely free when asked was once
        // taken by another test's server, which reset gpick's connection instead of refusing it.
        let (rtmpPort, rtmpHolder) = try StreamServers.refusingPort(), (rtspPort, rtspHolder) = try StreamServers.refusingPort()
        defer { close(rtmpHolder); close(rtspHolder) }
        for (args, code, words) in [
            (["http://127.0.0.1/live/cam"], Int32(64), "srt://, rtmp://, rtmps:// and rtsp://"),
            (["rtsp://127.0.0.1:8554"], 64, "rtsp://HOST[:PORT]/PATH"),
            (["srt://127.0.0.1"], 64, "needs a port"),
            (["rtmp://127.0.0.1/live"], 64, "APP/KEY"),
            (["srt://127.0.0.1:70000"], 64, "1…65535"),
            (["rtmp://127.0.0.1:\(rtmpPort)/live/cam"], 69, "Connection refused"),
            (["srt://127.0.0.1:\(try StreamServers.freePort(udp: true))"], 69, "nobody listens there"),
            (["rtsp://127.0.0.1:\(rtspPort)/cam"], 69, "could not connect (nobody listens there"),
            (["rtmp://127.0.0.1/live/cam", "--passphrase-file", "/etc/hostname"], 64, "for srt:// URLs"),
        ] as [([String], Int32, String)] {
            let r = try await run(args)
            #expect(r.status == code, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderrLines.count == 1 && r.stderr.contains(words), "\(args): \(r.stderr)")
            #expect(!r.stderr.contains("gst") && !r.stderr.contains("GStreamer"), "\(args): \(r.stderr)")
        }
        // A passphrase the listener does not share: refused at once, one line.
        let port = try StreamServers.freePort(udp: true)
        let listener = try StreamServers.srtReceiver(port: port, file: "\(dir)/never.mkv", passphrase: "the-right-one-1234")
        defer { listener.signal(SIGKILL) }
        try "the-wrong-one-1234\n".write(toFile: "\(dir)/key", atomically: false, encoding: .utf8)
        try "short\n".write(toFile: "\(dir)/short", atomically: false, encoding: .utf8)
        #expect(try await TestEnvironment.eventually(10) { StreamServers.udpBound(port) }, "srtsrc did not bind \(port)")
        let wrong = try await run(["srt://127.0.0.1:\(port)", "--passphrase-file", "\(dir)/key"])
        #expect(wrong.status == 69 && wrong.stderrLines.count == 1 && wrong.stderr.contains("refused the passphrase"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("the-wrong-one"), "the passphrase is never printed: \(wrong.stderr)")
        let short = try await run(["srt://127.0.0.1:\(port)", "--passphrase-file", "\(dir)/short"])
        #expect(short.status == 65 && short.stderr.contains("\(dir)/short:1: an SRT passphrase has 10 to 79 characters"), "\(short.stderr)")
    }
}
