import unittest

from gpickbench import report, targets


def results(watch_cpu=(3.1, 3.0, 3.2), plain_cpu=(2.95, 2.9, 3.0), latencies=(45.0, 52.5, 40.2)):
    run = lambda cpu: {"wall": 10.2, "user": cpu * 0.8, "sys": cpu * 0.2, "maxrss_kib": 90000}  # noqa: E731
    return {"command": "gpick watch … vs gpick session …", "seconds": 10,
            "watch_runs": [run(c) for c in watch_cpu], "plain_runs": [run(c) for c in plain_cpu],
            "latency_ms": list(latencies)}


class MotionChecksTests(unittest.TestCase):
    def checks(self, r):
        return {c.ref: c for c in targets.checks({"motion": r})}

    def test_the_lowest_runs_are_compared(self):
        c = self.checks(results())
        # (3.0 − 2.9) CPU s over 10.2 s: 0.98 % of a core.
        self.assertTrue(c["M1"].ok)
        self.assertEqual(c["M1"].result, "0.98 % of a core")
        self.assertTrue(c["M2"].ok)
        self.assertEqual(c["M2"].result, "52.5 ms over 3 starts")

    def test_costly_or_late_detection_fails(self):
        self.assertFalse(self.checks(results(watch_cpu=(3.5, 3.4, 3.6)))["M1"].ok)
        self.assertFalse(self.checks(results(latencies=(40.0, 130.0)))["M2"].ok)
        self.assertFalse(self.checks(results(latencies=()))["M2"].ok)

    def test_the_section_says_each_target(self):
        r = results()
        text = "\n".join(report.motion(r, report.by_name(targets.checks({"motion": r}))))
        self.assertIn("## 15. Motion detection (M1, M2)", text)
        self.assertIn("45.0, 52.5, 40.2 ms", text)
        self.assertIn("**0.98 % of a core**", text)


if __name__ == "__main__":
    unittest.main()
