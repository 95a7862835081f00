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
    def test_a_good_run_passes_and_latency_is_said_not_measured(self):
        c = by_ref(with_stream())
        self.assertEqual(list(c), ["N1", "N2", "N3", "N4"])
        self.assertIsNone(c["N1"].ok)
        self.assertTrue(c["N2"].ok and c["N3"].ok and c["N4"].ok, c)
        self.assertEqual(c["N2"].result, "1.10x")
        self.assertEqual(c["N3"].result, "0.67x")  # 0.40 CPU s per video s / 0.6

    def test_ten_viewers_are_held_at_their_bound_and_must_all_play(self):
        self.assertTrue(by_ref(with_stream(ten__cpu_percent=40.0 * 1.15))["N2"].ok)
        self.assertFalse(by_ref(with_stream(ten__cpu_percent=40.0 * 1.16))["N2"].ok)
        self.assertFalse(by_ref(with_stream(ten__playing=9))["N2"].ok)

    def test_cpu_against_ffmpeg_and_the_long_run(self):
        self.assertFalse(by_ref(with_stream(from_file__cpu_percent=49.0))["N3"].ok)  # 0.49 / 0.6 > 0.8
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
        self.assertIn("not measured", text)
