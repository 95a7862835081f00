import unittest

from gpickbench import report, targets


def results(choice_ms=0.08, modes=296, gpick_cpu=1.2, ffmpeg_cpu=1.5, frames=300, dropped=0):
    summary = {"median_ms": choice_ms, "p90_ms": choice_ms, "min_ms": choice_ms, "max_ms": choice_ms}
    return {"choice": {"listing": "/s/cameras/formats/logitech-c525.txt", "formats": 50, "modes": modes, "requests": 6,
                       "runs": 500, "choice": summary, "parse": summary, "chosen": ["default: MJPG 1920x1080 @ 30 fps"],
                       "command": "gpick-camerabench choice"},
            "decode": {"frames": 300, "frame": "f.jpeg", "frame_bytes": 316571, "runs": 1, "steal": 0.0,
                       "gpick": [{"cpu_seconds": gpick_cpu, "wall_seconds": 1.0, "frames": frames, "dropped": dropped}],
                       "ffmpeg": [{"cpu_seconds": ffmpeg_cpu, "wall_seconds": 1.0}],
                       "gpick_command": "g", "ffmpeg_command": "f"},
            "session": session()}


def session(seconds=2, lose=None, slot=None, dropped=None):
    """Two runs of `seconds`: raw frames 10.., and MJPEG with 15, 25, ... damaged (their slots
    holding the next frame, as the rate adapter fills them)."""
    n = seconds * 30
    damaged = [i for i in range(15, n + 40) if i % 10 == 5]
    raw = list(range(10, 10 + n))
    mj = [r + 1 if r in damaged else r for r in raw]
    if lose is not None:
        mj = [m if m != lose else lose - 1 for m in mj]
    if slot is not None:
        mj[slot] = mj[slot] + 3
    sent = n + 12
    bad = sum(1 for d in damaged if d < sent)
    return {"seconds": seconds, "damaged": damaged, "command": "gpick-camerabench session 2",
            "raw": {"mode": "NV12 1920x1080 @ 30 fps", "stamps": raw, "sent": sent, "dropped": 0, "cpu_seconds": 1, "failure": None},
            "mjpeg": {"mode": "MJPG 1920x1080 @ 30 fps", "stamps": mj, "sent": sent, "dropped": bad if dropped is None else dropped,
                      "cpu_seconds": 1, "failure": None}}


class CameraChecksTests(unittest.TestCase):
    def verdicts(self, r):
        return [c.ok for c in targets.camera_checks(r)]

    def test_met_missed_and_not_run(self):
        self.assertEqual(self.verdicts(results()), [True, True, True])
        self.assertEqual(self.verdicts(results(choice_ms=1.5, gpick_cpu=1.6)), [False, False, True])
        # A table under 200 modes proves nothing of C1; a frame lost or dropped fails C2 whatever its CPU.
        self.assertEqual(self.verdicts(results(modes=120)), [False, True, True])
        self.assertEqual(self.verdicts(results(frames=299)), [True, False, True])
        self.assertEqual(self.verdicts(results(dropped=1)), [True, False, True])
        self.assertEqual(self.verdicts({"absent": ["../shared/cameras"]}), [None, None, None])

    def test_a_session_from_mjpeg_must_deliver_every_good_frame_of_the_raw_run(self):
        def c3(**kw):
            r = results()
            r["session"] = session(**kw)
            return targets.camera_checks(r)[2]
        self.assertEqual(c3().result, "54 of 54 good frames, 6 of 6 damaged dropped")
        lost = c3(lose=40)  # good frame 40 shown as 39 in its slot: lost
        self.assertFalse(lost.ok)
        self.assertIn("53 of 54 good frames", lost.result)
        self.assertFalse(c3(slot=3).ok)  # a slot unlike the raw run's
        self.assertFalse(c3(dropped=4).ok)  # damaged frames passed to the decoder
        r = results()
        del r["session"]
        self.assertIsNone(targets.camera_checks(r)[2].ok)

    def test_the_section_reads_its_ratio(self):
        r = results()
        text = "\n".join(report.camera(r, report.by_name(targets.camera_checks(r))))
        self.assertIn("## 13. Cameras", text)
        self.assertIn("**0.80x (0.120 / 0.150 s)** — target <= 1x: **PASS**", text)
        self.assertIn("formats/logitech-c525.txt (50 sizes and formats, 296 modes)", text)
        self.assertIn("| MJPG 1920x1080 @ 30 fps | 72 | 6 | 6 | 60 | 54 of 54 good frames; 0 slots unlike the raw run |", text)
        self.assertIn("- C3: **54 of 54 good frames, 6 of 6 damaged dropped**", text)


if __name__ == "__main__":
    unittest.main()
