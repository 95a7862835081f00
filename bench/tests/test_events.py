import json
import unittest

import os
import tempfile

from gpickbench import __main__ as cli, events
from gpickbench.measure import BenchError
from gpickbench.scenarios import flips as flip_scenario, terminal


def stream(*objects, noise="http://127.0.0.1:8080/\n"):
    return noise + "".join(json.dumps(o) + "\n" for o in objects)


class ParseTests(unittest.TestCase):
    def test_lines_that_are_not_json_objects_are_skipped(self):
        self.assertEqual(events.parse(stream({"event": "a"}, {"event": "b"})), [{"event": "a"}, {"event": "b"}])

    def test_inspect_without_a_report_is_an_error(self):
        with self.assertRaises(ValueError):
            events.report_of(events.parse(stream({"event": "started"})))


class StampTests(unittest.TestCase):
    def test_a_whole_recording(self):
        got = events.stamp_continuity({"frames": 4, "duration": 0.133, "stamps": ["1:0", "1:1", "1:2", "1:3"]}, 4)
        self.assertTrue(got["ok"])
        self.assertEqual((got["first"], got["last"], got["breaks"], got["missing"]), (0, 3, 0, 0))

    def test_a_dropped_frame_an_unreadable_stamp_and_a_second_source(self):
        got = events.stamp_continuity({"frames": 4, "stamps": ["1:0", "1:2", None, "1:3"]}, 5)
        self.assertFalse(got["ok"])
        self.assertEqual((got["unreadable"], got["missing"], got["first_missing"], got["breaks"]), (1, 2, [1, 4], 3))
        two = events.stamp_continuity({"frames": 2, "stamps": ["1:0", "2:1"]}, 2)
        self.assertFalse(two["ok"])
        self.assertEqual(two["source_ids"], ["1", "2"])

    def test_consecutive_needs_frames(self):
        self.assertFalse(events.consecutive([]))
        self.assertFalse(events.consecutive([3, 4, None]))
        self.assertTrue(events.consecutive([7, 8, 9]))


class SessionTests(unittest.TestCase):
    def snap(self, line, asked, exposed, delivered):
        return [{"event": "command", "text": f"snap s{line}.jpg", "line": line, "t": asked},
                {"event": "capture-exposure-complete", "line": line, "t": exposed},
                {"event": "capture-data-delivered", "line": line, "t": delivered}]

    def test_latency_leaves_out_the_first_snap_and_counts_late_shots(self):
        evs = (self.snap(1, 0.0, 0.5, 0.6)           # started the session: left out
               + self.snap(3, 1.0, 1.001, 1.010)     # 10 ms, encode 9 ms
               + self.snap(5, 2.0, 2.040, 2.050))    # 40 ms before the frame: over 33.3 + 10 ms? no; late below
        got = events.session_snaps(evs)
        self.assertEqual(got["shots"], 2)
        self.assertAlmostEqual(got["latency_max"], 50.0, places=6)
        self.assertAlmostEqual(got["wait_max"], 40.0, places=6)
        self.assertEqual(got["late"], 1)  # 50 ms > 33.3 ms + its 10 ms encode

    def test_no_snap_after_the_first_is_an_error(self):
        with self.assertRaises(ValueError):
            events.session_snaps(self.snap(1, 0.0, 0.1, 0.2))


class LiveTests(unittest.TestCase):
    def test_shutter_to_the_last_file_of_each_photo(self):
        evs = [{"event": "shutter", "line": 2, "t": 2.0},
               {"event": "file-written", "line": 2, "t": 2.1}, {"event": "file-written", "line": 2, "t": 3.5},
               {"event": "file-written", "line": 9, "t": 9.0},  # a snap's file, not a live photo's
               {"event": "shutter", "line": 4, "t": 2.5}]       # never finished
        self.assertEqual(events.live_shutter_seconds(evs), [1.5])

    def test_preview_counts(self):
        got = events.preview_stopped([{"event": "preview-stopped", "frames": 9, "camera-frames": 10, "dropped": 1}])
        self.assertEqual(got, {"shown": 9, "offered": 10, "dropped": 1})
        with self.assertRaises(ValueError):
            events.preview_stopped([])


class FlipTests(unittest.TestCase):
    def test_each_request_pairs_with_the_next_placeholder(self):
        evs = [{"event": "command", "text": "flip", "t": 1.0},
               {"event": "switching", "time": 0.900},
               {"event": "placeholder", "time": 0.9333, "t": 1.010},
               {"event": "command", "text": "flip", "t": 2.0},
               {"event": "switching", "time": 1.950},
               {"event": "placeholder", "time": 1.940, "t": 2.004},   # the slot just before the request
               {"event": "command", "text": "flip", "t": 3.0}]         # no placeholder yet
        got = events.flips(evs)
        self.assertEqual((got["count"], got["placeholders"]), (3, 2))
        self.assertEqual([round(x, 1) for x in got["timeline_ms"]], [33.3, 0.0])
        self.assertEqual([round(x, 1) for x in got["wall_ms"]], [10.0, 4.0])


class OptionTests(unittest.TestCase):
    def test_variants_and_sections(self):
        self.assertEqual(cli.variants("a=1; b=2 c=3"), [["a=1"], ["b=2", "c=3"]])
        self.assertEqual(cli.variants("none"), [])
        self.assertEqual(cli.sections("snap, flips"), ["snap", "flips"])
        with self.assertRaises(Exception):
            cli.sections("snap,nope")

    def test_imaging_timings(self):
        got = flip_scenario.timings("placeholder_1080p_ms median=2.150 p95=2.380\nblend_1080p_ms median=0.7 p95=0.8\n")
        self.assertEqual(got["placeholder_1080p_ms"], {"median": 2.15, "p95": 2.38})
        self.assertEqual(flip_scenario.timings("FAIL: something\n\n"), {})

    def test_time_lines_of_the_terminal_pane(self):
        with tempfile.TemporaryDirectory() as d:
            times, log = os.path.join(d, "t"), os.path.join(d, "log")
            with open(times, "w") as f:
                f.write("10.00 1.50 0.20\n10.10 1.60 0.17\n")
            self.assertEqual(terminal.last_run(times, log), {"wall": 10.1, "cpu": 1.6 + 0.17})
            with open(times, "a") as f:
                f.write("Command exited with non-zero status 69\n0.05 0.02 0.01\n")
            with self.assertRaises(BenchError):
                terminal.last_run(times, log)


if __name__ == "__main__":
    unittest.main()
