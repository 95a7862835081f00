import Foundation

/// What a file a client wrote from a network stream holds besides its picture: ffprobe's view of
/// its streams, and its sound decoded by ffmpeg.
extension Media {
    /// A stream as ffprobe reports it: codec, kind (video, audio) and start time (s).
    public struct ProbedStream: Sendable {
        public let codec: String
        public let kind: String
        public let start: Double?
    }

    public static func probedStreams(_ path: String) async throws -> [ProbedStream] {
        // JSON: its top-level streams list each stream once (CSV repeats an MPEG-TS's streams
        // under its program).
        let probe = try await Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,codec_type,start_time",
                                                                  "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any]
        let streams = json?["streams"] as? [[String: Any]] ?? []
        return streams.map { s in
            ProbedStream(codec: s["codec_name"] as? String ?? "", kind: s["codec_type"] as? String ?? "",
                         start: (s["start_time"] as? String).flatMap(Double.init))
        }
    }

    /// The codecs of the file's picture and sound, and how far apart (s) they start; nil when
    /// either is missing.
    public static func soundBesidePicture(_ path: String) async throws -> (video: String, audio: String, gap: Double, streams: [ProbedStream])? {
        let streams = try await probedStreams(path)
        guard let video = streams.first(where: { $0.kind == "video" }), let audio = streams.first(where: { $0.kind == "audio" }) else { return nil }
        return (video.codec, audio.codec, abs((audio.start ?? 99) - (video.start ?? -99)), streams)
    }

    /// The file's first audio stream as mono 16-bit samples, decoded by ffmpeg.
    public static func sound(_ path: String) async throws -> [Int16] {
        let pcm = try await MediaFixtures.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-"])
        return pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Root mean square of `samples` after the first `skip` (an encoder's start-up).
    public static func rms(_ samples: [Int16], skip: Int = 0) -> Double {
        let tail = samples.dropFirst(skip)
        guard !tail.isEmpty else { return 0 }
        return (tail.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(tail.count)).squareRoot()
    }
}
