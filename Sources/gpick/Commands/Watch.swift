import GpickCLI
import ArgumentParser
import FoundationEssentials
import Glibc
import GpickKit

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch the camera for motion: a line when it starts and when it ends, in each zone.",
        discussion: """
        The frame is compared, as a small luma picture, with a background that follows the scene \
        where nothing moves; light over the whole scene (a cloud, a lamp, the camera's exposure \
        settling) is not motion, and a change that stays a minute (a parked car) becomes the scene. \
        Each start prints `motion started in ZONE at SECONDS s`, each end likewise; with --json, \
        motion-started and motion-ended events with the zone, the changed share of it, the box it \
        changed in ([x, y, width, height] of the frame) and the stream time. Zones and masks are \
        polygons in fractions of the frame: --zone door=0.6,0.2 1,0.2 1,1 0.6,1. The test source's \
        frame stamp is never looked at. Runs until --duration, Ctrl-C or SIGTERM.

        With --record DIR, each motion event is a clip in DIR: it starts --pre seconds before the \
        first moving frame (from a pre-roll the session keeps encoded, on a keyframe: up to a \
        second earlier), and ends --post seconds after motion stopped in every zone; motion again \
        within those seconds goes on in the same clip. Clips are written as they happen and play \
        at every moment, even after a kill. Each clip's path is printed when it is complete \
        (file-written with --json, after clip-started). --keep, --keep-size and --keep-free delete \
        the oldest clips, those of earlier runs with the same --clip-name too. \
        With --serve NAME the same session is also an RTSP stream on 127.0.0.1 (rtsp://127.0.0.1:8554/NAME; \
        gpick serve has the network options), and with --publish URL it is pushed to an SRT, RTMP or RTSP \
        server as gpick publish does (reconnecting when the server goes away), while it is watched.
        """)

    @Option(name: .customLong("zone"), help: ArgumentHelp("A zone motion is reported for: NAME=x1,y1 x2,y2 x3,y3 … (repeatable; none: the whole frame, as zone \"frame\").", valueName: "name=points"))
    var zones: [String] = []

    @Option(name: .customLong("mask"), help: ArgumentHelp("A part of the frame never looked at: x1,y1 x2,y2 x3,y3 … (repeatable).", valueName: "points"))
    var masks: [String] = []

    @Option(name: .long, parsing: .unconditional, help: "How far a part of the picture must change, 1…255 of full scale (default 20).")
    var threshold: Double?

    @Option(name: .customLong("min-area"), parsing: .unconditional, help: "The share of a zone that must change, in % (default 0.6).")
    var minArea: Double?

    @Option(name: .customLong("end-after"), parsing: .unconditional, help: "Seconds without motion before it ends (default 1).")
    var endAfter: Double?

    @Option(name: .long, parsing: .unconditional, help: "Seconds to watch (default: until Ctrl-C or SIGTERM).")
    var duration: Double?

    @Option(name: .long, help: ArgumentHelp("Write a clip of each motion event into this folder.", valueName: "dir"))
    var record: String?

    @Option(name: .long, parsing: .unconditional, help: "With --record: seconds of picture before the first moving frame (default 3).")
    var pre: Double?

    @Option(name: .long, parsing: .unconditional, help: "With --record: seconds of picture after motion stopped (default 5).")
    var post: Double?

    @Option(name: .long, parsing: .unconditional, help: "With --record: the longest a clip may be, in seconds; motion that goes on longer goes on in the next clip, from a keyframe, no frame lost or repeated (default 600).")
    var longest: Double?

    @Option(name: .customLong("clip-name"), help: "With --record: the clips' file name; %t the time motion started, %n the clip's number (default motion-%t.mp4).")
    var clipName: String?

    @Flag(name: .long, help: "With --record: also a JPEG as each clip starts, named as the clip.")
    var snap = false

    @OptionGroup(title: "Clips (with --record)") var kept: RetentionOptions

    @Option(name: .long, help: ArgumentHelp("Also serve the session over RTSP on 127.0.0.1 under this name.", valueName: "name"))
    var serve: String?

    @Option(name: .customLong("rtsp-port"), parsing: .unconditional, help: "With --serve: the RTSP port (default 8554; 0: any free port).")
    var rtspPort: Int?

    @Option(name: .long, help: ArgumentHelp("Also publish the session to srt://HOST:PORT, rtmp://HOST/APP/KEY or rtsp://HOST/PATH.", valueName: "url"))
    var publish: String?

    @OptionGroup var capture: SourceOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var pipelines: PipelineOptions
    @OptionGroup var out: OutputOptions

    func validate() throws {
        if let duration, !(duration > 0) || !duration.isFinite {
            throw ValidationError("--duration \(duration) must be a positive number of seconds")
        }
        if let threshold, !(1...255).contains(threshold) { throw ValidationError("--threshold \(threshold) must be 1…255") }
        if let minArea, !(minArea > 0 && minArea <= 100) { throw ValidationError("--min-area \(minArea) must be a percentage above 0, at most 100") }
        if let endAfter, !(endAfter >= 0) || !endAfter.isFinite { throw ValidationError("--end-after \(endAfter) must be 0 or more seconds") }
        for (flag, v) in [("--pre", pre), ("--post", post)] {
            guard let v else { continue }
            guard record != nil else { throw ValidationError("\(flag) needs --record (it is part of a clip)") }
            guard v >= 0, v <= 60 else { throw ValidationError("\(flag) \(v) must be 0…60 seconds") }
        }
        if try record == nil && (clipName != nil || snap || !kept.retention().keepsEverything) {
            throw ValidationError("--clip-name, --snap, --keep, --keep-size and --keep-free need --record (they name, add and delete clips)")
        }
        if longest != nil, record == nil { throw ValidationError("--longest needs --record (it is how long a clip may be)") }
        if let rtspPort {
            guard serve != nil else { throw ValidationError("--rtsp-port needs --serve") }
            guard (0...65535).contains(rtspPort) else { throw ValidationError("--rtsp-port \(rtspPort) must be 0…65535") }
        }
        if let serve, serve.isEmpty || serve.contains("/") || serve.contains("?") {
            throw ValidationError("--serve \(serve) must be a stream name, like door")
        }
        _ = try settings()
        _ = try clipSettings()
    }

    /// The detection settings the options ask for.
    func settings() throws -> MotionSettings {
        var s = MotionSettings()
        if let threshold { s.threshold = threshold }
        if let minArea { s.minArea = minArea / 100 }
        if let endAfter { s.endAfter = endAfter }
        do {
            for z in zones {
                guard let eq = z.firstIndex(of: "="), eq != z.startIndex else {
                    throw ValidationError("--zone \(z) must be NAME=POINTS, e.g. door=0.6,0.2 1,0.2 1,1 0.6,1")
                }
                let name = String(z[..<eq])
                guard !s.zones.contains(where: { $0.name == name }) else { throw ValidationError("--zone \(name) is given twice") }
                s.zones.append(MotionZone(name: name, area: try MotionPolygon(parsing: String(z[z.index(after: eq)...]))))
            }
            s.masks = try masks.map { try MotionPolygon(parsing: $0) }
        } catch let e as GpickError {
            throw ValidationError("\(zones.isEmpty ? "--mask" : "--zone or --mask"): \(e.message)")
        }
        return s
    }

    /// The clips' settings the options ask for.
    func clipSettings() throws -> MotionClips.Settings {
        var c = MotionClips.Settings()
        if let pre { c.pre = pre }
        if let post { c.post = post }
        if let longest {
            guard longest >= MotionClips.minimumLongest, longest <= MotionClips.maximumLongest else {
                throw ValidationError("--longest \(longest) must be \(Int(MotionClips.minimumLongest))…\(Int(MotionClips.maximumLongest)) seconds")
            }
            c.longest = longest
        }
        c.snap = snap
        if let clipName {
            do { try MotionClips.checkName(clipName) } catch let e as GpickError { throw ValidationError("--clip-name: \(e.message)") }
            c.name = clipName
        }
        return c
    }

    func run() async throws {
        let events = Events(json: out.json, command: "watch")
        try await reporting(events) {
            let settings = try self.settings()
            let library = pipelines.library
            var config = try capture.configuration(library: library)
            try camera.apply(to: &config, capture: capture)
            config.audio = .none
            let session = CaptureSession(config)
            let (ends, end) = AsyncStream<Void>.makeStream()
            session.onEvent { e in
                if case .motion = e { return }  // told below, in this command's words
                events.sessionEvent(e)
                if case .sourceFailed = e { end.yield() }
            }
            let stopper = SignalStopper()
            let failure = Locked<GpickError?>(nil)
            let watch: MotionWatch
            var clips: MotionClips?
            var served: (server: RTSPServer, stream: RTSPStream)?
            var published: Publication?
            do {
                let target = try publish.map { u throws(GpickError) in try PublishTarget(u) }
                try await session.start()
                if let target {
                    published = try await Publication.start(in: session, to: target) { event in
                        switch event {
                        case .connected(let attempt):
                            events.emit("publish-connected", ["url": "\(target)", "attempt": attempt])
                        case .lost(let reason, let retryIn):
                            events.emit("publish-lost", ["url": "\(target)", "cause": reason, "retry_in": retryIn])
                            if !events.json { Console.notice("publish: lost \(target): \(reason); trying again in \(cFormat("%g", retryIn)) s") }
                        }
                    }
                }
                if let serve {
                    let server = try RTSPServer(port: rtspPort ?? 8554)
                    do {
                        served = (server, try await RTSPStream.start(in: session, on: server, name: serve))
                    } catch {
                        await server.close()
                        throw error
                    }
                }
                if let record {
                    var settings = try clipSettings()
                    settings.retention = try kept.retention()
                    clips = try await MotionClips.start(in: session, directory: record, settings: settings) { e in
                        switch e {
                        case .started(let path, let number, let from, let continues):
                            var fields: JSONFields = ["path": path, "number": number, "from": (from * 1000).rounded() / 1000]
                            if let continues { fields["continues"] = continues }
                            events.emit("clip-started", fields)
                        case .written(let clip):
                            events.fileWritten(clip.path, bytes: clip.bytes, extra: clip.fields)
                        case .still(let path, let bytes, let number, let first):
                            events.fileWritten(path, bytes: Int64(bytes), extra: ["number": number, "still": true, "motion-start": first])
                        case .deleted(let path):
                            events.emit("clip-deleted", ["path": path])
                        case .failed(_, let error):
                            failure.withLock { $0 = $0 ?? error }
                            end.yield()
                        }
                    }
                }
                watch = try MotionWatch.start(in: session, settings: settings) { [clips] m in
                    events.emit("motion-\(m.kind.rawValue)", m.fields)
                    if !events.json { print("motion \(m.kind.rawValue) in \(m.zone) at \(cFormat("%.2f", m.time)) s") }
                    clips?.motion(m)
                }
                clips?.follow(watch)
            } catch {
                await clips?.stop()
                await published?.stop()
                if let served { await served.stream.stop(); await served.server.close() }
                await session.stop()
                throw error
            }
            var started: JSONFields = ["source": "\(session.source)", "width": session.format.width, "height": session.format.height,
                                       "zones": JSONValue.array(settings.reportedZones.map { .string($0.name) })]
            if let served { started["url"] = served.stream.url }
            // As gpick publish names it (an RTMP key is not printed).
            if let published { started["publish"] = "\(published.target)" }
            events.started(started.mode(of: session))
            if let served, !events.json { print(served.stream.url) }
            let service = ServiceWatch.ready("watching \(session.source)", sessions: [session])
            stopper.onSignal { _ in end.yield() }
            let timer = duration.map { d in Task { try? await Task.sleep(nanoseconds: UInt64(d * 1e9)); end.yield() } }
            for await _ in ends { break }
            service?.stopping()
            timer?.cancel()
            await watch.stop()
            await clips?.stop()
            await published?.stop()
            if let served { await served.stream.stop(); await served.server.close() }
            await session.stop()
            if let f = failure.withLock({ $0 }) { throw f }
            events.finished()
        }
    }
}
