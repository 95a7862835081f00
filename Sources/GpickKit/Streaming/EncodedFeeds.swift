import GpickBase
import GstCore

/// Where an encoder branch's frames go: every appsrc fed now (an RTSP mount's medias, a
/// publication's sender), each from its first keyframe on. A feed that joins asks the encoder for
/// a keyframe, so it waits no longer than one frame's encode.
///
/// Each feed's frames keep the spacing they were captured with: the first is stamped with the
/// feed's running time when it is pushed, each later one that plus its capture time since. An
/// encoder that falls behind and then catches up sends frames in a burst; stamped on arrival,
/// they would be a millisecond apart, and viewers that store milliseconds (Matroska) would see
/// duplicates. A feed's audio (a media's second appsrc) is stamped from the same origin, so
/// viewers play sound and picture together; it starts with the first keyframe too.
final class EncodedFeeds: Sendable {
    /// An encoder branch built from `file` (which ends in an appsink named `sink`, and with
    /// `audio` its audio path in one named `asink`) for `session`, and the feeds its encoded
    /// frames go to.
    static func branch(_ file: PipelineFile, values: [String: Parameter.Value], in session: CaptureSession,
                       named prefix: String, audio: Bool = false) async throws(GpickError) -> (Branch, EncodedFeeds) {
        let bin = try await PipelineBuilder.build(file, audio: audio, values: values, asPipeline: false)
        let branch = try Branch(bin: bin, name: session.allocateBranchName(prefix), audio: audio)
        guard let sinkElement = bin.element(named: "sink"), let sink = try? AppSink(sinkElement) else {
            throw file.error(file.pipeline.line, "an encoder branch for the network ends in an appsink named \"sink\"")
        }
        var audioSink: AppSink?
        if audio {
            guard let element = bin.element(named: "asink"), let a = try? AppSink(element) else {
                throw file.error(file.audio?.line ?? file.pipeline.line, "an encoder branch's audio for the network ends in an appsink named \"asink\"")
            }
            audioSink = a
        }
        let feeds = EncodedFeeds(sink: sink, sinks: audioSink == nil ? 1 : 2)
        sink.setCallbacks(onSample: { feeds.deliver($0) }, onEOS: { feeds.sinkDrained() })
        audioSink?.setCallbacks(onSample: { feeds.deliverAudio($0) }, onEOS: { feeds.sinkDrained() })
        return (branch, feeds)
    }

    private let sink: AppSink
    private let state: Locked<State>
    /// Fired when the branch's end of stream reaches its appsinks: everything is delivered.
    let drained = Signal()

    private struct Feed {
        let src: AppSrc
        let audio: AppSrc?
        /// The sample time of the feed's first frame, and the feed's running time it was given.
        var origin: (sample: UInt64, media: UInt64)?
        /// Frames pushed and refused, for the debug log (`GST_DEBUG=gpick:5`).
        var pushed = 0, refused = 0, lastPTS: UInt64?
        /// The time of the last sound pushed (the audio thread's own bookkeeping).
        var audioSent: UInt64?
    }

    private struct State {
        /// Live feeds by their (video) appsrc's address.
        var feeds: [UInt: Feed] = [:]
        var encoded = 0
        /// Frames handed to feeds, once per feed each went to.
        var sent = 0
        var ended = false
        /// Appsinks whose end of stream has not come yet.
        var sinksLeft: Int
        /// Encoded sound a feed that starts later may still need, with its times. The picture's
        /// keyframe comes out of its encoder later than the sound of the same moment (x264 takes
        /// longer than Opus or AAC, seconds longer on a busy machine), and a feed's sound starts
        /// where its picture does, from here. So the sound is kept back to the last picture
        /// encoded (a feed's first keyframe can be no older), however far behind it is, and
        /// at most `audioKept` of it when no picture comes.
        var recentAudio: [(sample: Sample, time: UInt64)] = []
        /// The capture time of the last picture encoded.
        var lastPicture: UInt64?
    }

    init(sink: AppSink, sinks: Int = 1) {
        self.sink = sink
        state = Locked(State(sinksLeft: sinks))
    }

    var framesEncoded: Int { state.withLock { $0.encoded } }
    var framesSent: Int { state.withLock { $0.sent } }
    var liveFeeds: Int { state.withLock { $0.feeds.count } }

    /// An appsrc to feed, with its audio one if any (a media came to life, a sender connects):
    /// it waits for the next keyframe, asked for now.
    func feedAdded(_ element: Element, audio: Element? = nil) {
        guard let src = try? AppSrc(element) else { return }
        let audioSrc = audio.flatMap { try? AppSrc($0) }
        let added = state.withLock { s -> Bool in
            guard !s.ended else { return false }
            s.feeds[UInt(bitPattern: element.pointer)] = Feed(src: src, audio: audioSrc)
            return true
        }
        DebugLog.log(.info, element, "feed added (audio: \(audioSrc != nil), taken: \(added))")
        if added { sink.sendEvent(.forceKeyUnit()) }
        else { src.endOfStream(); audioSrc?.endOfStream() }
    }

    /// A viewer starts playing a media that is already flowing: what it gets until the next
    /// keyframe cannot be decoded, so one is asked for now.
    func keyframeWanted() {
        if DebugLog.isOn(.info) {
            for feed in state.withLock({ Array($0.feeds.values) }) {
                let level = (try? feed.src.get("current-level-bytes")).map { "\($0)" } ?? "?"
                DebugLog.log(.info, feed.src, "a viewer joins: \(feed.pushed) pushed, \(feed.refused) refused, last at \(feed.lastPTS.map(String.init) ?? "-"), running time now \(feed.src.playingRunningTime.map(String.init) ?? "-"), \(level) bytes queued")
            }
        }
        sink.sendEvent(.forceKeyUnit())
    }

