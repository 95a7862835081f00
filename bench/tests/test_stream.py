import copy
import unittest

from gpickbench import report, targets
from sample import results

STREAM = {
    "width": 1280, "height": 720, "fps": 30, "window": 15, "x264": "-preset veryfast",
    "one": {"viewers": 1, "playing": 1, "cpu_percent": 40.0, "command": "gpick serve"},
    "ten": {"viewers": 10, "playing": 10, "cpu_percent": 44.0, "command": "gpick serve"},
    "from_file": {"viewers": 1, "playing": 1, "cpu_percent": 40.0, "command": "gpick serve"},
    "ffmpeg": {"run": {"wall": 3, "user": 9, "sys": 0, "maxrss_kib": 1}, "cpu_per_video_second": 0.6, "command": "ffmpeg"},
    "long": {"command": "gpick script", "script": ["serve start", "record 60s served.mp4", "serve stop"],
             "run": {"wall": 61, "user": 60, "sys": 5, "maxrss_kib": 150 * 1024}, "expected_frames": 1800,
             "stamps": {"frames": 1800, "stamps": 1800, "first": 2, "last": 1801, "breaks": 0, "missing": 2, "ok": False,
                        "unreadable": 0, "source_ids": ["1"]}},
    "x264enc": {"run": {"wall": 3, "user": 9, "sys": 0, "maxrss_kib": 1}, "cpu_per_video_second": 0.63, "command": "gst-launch-1.0"},
    "own_cost": {
        job: {"gpick": {"runs": [0.20, 0.21, 0.22], "cpu_per_video_second": 0.21, "command": f"gpick {job}"},
              "gst-launch": {"runs": [0.19, 0.20, 0.21], "cpu_per_video_second": 0.20, "command": "gst-launch-1.0"},
              "ffmpeg": {"runs": [0.18, 0.19, 0.20], "cpu_per_video_second": 0.19, "command": "ffmpeg"}}
        for job in ("serve", "record", "publish")
    },
    "glass": {
        "rtsp": {"command": "gpick serve", "viewer": "glass.py", "seconds": 60, "frames": 1790, "unreadable": 0, "matched": 1790,
                 "first": 40, "last": 1829, "breaks": 0, "median_ms": 21.0, "p95_ms": 30.0, "max_ms": 60.0, "min_ms": 18.0},
        "srt": {"command": "gpick publish", "viewer": "glass.py", "seconds": 20, "latency_ms": 200, "frames": 590, "unreadable": 0,
                "matched": 590, "first": 1, "last": 590, "breaks": 0, "median_ms": 281.0, "p95_ms": 290.0, "max_ms": 300.0,
                "min_ms": 250.0},
    },
}


def with_stream(**changes):
    r = results()
    r["stream"] = copy.deepcopy(STREAM)
    for path, value in changes.items():
        part, key = path.split("__")
        r["stream"][part][key] = value
    return r


def by_ref(r):
    return {c.ref: c for c in targets.checks(r) if c.ref.startswith("N")}


