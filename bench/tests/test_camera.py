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
                       "gpick_command": "g", "ffmpeg_command": "f"}}


class CameraChecksTests(unittest.TestCase):
    def verdicts(self, r):
        return [c.ok for c in targets.camera_checks(r)]

    def test_met_missed_and_not_run(self):
        self.assertEqual(self.verdicts(results()), [True, True])
        self.assertEqual(self.verdicts(results(choice_ms=1.5, gpick_cpu=1.6)), [False, False])
        # A table under 200 modes proves nothing of C1; a frame lost or dropped fails C2 whatever its CPU.
        self.assertEqual(self.verdicts(results(modes=120)), [False, True])
        self.assertEqual(self.verdicts(results(frames=299)), [True, False])
        self.assertEqual(self.verdicts(results(dropped=1)), [True, False])
        self.assertEqual(self.verdicts({"absent": ["../shared/cameras"]}), [None, None])

    def test_the_section_reads_its_ratio(self):
        r = results()
        text = "\n".join(report.camera(r, report.by_name(targets.camera_checks(r))))
        self.assertIn("## 13. Cameras", text)
        self.assertIn("**0.80x (0.120 / 0.150 s)** — target <= 1x: **PASS**", text)
        self.assertIn("formats/logitech-c525.txt (50 sizes and formats, 296 modes)", text)


if __name__ == "__main__":
    unittest.main()
