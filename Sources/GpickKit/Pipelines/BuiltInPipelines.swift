import FoundationEssentials

/// The pipeline files gpick ships (the repository's pipelines/ folder), built into the library as
/// resources. PipelineLibrary falls back on them when no directory has the name asked for, so a
/// program that depends on GpickKit needs neither a checkout nor an installed share folder.
/// Parsed once each; a test checks that the table lists every file in pipelines/.
public enum BuiltInPipelines {
    static let texts: [String: [UInt8]] = [
        "audio-auto": PackageResources.audio_auto_yaml,
        "audio-test": PackageResources.audio_test_yaml,
        "decode-frames": PackageResources.decode_frames_yaml,
        "live-clip": PackageResources.live_clip_yaml,
        "live-clip-mov": PackageResources.live_clip_mov_yaml,
        "live-ring": PackageResources.live_ring_yaml,
        "motion-clip": PackageResources.motion_clip_yaml,
        "motion-ring": PackageResources.motion_ring_yaml,
        "preview-http": PackageResources.preview_http_yaml,
        "preview-terminal": PackageResources.preview_terminal_yaml,
        "preview-window": PackageResources.preview_window_yaml,
        "publish-rtmp": PackageResources.publish_rtmp_yaml,
        "publish-rtsp": PackageResources.publish_rtsp_yaml,
        "publish-srt": PackageResources.publish_srt_yaml,
        "record-mkv": PackageResources.record_mkv_yaml,
        "record-mp4": PackageResources.record_mp4_yaml,
        "record-webm": PackageResources.record_webm_yaml,
        "serve-rtsp": PackageResources.serve_rtsp_yaml,
        "session": PackageResources.session_yaml,
        "source-file": PackageResources.source_file_yaml,
        "source-libcamera": PackageResources.source_libcamera_yaml,
        "source-pipewire": PackageResources.source_pipewire_yaml,
        "source-test": PackageResources.source_test_yaml,
        "source-v4l2": PackageResources.source_v4l2_yaml,
        "still-jpeg": PackageResources.still_jpeg_yaml,
        "still-png": PackageResources.still_png_yaml,
        "timelapse": PackageResources.timelapse_yaml,
    ]

    public static var names: [String] { texts.keys.sorted() }

    /// Where a built-in file says it comes from, in messages (file:line) and `pipelines list`.
    public static func path(of name: String) -> String { "<built-in>/\(name).yaml" }

    /// The built-in file `name` parsed, or nil when gpick ships none of that name.
    static func file(named name: String) -> Result<PipelineFile, GpickError>? {
        parsed.withLock { cache in
            if let done = cache[name] { return done }
            guard let bytes = texts[name] else { return nil }
            let result = Result { () throws(GpickError) in
                try PipelineLoader.parse(String(decoding: bytes, as: UTF8.self), path: path(of: name))
            }
            cache[name] = result
            return result
        }
    }

    private static let parsed = Locked<[String: Result<PipelineFile, GpickError>]>([:])
}
