import unittest

from gpickbench import report, targets
from gpickbench.scenarios import watchclips


def results(slope=0.4, breaks=0, before=3.5, clips=20):
    clip = lambda i: {"file": f"motion-{i}.mp4", "frames": 400, "unreadable": 0, "breaks": breaks if i == 0 else 0,  # noqa: E731
                      "before": before, "after": 5.1}
    return {"seconds": 600, "motions": 20, "pre": 3, "post": 5, "command": "gpick watch --record …",
            "samples": [], "clips": [clip(i) for i in range(clips)],
            "rss_mib_per_hour": slope, "rss_first_mib": 80.0, "rss_last_mib": 80.1, "rss_peak_mib": 82.0}


class WatchClipsChecksTests(unittest.TestCase):
    def checks(self, r):
        return [c for c in targets.checks({"watchclips": r}) if c.ref == "M3"]

    def test_flat_memory_and_whole_clips_pass(self):
        rss, frames = self.checks(results())
        self.assertTrue(rss.ok and frames.ok, (rss, frames))
        self.assertEqual(frames.result, "20 clips of 20 motions, 20 with no frame missing, 20 covering --pre 3 s and --post 5 s")

    def test_growth_a_missing_frame_a_short_start_or_a_missing_clip_fails(self):
        self.assertFalse(self.checks(results(slope=2.5))[0].ok)
        self.assertFalse(self.checks(results(breaks=1))[1].ok)
        self.assertFalse(self.checks(results(before=2.9))[1].ok)
        self.assertFalse(self.checks(results(clips=19))[1].ok)

    def test_twenty_motions_in_ten_minutes(self):
        truth = watchclips.motions()
        self.assertEqual(len(truth), 20)
        self.assertEqual(truth[0], (300, 389))
        self.assertTrue(all(b[0] - a[1] > (watchclips.POST + 1) * 30 for a, b in zip(truth, truth[1:])))

    def test_the_section_says_each_target(self):
        r = results()
        text = "\n".join(report.watchclips(r, report.by_name(targets.checks({"watchclips": r}))))
        self.assertIn("## 15b. Motion clips (M3)", text)
        self.assertIn("3.50–3.50 s before", text)


if __name__ == "__main__":
    unittest.main()
