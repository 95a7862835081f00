"""A complete results document as a run writes it (figures from the 2026-11-22 run), for the
report's tests to vary one measurement at a time."""
import copy

RESULTS = {
    "meta": {"date": "2026-11-22 18:20:22 UTC", "seconds": 378.0, "nproc": 2, "cpu": "Intel(R) Xeon(R) Processor",
             "load_start": "0.31 1.24 1.72", "load_end": "0.94 1.48 1.72", "steal_start": 0.0,
             "gstreamer": "1.22.0", "ffmpeg": "5.1.9-0+deb12u1", "x264": "libx264-164 2:0.164.3095+gitbaee400-3",
             "gpick": "0.1.0", "gpick_path": ".build/release/gpick", "gpick_built": "2026-11-22 17:52:20 UTC",
             "stale_sources": 0, "git": "48ca9f7", "sections": "snap, record, memory, session, live, flips, terminal, library, thumbs"},
    "snap": {"rounds": 4, "rounds_timed": 4, "runs": 40, "steal_kept": 0.1, "steal_all": 0.1, "tools": {
        "gpick": {"command": ".build/release/gpick snap …", "median": 52.7, "min": 40.0, "max": 64.0, "mean": 52.0,
                  "stdev": 5.9, "cpu_mean": 61.3, "output": "1920x1080 135484 bytes"},
        "gst": {"command": "gst-launch-1.0 … same work", "median": 48.8, "min": 35.0, "max": 58.0, "mean": 48.2,
                "stdev": 4.3, "cpu_mean": 48.3, "output": "1920x1080 132127 bytes"},
        "gstmin": {"command": "gst-launch-1.0 … minimal", "median": 43.1, "min": 33.2, "max": 51.2, "mean": 43.1,
                   "stdev": 4.1, "cpu_mean": 42.5, "output": "1920x1080 132127 bytes"},
        "ffmpeg": {"command": "ffmpeg …", "median": 143.2, "min": 107.8, "max": 170.3, "mean": 140.5, "stdev": 15.5,
                   "cpu_mean": 144.0, "output": "1920x1080 75362 bytes"}}},
    "record": {"seconds": 10, "frames": 300, "source_command": "gst-launch-1.0 -q compositor …",
               "commands": {"gpick": "gpick record …", "ffmpeg": "ffmpeg …", "ssim": "ffmpeg -lavfi ssim …"},
               "tools": {"gpick": {"runs": [{"wall": 10.1, "user": 12.8, "sys": 0.5, "maxrss_kib": 141312}] * 2,
                                   "ssim": 0.999341, "frames": 300, "kbps": 9042},
                         "ffmpeg": {"runs": [{"wall": 14.1, "user": 25.0, "sys": 0.48, "maxrss_kib": 502784}] * 2,
                                    "ssim": 0.999151, "frames": 300, "kbps": 6536}},
               "variants": [{"settings": ["speed-preset=ultrafast"], "run": {"wall": 10.2, "user": 6.0, "sys": 0.35,
                                                                           "maxrss_kib": 120000},
                             "ssim": 0.999413, "frames": 300, "kbps": 16531},
                            {"settings": ["speed-preset=medium"], "run": {"wall": 18.9, "user": 23.5, "sys": 0.44,
                                                                         "maxrss_kib": 150000},
                             "ssim": 0.999460, "frames": 300, "kbps": 8945}]},
    "memory": {"command": "gpick record … --duration 60", "inspect_command": "gpick inspect … --stamps --json",
               "expected_frames": 1800, "run": {"wall": 60.1, "user": 66.0, "sys": 1.9, "maxrss_kib": 93496},
               "stamps": {"frames": 1800, "duration": 60.0, "stamps": 1800, "source_ids": ["1"], "unreadable": 0,
                          "first": 0, "last": 1799, "breaks": 0, "missing": 0, "first_missing": [], "ok": True}},
    "session": {"command": "printf … | gpick session …", "shots": 20, "latency_median": 9.0, "latency_max": 9.8,
                "encode_median": 8.5, "wait_median": 0.45, "wait_max": 0.48, "late": 0},
    "live": {"commands": ["printf … | gpick session --mode live …", "printf 'record start …' | …"],
             "rss_photo_kib": 34406, "rss_live_kib": 49869, "shutter_s": [1.57, 1.58, 1.56],
             "recording_frames": 233, "recording_consecutive": True,
             "preview": {"shown": 260, "offered": 261, "dropped": 0}},
    "flips": {"compiler": "clang", "sources": ["Sources/CImaging/blend.c", "Sources/CImaging/placeholder.c"], "placeholder": {"median": 2.15, "p95": 2.38}, "blend": {"median": 0.71, "p95": 0.78},
              "command": "{ printf … } | gpick session …", "count": 6, "placeholders": 6,
              "timeline_ms": [7.5, 3.0, 23.5, 7.0, 8.0, 0.0], "wall_ms": [9.7, 8.0, 23.9, 9.0, 10.0, 9.5],
              "black_frames": 0, "recording_frames": 263, "recording_seconds": 8.767},
    "terminal": {"command": "tmux new-session … vs …", "preview_runs": [{"wall": 10.0, "cpu": 1.86}, {"wall": 10.0, "cpu": 1.77}],
                 "plain_runs": [{"wall": 10.0, "cpu": 1.55}, {"wall": 10.0, "cpu": 1.42}],
                 "summary": "preview: 201 frames shown of 300 from the camera in 10.0 s (0 dropped while busy)"},
    "library": {
        "tree": {"files": 10500, "photos": 10200, "videos": 200, "live": 200,
                 "traps": {"same_name_decoys": 50, "stripped_motion": 20, "orphan_stills": 10, "orphan_movies": 10}},
        "root": "bench/work/fixtures/tree/library",
        "cold": {"tools": {"gpick": {"times": [0.62, 0.64, 0.60, 0.75, 0.63], "cpu": 0.78, "command": "gpick library scan …"},
                           "exiftool": {"times": [50.06, 50.42], "cpu": 50.13, "command": "exiftool -fast2 -json -r …"}},
                 "steal": {"gpick": 0.0, "exiftool": 0.1}, "first_runs": {"gpick": 0.71, "exiftool": 50.9},
                 "exiftool_fields": {"files": 10500, "size": 10500, "date": 10390, "duration": 300, "content_identifier": 110,
                                     "motion_photo": 120, "mime": 10500},
                 "first_scan": {"event": "finished", "found": 10500, "added": 10500, "unreadable": 0, "live-pairs": 100,
                                "motion-photos": 100},
                 "census": {"pairs": 100, "pairs_found": 100, "wrong_movie": [], "motion_photos": 100, "motion_found": 100,
                            "live": 200, "live_expected": 200, "missing": [], "missing_count": 0, "invented": [],
                            "invented_count": 0, "photos": 10200, "photos_expected": 10200, "videos": 200,
                            "videos_expected": 200, "files_found": 10500, "files_expected": 10500, "unreadable": 0,
                            "scan_pairs": 100, "scan_motion_photos": 100, "ok": True, "kind_live_listed": 200},
                 "list_command": "gpick library list --kind live --json --limit 100000"},
        "rescan": {"tools": {"gpick": {"times": [0.060, 0.062, 0.058, 0.061], "cpu": 0.07, "command": "gpick library scan …"},
                             "find": {"times": [0.034, 0.035, 0.033, 0.036], "cpu": 0.03, "command": "find … -printf …"}},
                   "steal": 0.0, "summary": {"found": 10500, "added": 0, "updated": 0, "removed": 0, "unchanged": 10500,
                                             "moved": 0}},
        "newest": {"rows": 100000, "assets": 98071, "limit": 1000, "open_ms": 4.4, "warmup": 5, "steal": 0.0,
                   "command": "gpick-libbench list INDEX --runs 50 --warmup 5",
                   "newest": {"median": 4.6, "p95": 5.1, "min": 4.2, "max": 5.9, "runs": 50, "bursts": 5, "first_ms": 9.5,
                              "listed": 1000, "newest_first": True},
                   "what-if-rows-only": {"median": 4.27, "p95": 5.1, "min": 4.09, "max": 5.4, "runs": 50, "listed": 1000}},
    },
    "thumbs": {
        "nproc": 2, "photo_bytes": 2_600_000,
        "photos": {"files": 200, "steal": 0.0, "tools": {
            "gpick": {"times": [3.9, 4.0, 4.1], "cpu": 7.9, "maxrss_kib": 75624, "command": "gpick library thumbs …",
                      "outputs": {"count": 200, "max_side": 256, "shapes": ["192x256", "256x192"]}},
            "vips": {"times": [9.8, 9.6, 10.5], "cpu": 10.67, "maxrss_kib": 60000, "command": "vipsthumbnail …",
                     "outputs": {"count": 200, "max_side": 256, "shapes": ["192x256", "256x192"]}},
            "vips_parallel": {"times": [5.16, 5.02, 5.17], "cpu": 9.91, "maxrss_kib": 60000, "command": "xargs … vipsthumbnail …",
                              "outputs": {"count": 200, "max_side": 256, "shapes": ["192x256", "256x192"]}}}},
        "videos": {"files": 50, "steal": 0.0, "tools": {
            "gpick": {"times": [2.81, 2.80, 2.85], "cpu": 5.04, "maxrss_kib": 150000, "command": "gpick library thumbs …",
                      "outputs": {"count": 50, "max_side": 256, "shapes": ["256x144"]}},
            "ffmpegthumbnailer": {"times": [4.92, 4.90, 4.94], "cpu": 9.44, "maxrss_kib": 59000, "command": "xargs -P 2 …",
                                  "outputs": {"count": 50, "max_side": 256, "shapes": ["256x144"]}},
            "ffmpegthumbnailer_serial": {"times": [9.29, 9.29, 9.31], "cpu": 9.33, "maxrss_kib": 59000, "command": "xargs -P 1 …",
                                         "outputs": {"count": 50, "max_side": 256, "shapes": ["256x144"]}}}},
        "single": {"photo": {"steal": 0.0, "tools": {"gpick": {"times": [0.131] * 10, "cpu": 0.13, "command": "gpick thumb …"},
                                                      "vips": {"times": [0.109] * 10, "cpu": 0.11, "command": "vipsthumbnail …"}}},
                   "video": {"steal": 0.0, "tools": {"gpick": {"times": [0.256] * 10, "cpu": 0.3, "command": "gpick thumb …"},
                                                      "ffmpegthumbnailer": {"times": [0.183] * 10, "cpu": 0.2,
                                                                            "command": "ffmpegthumbnailer …"}}}},
    },
    "imagesource": {"photo": "PXL_0000.jpg", "width": 3024, "height": 4032, "runs": 200, "warmup": 20, "photo_bytes": 2621440,
                    "size": {"median_ms": 0.052, "p90_ms": 0.061, "min_ms": 0.047, "max_ms": 0.21},
                    "first_result": {"median_ms": 2.31, "p90_ms": 2.9, "min_ms": 1.95, "max_ms": 4.4},
                    "first_origins": {"exif-thumbnail": 200}, "first_degraded_every_run": True, "steal": 0.0,
                    "command": ".build/release/gpick-imagebench PHOTO --runs 200 --warmup 20"},
}


def results(**changes):
    """A deep copy of RESULTS with `section__key=value` changes (one level of nesting per `__`)."""
    r = copy.deepcopy(RESULTS)
    for path, value in changes.items():
        *keys, last = path.split("__")
        node = r
        for k in keys:
            node = node[k]
        node[last] = value
    return r
