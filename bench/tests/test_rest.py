import copy
import unittest

from gpickbench import report, targets
from sample import RESULTS


def one(live, resting, shown, first, states=None):
    r = {"live_cpu_percent": live, "rest_cpu_percent": resting, "rested_ms": 70.0, "live_state_ms": first - 20,
         "first_frame_ms": first, "blurred_shown_frames": shown}
    return r | ({"node_states": states} if states is not None else {})


def rest_run(test=None, pw=None):
    from gpickbench.scenarios.rest import summary
    test = test or [one(14.0, 1.0, 1, 60), one(14.2, 0.8, 1, 64), one(13.9, 1.2, 1, 58)]
    pw = pw or [one(21.0, 0.6, 1, 340, ["running", "idle", "running"])] * 3
    r = copy.deepcopy(RESULTS)
    r["rest"] = {"runs": 3, "seconds": 8, "test": test, "pipewire": pw,
                 "median": {"test": summary(test), "pipewire": summary(pw)},
                 "command": "gpick pick --ui web --no-open --library bench/work/rest-library --source test"}
    return r


def rows(r):
    return [c for c in targets.checks(r) if c.ref in ("K6", "K7", "K8")]


class RestChecksTests(unittest.TestCase):
    def test_a_good_run_meets_every_row_after_the_picker(self):
        checks = targets.checks(rest_run())
        refs = [c.ref for c in checks if c.ref]
        self.assertEqual(refs[refs.index("K5") + 1:refs.index("A1")], ["K6", "K6", "K7", "K8"])
        self.assertTrue(all(c.ok for c in checks), [c for c in checks if not c.ok])
        k6, k6pw, k7, k8 = rows(rest_run())
        self.assertEqual((k6.result, k6.target), ("1.0 % of a core (live: 14.0 %)", "<= 2 %"))
        self.assertEqual((k7.result, k7.target), ("60 ms (blurred frame within 1 frame)", "<= 300 ms, blurred frame within 1"))
        self.assertEqual(k8.target, "<= 600 ms, blurred frame within 1")

    def test_each_bound_is_held(self):
        self.assertFalse(rows(rest_run(test=[one(14.0, 2.1, 1, 60)] * 3))[0].ok)
        self.assertFalse(rows(rest_run(test=[one(14.0, 1.0, 1, 301)] * 3))[2].ok)
        self.assertFalse(rows(rest_run(test=[one(14.0, 1.0, 2, 60)] * 3))[2].ok)
        self.assertFalse(rows(rest_run(pw=[one(21.0, 0.6, 1, 601, ["running", "idle"])] * 3))[3].ok)

    def test_a_pipewire_node_that_never_left_running_fails_k6(self):
        k6pw = rows(rest_run(pw=[one(21.0, 0.6, 1, 340, ["running"])] * 3))[1]
        self.assertFalse(k6pw.ok)
        self.assertIn("(the node never left running)", k6pw.result)

    def test_the_report_lists_every_page_load(self):
        text = report.render(rest_run())
        self.assertIn("## 10b. The resting camera cell (K6–K8)", text)
        self.assertIn("| PipeWire | 21.0 % | 0.6 % | 70 ms | 320 ms | 340 ms | running → idle → running |", text)
        self.assertLess(text.index("## 10. The picker"), text.index("## 10b."))
        self.assertLess(text.index("## 10b."), text.index("## 11. Avatars"))


if __name__ == "__main__":
    unittest.main()
