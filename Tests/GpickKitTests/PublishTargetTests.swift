import Foundation
import GpickKit
import GpickTestSupport
import Testing

/// Publish URLs are checked before anything starts, and what gpick prints of them hides secrets.
@Suite struct PublishTargetTests {
    @Test func urlsAreCheckedAndTheirSecretsHidden() throws {
        let srt = try PublishTarget("srt://127.0.0.1:9000?streamid=publish:cam&passphrase=hunter2hunter2")
        #expect(srt.scheme == .srt && srt.host == "127.0.0.1" && srt.port == 9000 && srt.pipelineName == "publish-srt")
        #expect(srt.description == "srt://127.0.0.1:9000?streamid=…&passphrase=…")
        let rtmp = try PublishTarget("rtmps://a.rtmp.youtube.com/live2/abcd-efgh-ijkl")
        #expect(rtmp.scheme == .rtmps && rtmp.port == nil && rtmp.pipelineName == "publish-rtmp")
        #expect(rtmp.description == "rtmps://a.rtmp.youtube.com/live2/…")
        let rtsp = try PublishTarget("rtsp://cam:s3cret@192.168.1.20:8554/door")
        #expect(rtsp.scheme == .rtsp && rtsp.host == "192.168.1.20" && rtsp.port == 8554 && rtsp.pipelineName == "publish-rtsp")
        #expect(rtsp.description == "rtsp://cam:…@192.168.1.20:8554/door")
        #expect(try PublishTarget("rtsp://host/door").description == "rtsp://host/door")
        let v6 = try PublishTarget("srt://[::1]:9000")
        #expect(v6.host == "::1" && v6.port == 9000)
        for (bad, words) in [
            ("127.0.0.1:9000", "needs a scheme"), ("udp://127.0.0.1:9000", "not udp://"), ("srt://:9000", "no host"),
            ("srt://127.0.0.1", "needs a port"), ("srt://127.0.0.1:0", "1…65535"), ("srt://127.0.0.1:x", "not a number"),
            ("srt://127.0.0.1:9000/path", "no path"), ("rtmp://host/live", "APP/KEY"), ("rtmp://user:pw@host/live/cam", "credentials"),
            ("rtmp://host/live/a b", "spaces"), ("srt://[::1:9000", "closing ]"),
            ("rtsp://host:8554", "PATH"), ("rtsp://host/", "PATH"), ("rtsp://@host/door", "no user"),
        ] {
            #expect(throws: GpickError.self, "\(bad)") { try PublishTarget(bad) }
            do { _ = try PublishTarget(bad) } catch {
                #expect(error.kind == .usage && error.message.contains(words), "\(bad): \(error.message)")
            }
        }
    }

    /// A file with `send`: bindings go to the part that names their element, and both parts build.
    @Test func sendingPartsSplitBindingsByElement() async throws {
        let file = try TestEnvironment.library.load("publish-srt")
        let (branch, sender) = try #require(file.sendingParts)
        #expect(branch.bindings.map(\.element).allSatisfy { $0 == "venc" }, "\(branch.bindings.map(\.element))")
        #expect(sender.bindings.map(\.parameter) == ["latency"])
        #expect(branch.send == nil && sender.taps.isEmpty && sender.pipeline.value.contains("srtsink name=out"))
        try await PipelineBuilder.validate(file)
        try await PipelineBuilder.validate(try TestEnvironment.library.load("publish-rtmp"))
        let rtsp = try TestEnvironment.library.load("publish-rtsp")
        let (_, rtspSender) = try #require(rtsp.sendingParts)
        #expect(rtspSender.bindings.map(\.parameter) == ["transport"] && rtspSender.pipeline.value.contains("rtspclientsink name=out"))
        try await PipelineBuilder.validate(rtsp)
    }
}

/// The Swift API: `session.publish(to:)` returns a handle whose events tell a loss and the
/// reconnection, while the session goes on.
@Suite struct PublicationAPITests {
    @Test func aPublicationsEventsTellTheLossAndTheReturn() async throws {
        let dir = TestEnvironment.tempDir()
        let port = try StreamServers.freePort(udp: true)
        let first = try StreamServers.srtReceiver(port: port, file: "\(dir)/first.mkv")
        defer { first.signal(SIGKILL) }
        #expect(try await TestEnvironment.eventually(10) { StreamServers.udpBound(port) })
        let session = CaptureSession(try SessionTests.config())
        try await session.start()
        let publication = try await session.publish(to: try PublishTarget("srt://127.0.0.1:\(port)"))
        #expect(publication.isConnected && publication.connections == 1)
        var events = publication.events.makeAsyncIterator()
        first.signal(SIGKILL)
        guard case .lost(let reason, let retryIn)? = await events.next() else { Issue.record("no loss told"); return }
        #expect(reason.contains("SRT") && retryIn == 0.5, "\(reason)")
        let second = try StreamServers.srtReceiver(port: port, file: "\(dir)/second.mkv")
        defer { second.signal(SIGKILL) }
        // Attempts that find nobody are told as losses too, with growing pauses, until one holds.
        var pauses: [Double] = [retryIn]
        while let event = await events.next() {
            if case .lost(_, let next) = event { pauses.append(next); continue }
            #expect(event == .connected(attempt: pauses.count), "\(event) after \(pauses)")
            break
        }
        #expect(pauses == Array([0.5, 1, 2, 4, 8, 8, 8].prefix(pauses.count)), "\(pauses)")
        #expect(publication.isConnected && publication.connections == 2)
        await publication.stop()
        #expect(await events.next() == nil, "the events end with the publication")
        await session.stop()
    }
}