class StreamChecksTests(unittest.TestCase):
    def test_a_good_run_passes(self):
        c = by_ref(with_stream())
        self.assertEqual(list(c), ["N1", "N1b", "N2", "N3", "N3b", "N4"])
        self.assertTrue(all(x.ok for x in c.values()), c)
        self.assertEqual(c["N1"].result, "21.0 ms (p95 30.0, max 60.0); 1790 frames in order")
        self.assertEqual(c["N2"].result, "1.10x")
        self.assertEqual(c["N3"].result, "serve 1.05x, record 1.05x, publish 1.05x")  # 0.21 / 0.20
        self.assertEqual(c["N3b"].result, "serve 1.11x, record 1.11x, publish 1.11x")  # 0.21 / 0.19

    def test_glass_to_glass_is_held_at_its_bounds(self):
        self.assertFalse(by_ref(with_stream(glass__rtsp=dict(STREAM["glass"]["rtsp"], median_ms=150.1)))["N1"].ok)
        self.assertFalse(by_ref(with_stream(glass__rtsp=dict(STREAM["glass"]["rtsp"], breaks=1)))["N1"].ok)
        self.assertTrue(by_ref(with_stream(glass__srt=dict(STREAM["glass"]["srt"], median_ms=300.0)))["N1b"].ok)
        self.assertFalse(by_ref(with_stream(glass__srt=dict(STREAM["glass"]["srt"], median_ms=300.1)))["N1b"].ok)
        old = with_stream()
        del old["stream"]["glass"]
        c = by_ref(old)
        self.assertIsNone(c["N1"].ok)
        self.assertIsNone(c["N1b"].ok)

    def test_ten_viewers_are_held_at_their_bound_and_must_all_play(self):
        self.assertTrue(by_ref(with_stream(ten__cpu_percent=40.0 * 1.15))["N2"].ok)
        self.assertFalse(by_ref(with_stream(ten__cpu_percent=40.0 * 1.16))["N2"].ok)
        self.assertFalse(by_ref(with_stream(ten__playing=9))["N2"].ok)

    def test_cpu_against_ffmpeg_and_the_long_run(self):
        slow = with_stream()
        slow["stream"]["own_cost"]["record"]["gpick"]["cpu_per_video_second"] = 0.221  # 1.105x the gst line, 1.16x ffmpeg
        c = by_ref(slow)
        self.assertFalse(c["N3"].ok)
        self.assertFalse(c["N3b"].ok)
        self.assertIn("record 1.10x", c["N3"].result)
        edge = with_stream()
        edge["stream"]["own_cost"]["serve"]["gpick"]["cpu_per_video_second"] = 0.2185  # 1.0925x, 1.15x
        self.assertTrue(by_ref(edge)["N3"].ok and by_ref(edge)["N3b"].ok)
        old = with_stream()
        del old["stream"]["own_cost"]
        self.assertIsNone(by_ref(old)["N3"].ok)
        self.assertFalse(by_ref(with_stream(long__run={"wall": 61, "user": 60, "sys": 5, "maxrss_kib": 201 * 1024}))["N4"].ok)
        broken = with_stream()
        broken["stream"]["long"]["stamps"] = dict(STREAM["long"]["stamps"], breaks=1)
        n4 = by_ref(broken)["N4"]
        self.assertFalse(n4.ok)
        self.assertIn("1 breaks", n4.result)
        two = with_stream()
        two["stream"]["long"]["stamps"] = dict(STREAM["long"]["stamps"], source_ids=["1", "2"])
        self.assertFalse(by_ref(two)["N4"].ok)

    def test_the_report_has_the_section(self):
        text = report.render(with_stream())
        self.assertIn("## 13. Network streams: `gpick serve` 1280x720@30 (N1–N4)", text)
        self.assertIn("| test | 10 | 10 | 44.0 |", text)
        self.assertIn("0.630 CPU s per video s, **1.05x** ffmpeg's", text)
        self.assertIn("| record | gst-launch | 0.200 | 0.190 / 0.200 / 0.210 | 1.05x |", text)
        self.assertIn("- N3b, gpick / ffmpeg: **serve 1.11x, record 1.11x, publish 1.11x** (target <= 1.15x): **PASS**", text)
        self.assertIn("| RTSP, 60 s | 1790 | 40..1829, breaks 0, unreadable 0 | 21.0 | 30.0 | 18.0 | 60.0 |", text)
        self.assertIn("- N1b, SRT: **281.0 ms (p95 290.0) at latency 200 ms** (target <= 300 ms (median)): **PASS**", text)


class GlassLatencyTests(unittest.TestCase):
    """N1's reading of gpick's log (when each stamp was drawn) against the viewer's lines."""

    def measure(self, log, seen):
        import tempfile
        from gpickbench.context import Bench
        from gpickbench.scenarios import stream
        with tempfile.TemporaryDirectory() as work:
            b = Bench(root=work, work=work, gpick="gpick", gpick_shown="gpick", options=None)
            with open(b.path("serve.log"), "w") as f:
                f.write(log)
            with open(b.path("seen.out"), "w") as f:
                f.write(seen)
            return stream.latencies(b, "serve.log", "seen.out")

    LOG = "".join(f"0:00:0{i}.0 1 0x1 LOG gpick gpick:0::<src> stamp 1:{i} drawn at monotonic {1_000_000_000 + i * 33_000_000}\n"
                  for i in range(6))

    def test_each_decoded_stamp_is_timed_from_its_drawing(self):
        seen = "".join(f"1:{i} {1_000_000_000 + i * 33_000_000 + (20 + i) * 1_000_000}\n" for i in range(1, 6))
        r = self.measure(self.LOG, seen)
        self.assertEqual((r["frames"], r["matched"], r["first"], r["last"], r["breaks"], r["unreadable"]), (5, 5, 1, 5, 0, 0))
        self.assertEqual((r["min_ms"], r["median_ms"], r["max_ms"]), (21.0, 23.0, 25.0))

    def test_gaps_and_unreadable_frames_are_counted(self):
        seen = "1:1 1054000000\n- 1090000000\n1:3 1120000000\n1:4 1150000000\n"
        r = self.measure(self.LOG, seen)
        self.assertEqual((r["frames"], r["unreadable"], r["breaks"], r["matched"]), (4, 1, 1, 3))

    def test_a_viewer_without_stamps_is_an_error(self):
        from gpickbench.measure import BenchError
        with self.assertRaises(BenchError):
            self.measure(self.LOG, "- 1\n- 2\n")
