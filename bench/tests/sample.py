"""A complete results document as a run writes it (figures from the 2026-11-22 run), for the
report's tests to vary one measurement at a time."""
import copy

RESULTS = {
    "meta": {"date": "2026-11-22 18:20:22 UTC", "seconds": 378.0, "nproc": 2, "cpu": "Intel(R) Xeon(R) Processor",
             "load_start": "0.31 1.24 1.72", "load_end": "0.94 1.48 1.72", "steal_start": 0.0,
             "gstreamer": "1.22.0", "ffmpeg": "5.1.9-0+deb12u1", "x264": "libx264-164 2:0.164.3095+gitbaee400-3",
             "gpick": "0.1.0", "gpick_path": ".build/release/gpick", "gpick_built": "2026-11-22 17:52:20 UTC",
             "stale_sources": 0, "git": "48ca9f7", "sections": "snap, record, memory, session, live, flips, terminal"},
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