    func feedRemoved(_ element: Element) {
        let gone = state.withLock { $0.feeds.removeValue(forKey: UInt(bitPattern: element.pointer)) }
        DebugLog.log(.info, element, "feed removed: \(gone?.pushed ?? 0) frames pushed, \(gone?.refused ?? 0) refused, origin \(gone?.origin.map { "\($0)" } ?? "none")")
    }

    /// One encoded frame (on the branch's streaming thread), to every feed that has had its
    /// keyframe or gets one now.
    func deliver(_ sample: Sample) {
        guard let time = Self.time(of: sample) else { return }
        let keyframe = sample.buffer?.isKeyframe ?? false
        // Read outside the lock: it asks the feed's clock (once it plays: see playingRunningTime).
        let starting = state.withLock { s -> [UInt: AppSrc] in
            s.encoded += 1
            s.lastPicture = time
            guard keyframe else { return [:] }
            return s.feeds.filter { $0.value.origin == nil }.mapValues(\.src)
        }
        let origins = starting.compactMapValues { src in src.playingRunningTime.map { (sample: time, media: $0) } }
        if DebugLog.isOn(.info), !origins.isEmpty {
            let sound = state.withLock { s in s.recentAudio.first.map { "sound kept from \($0.time) to \(s.recentAudio.last?.time ?? 0)" } ?? "no sound kept" }
            for (k, o) in origins { DebugLog.log(.info, starting[k], "feed starts: sample \(o.sample) is its \(o.media); \(sound)") }
        }
        // A feed without its clock yet cannot start on this keyframe: another, soon.
        if origins.count < starting.count {
            DebugLog.log(.debug, nil, "\(starting.count - origins.count) feed(s) without a clock yet: another keyframe asked")
            sink.sendEvent(.forceKeyUnit())
        }
        let targets = state.withLock { s -> [(UInt, AppSrc, UInt64)] in
            var out: [(UInt, AppSrc, UInt64)] = []
            for (k, feed) in s.feeds {
                var origin = feed.origin
                if origin == nil, let o = origins[k] {
                    origin = o
                    s.feeds[k]?.origin = o
                }
                // Frames before the feed's first keyframe (or before it has a clock) wait.
                guard let origin, time >= origin.sample else { continue }
                out.append((k, feed.src, origin.media + (time - origin.sample)))
            }
            return out
        }
        // A feed being torn down refuses the push: it is about to be removed.
        var refused: [UInt] = []
        for (k, src, pts) in targets {
            do throws(GStreamerError) { try src.push(sample, at: pts) } catch {
                refused.append(k)
                DebugLog.log(.debug, src, "\(error.message) at \(pts)")
            }
        }
        state.withLock { s in
            for (k, _, pts) in targets { s.feeds[k]?.pushed += 1; s.feeds[k]?.lastPTS = pts }
            for k in refused { s.feeds[k]?.refused += 1 }
            s.sent += targets.count - refused.count
        }
    }

    /// One encoded piece of sound (on the branch's audio streaming thread), to every feed with
    /// audio whose picture has started, stamped from the picture's origin. A feed whose picture
    /// has just started first gets the sound kept since that moment. Every push of sound happens
    /// here, on this one thread, so each feed's sound goes out in order.
    func deliverAudio(_ sample: Sample) {
        guard let time = Self.time(of: sample) else { return }
        let targets = state.withLock { s -> [(AppSrc, [(Sample, UInt64)])] in
            s.recentAudio.append((sample, time))
            var out: [(AppSrc, [(Sample, UInt64)])] = []
            for (k, feed) in s.feeds {
                guard let audio = feed.audio, let origin = feed.origin else { continue }
                let after = feed.audioSent
                let due = s.recentAudio.filter { piece in piece.time >= origin.sample && (after.map { piece.time > $0 } ?? true) }
                guard let last = due.last else { continue }
                s.feeds[k]?.audioSent = last.time
                out.append((audio, due.map { ($0.sample, origin.media + ($0.time - origin.sample)) }))
            }
            // Every started feed has had its sound up to now (above, under the same lock), and
            // a feed that starts later starts at a keyframe no older than the last picture.
            let older = s.lastPicture ?? 0
            s.recentAudio.removeAll { $0.time < older || time > $0.time + Self.audioKept }
            return out
        }
        for (src, pieces) in targets {
            for (piece, pts) in pieces { try? src.push(piece, at: pts) }
        }
    }

    /// The most sound kept for feeds to come while no picture is encoded (a stalled encoder),
    /// in nanoseconds: memory stays bounded (Opus: about 8 KB a second).
    static let audioKept: UInt64 = 10_000_000_000

    /// When a sample was captured: its running time, which sound and picture share. (Not its
    /// timestamp: x264enc shifts the picture's by 1000 hours, so that no decoding time is
    /// negative, and its segment says so.)
    private static func time(of sample: Sample) -> UInt64? {
        sample.runningTime ?? sample.buffer?.pts
    }

    /// One of the branch's appsinks has had its end of stream.
    private func sinkDrained() {
        let all = state.withLock { s -> Bool in
            s.sinksLeft -= 1
            return s.sinksLeft == 0
        }
        if all { drained.fire() }
    }

    /// Ends every feed's stream (viewers see its end) and takes no new ones.
    func endAll() {
        let srcs = state.withLock { s -> [AppSrc] in
            s.ended = true
            defer { s.feeds.removeAll(); s.recentAudio.removeAll() }
            return s.feeds.values.flatMap { [$0.src] + ($0.audio.map { [$0] } ?? []) }
        }
        for src in srcs { src.endOfStream() }
    }
}

