import unittest

from gpickbench.scenarios.soak import cycle_means, slope, slope_error
from gpickbench.targets_soak import soak_checks
from gpickbench.report_soak import soak


def samples(rss_at, seconds=1200, every=1):
    return [{"t": float(t), "rss_kib": rss_at(t), "fds": 32, "cpu_s": t * 0.5} for t in range(0, seconds + 1, every)]


def periodic(t, base=115 * 1024, growth_kib_per_hour=0.0):
    """A flat session whose part boundaries (every 60 s) lift RSS by 4 MiB for 5 s."""
    return base + growth_kib_per_hour * t / 3600 + (4096 if t % 60 < 5 else 0)


def run(rss_at, seconds=1200):
    s = samples(rss_at, seconds)
    means = [(t / 3600, kib / 1024) for t, kib in cycle_means(s, 420, 120)]
    return {"seconds": seconds, "steady_from": 420, "cycle": 120, "sample_every": 1, "samples": s,
            "cycles": [{"t": t * 3600, "rss_mib": m} for t, m in means],
            "rss_mib_per_hour": slope(means) if len(means) >= 2 else None, "rss_mib_per_hour_error": slope_error(means),
            "rss_mib_per_hour_samples": 0.0, "rss_mib_per_hour_from_warmup": 0.0, "viewers_alive": [True] * 3, "viewer_lost_at": None,
            "fds_per_hour": 0.0, "fds_first": 32, "fds_last": 32, "restart_every": 120, "part": 60, "keep": "5m",
            "script": ["wait 1200s"], "command": "gpick script soak.gpick", "restarts": [120.0], "reconnects": [0.5],
            "lost": 1, "written": 20, "deleted": 14,
            "parts": [{"file": "soak-001.mp4", "first": 0, "last": 1799, "frames": 1800, "breaks": 0, "unreadable": 0, "joins": True}],
            "index_matches": True}


class CycleMeans(unittest.TestCase):
    def test_whole_cycles_only_each_its_mean(self):
        s = samples(lambda t: 1000 + t)
        means = cycle_means(s, 420, 120)
        # 420..1140 in six whole cycles; 1140..1200 is not whole.
        self.assertEqual([t for t, _ in means], [480, 600, 720, 840, 960, 1080])
        self.assertAlmostEqual(means[0][1], 1000 + (420 + 539) / 2)

    def test_transients_do_not_move_the_line_and_growth_does(self):
        flat = run(periodic)
        self.assertAlmostEqual(flat["rss_mib_per_hour"], 0.0, places=6)
        grown = run(lambda t: periodic(t, growth_kib_per_hour=3 * 1024))
        self.assertAlmostEqual(grown["rss_mib_per_hour"], 3.0, places=3)
        rss = soak_checks(flat)[0]
        self.assertTrue(rss.ok)
        self.assertIn("through 6 cycles' means", rss.result)
        self.assertFalse(soak_checks(grown)[0].ok)

    def test_a_step_that_stays_is_growth(self):
        # 1 MiB more from minute 18 on: the allocator's high-water mark rising for good.
        stepped = run(lambda t: periodic(t) + (1024 if t >= 1080 else 0))
        self.assertGreater(stepped["rss_mib_per_hour"], 1.0)
        self.assertFalse(soak_checks(stepped)[0].ok)

    def test_too_short_for_two_cycles_fails(self):
        short = run(periodic, seconds=600)
        self.assertIsNone(short["rss_mib_per_hour"])
        check = soak_checks(short)[0]
        self.assertFalse(check.ok)
        self.assertIn("too short", check.result)

    def test_a_viewer_that_stopped_while_served_fails_it(self):
        r = run(periodic)
        r["viewer_lost_at"] = 640.0
        r["viewers_alive"] = [True, False, True]
        check = soak_checks(r)[0]
        self.assertFalse(check.ok)
        self.assertIn("a viewer stopped at 640 s", check.result)
        r["viewer_lost_at"], r["viewers_alive"] = None, []
        self.assertFalse(soak_checks(r)[0].ok)

    def test_the_report_gives_the_means(self):
        r = run(periodic)
        text = "\n".join(soak(r, {c.name: c for c in soak_checks(r)}))
        self.assertIn("through the mean of each 120 s", text)
        self.assertIn("every 1 s", text)


if __name__ == "__main__":
    unittest.main()
