import copy
import json
import unittest

from gpickbench import report, targets
from sample import RESULTS

NAMES = ["canon-eos7d-photo.webp", "oneplus6-adobe-converted.dng", "samsung-s24ultra-200mp.heic"]
EXIF = {"exif_bytes": 444, "exif_placed": True, "jpeg_bytes": 165179, "runs": 30, "warmup": 5, "steal": 0.0,
        "insert": {"median_ms": 0.015, "p90_ms": 0.017, "min_ms": 0.014, "max_ms": 0.021},
        "jpeg_command": "gst-launch-1.0 -q videotestsrc num-buffers=1 ! … ! jpegenc ! filesink location=bench/work/exif-1080p.jpg",
        "command": ".build/release/gpick-imagebench exif JPEG --runs 30 --warmup 5"}


def scanned(kind, w, h, subtypes=()):
    return {"gpick": {"kind": kind, "width": w, "height": h, "subtypes": list(subtypes), "listed": True},
            "exiftool": {"mime": "image/x", "width": w, "height": h, "motion_photo": None, "printed": True}}


# A run on the corpus (three of its files, for brevity), in the shape realfiles.run returns it.
REALFILES = {
    "nproc": 2, "looked_in": ["/work/real-files"], "manifest": sorted(NAMES), "ran": True,
    "corpus": {"folder": "/work/real-files", "missing": [],
               "files": {"canon-eos7d-photo.webp": 125476, "oneplus6-adobe-converted.dng": 286678,
                         "samsung-s24ultra-200mp.heic": 2407522}},
    "index": {"tools": {"gpick": {"times": [0.030, 0.031, 0.029], "cpu": 0.025, "exit_codes": [0],
                                  "command": "gpick library scan --library bench/work/corpus"},
                        "exiftool": {"times": [0.40, 0.41, 0.39], "cpu": 0.38, "exit_codes": [0],
                                     "command": "exiftool -config … -fast2 -json -r … bench/work/corpus"}},
              "steal": {"gpick": 0.0, "exiftool": 0.2}, "first_runs": {"gpick": 0.05, "exiftool": 0.45},
              "exit": {"gpick": 0, "exiftool": 0}, "stderr": {"gpick": "", "exiftool": ""},
              "first_scan": {"found": 3, "added": 3, "unreadable": 0, "motion-photos": 0},
              "exiftool_fields": {"files": 3, "size": 3, "date": 3, "duration": 0, "content_identifier": 0, "motion_photo": 0,
                                  "mime": 3},
              "files": {"canon-eos7d-photo.webp": scanned("photo", 5184, 3456),
                        "oneplus6-adobe-converted.dng": scanned("photo", 866, 1154),
                        "samsung-s24ultra-200mp.heic": scanned("photo", 12240, 16320)}},
    "thumbs": {"nproc": 2, "steal": 0.0, "tools": {
        "gpick": {"times": [0.50, 0.52, 0.55], "cpu": 0.50, "exit_codes": [0], "command": "gpick library thumbs …", "exit": 0,
                  "stderr": "", "maxrss_kib": 60 * 1024,
                  "outputs": {"canon-eos7d-photo.webp": "256x171", "oneplus6-adobe-converted.dng": "192x256",
                              "samsung-s24ultra-200mp.heic": "192x256"}},
        "vips_parallel": {"times": [0.60, 0.62, 0.61], "cpu": 0.70, "exit_codes": [0], "command": "xargs … vipsthumbnail …",
                          "exit": 0, "stderr": "", "maxrss_kib": 40 * 1024,
                          "outputs": {"canon-eos7d-photo.webp": "256x171", "oneplus6-adobe-converted.dng": "192x256",
                                      "samsung-s24ultra-200mp.heic": "192x256"}}},
        "vips_single": {"wall": 0.54, "user": 0.38, "sys": 0.08, "maxrss_kib": 64 * 1024, "code": 0, "exit": 0, "stderr": "",
                        "command": "vipsthumbnail -s 256 …",
                        "outputs": {"canon-eos7d-photo.webp": "256x171", "oneplus6-adobe-converted.dng": "192x256",
                                    "samsung-s24ultra-200mp.heic": "192x256"}}},
    "exif": EXIF,
}
ABSENT = {"nproc": 2, "looked_in": ["/nowhere/real-files", "/work/shared/real-files"], "manifest": sorted(NAMES), "ran": False,
          "exif": EXIF}


def run_with(realfiles):
    r = copy.deepcopy(RESULTS)
    r["realfiles"] = copy.deepcopy(realfiles)
    return r


def rows(r):
    return [c for c in targets.checks(r) if c.ref in ("R1", "R2", "R3", "E1")]


class RealFilesChecksTests(unittest.TestCase):
    def test_a_good_run_meets_every_row_after_the_thumbnails(self):
        checks = targets.checks(run_with(REALFILES))
        refs = [c.ref for c in checks if c.ref]
        self.assertEqual(refs[refs.index("L5") + 1:refs.index("L6")], ["R1", "R2", "R2", "R3", "E1"])
        self.assertTrue(all(c.ok for c in checks), [c for c in checks if not c.ok])
        r1, wall, cpu, r3, e1 = rows(run_with(REALFILES))
        self.assertEqual(r1.result, f"{0.030 / 0.40:.2f}x")
        self.assertEqual(r1.target, "at most 0.1x `exiftool -fast2 -r` on the same files")
        self.assertEqual(wall.result, f"{0.52 / 0.61:.2f}x (thumbnails: gpick 3, vipsthumbnail 3 of 3)")
        self.assertEqual(wall.target, "at most 0.9x the wall time of `vipsthumbnail -s 256` run one process per core (`xargs -P 2`)")
        self.assertEqual((cpu.result, cpu.target), (f"{0.50 / 0.70:.2f}x", "and at most 0.8x its CPU time"))
        self.assertEqual((r3.result, r3.target), ("60 MiB (one vipsthumbnail: 64 MiB)",
                                                  "no higher than a single vipsthumbnail's on the same files"))
        self.assertEqual((e1.result, e1.target), ("0.015 ms (max 0.021)", "at most 1 ms (median over 30)"))

    def test_each_bound_is_held(self):
        r = run_with(REALFILES)
        r["realfiles"]["index"]["tools"]["gpick"]["times"] = [0.041] * 3  # 0.1025x
        self.assertFalse(rows(r)[0].ok)
        r = run_with(REALFILES)
        r["realfiles"]["thumbs"]["tools"]["gpick"]["times"] = [0.56] * 3  # 0.92x wall
        self.assertEqual([c.ok for c in rows(r)], [True, False, True, True, True])
        r = run_with(REALFILES)
        r["realfiles"]["thumbs"]["tools"]["gpick"]["cpu"] = 0.57  # 0.81x CPU
        self.assertEqual([c.ok for c in rows(r)], [True, True, False, True, True])
        r = run_with(REALFILES)
        r["realfiles"]["thumbs"]["tools"]["gpick"]["maxrss_kib"] = 64 * 1024 + 1
        self.assertFalse(rows(r)[3].ok)
        r = run_with(REALFILES)
        r["realfiles"]["exif"]["insert"]["median_ms"] = 1.01
        self.assertFalse(rows(r)[4].ok)

    def test_fewer_thumbnails_than_vipsthumbnail_fails_r2(self):
        r = run_with(REALFILES)
        r["realfiles"]["thumbs"]["tools"]["gpick"]["outputs"]["oneplus6-adobe-converted.dng"] = None
        wall, cpu = rows(r)[1:3]
        self.assertEqual((wall.ok, cpu.ok), (False, False))
        self.assertIn("(thumbnails: gpick 2, vipsthumbnail 3 of 3)", wall.result)

    def test_an_exif_block_in_the_wrong_place_fails_e1(self):
        r = run_with(REALFILES)
        r["realfiles"]["exif"]["exif_placed"] = False
        self.assertFalse(rows(r)[4].ok)
        self.assertIn("(no EXIF APP1 after SOI)", rows(r)[4].result)

    def test_without_the_corpus_the_rows_are_not_run_and_e1_still_counts(self):
        r1, wall, cpu, r3, e1 = rows(run_with(ABSENT))
        for c in (r1, wall, cpu, r3):
            self.assertIsNone(c.ok)
            self.assertEqual(c.result, "not run: corpus absent")
        self.assertEqual(r1.target, "at most 0.1x `exiftool -fast2 -r` on the same files")
        self.assertTrue(e1.ok)


class RealFilesReportTests(unittest.TestCase):
    def test_the_rows_and_the_section_are_written(self):
        text = report.render(run_with(REALFILES))
        self.assertIn("## 8b. Real files from phones and cameras (R1–R3), and writing EXIF (E1)", text)
        self.assertLess(text.index("## 8. Thumbnails"), text.index("## 8b."))
        self.assertLess(text.index("## 8b."), text.index("## 9. ImageSource"))
        self.assertIn("| R1: Indexing the real corpus, cold `gpick library scan` (wall, medians) | 0.07x | "
                      "at most 0.1x `exiftool -fast2 -r` on the same files | **PASS** |", text)
        self.assertIn("| R2: Thumbnailing it, CPU time (means) | 0.71x | and at most 0.8x its CPU time | **PASS** |", text)
        self.assertIn("| R3: Thumbnailing it, gpick peak RSS | 60 MiB (one vipsthumbnail: 64 MiB) |", text)
        self.assertIn("| E1: Writing EXIF costs `snap`: `StillExif(...).insert(into:)` a 1080p JPEG, in-process | "
                      "0.015 ms (max 0.021) | at most 1 ms (median over 30) | **PASS** |", text)
        # The corpus file list, with what each tool made of each file.
        self.assertIn("| samsung-s24ultra-200mp.heic | 2,407,522 | image/x, 12240x16320 | photo, 12240x16320 | 192x256 | "
                      "192x256 | 192x256 |", text)
        self.assertIn("| gpick library scan | 0.030 | 0.029 | 0.031 | 3 | 0.03 |", text)
        self.assertIn("| gpick library thumbs (one process) | 0.520 | 0.500 | 0.550 | 3 | 0.50 | 60 | 3 | 0 |", text)
        self.assertIn("| vipsthumbnail, one process for all files (R3; one run) | 0.540 | | | 1 | 0.46 | 64 | 3 | 0 |", text)
        self.assertIn("| `StillExif(...).insert(into:)` | 0.015 | 0.017 | 0.014 | 0.021 |", text)
        self.assertNotIn("**FAIL**", text)
        self.assertNotIn("not run", text)

    def test_a_tool_that_failed_on_files_shows_its_stderr(self):
        r = run_with(REALFILES)
        v = r["realfiles"]["thumbs"]["vips_single"]
        v.update(exit=1, stderr="vipsthumbnail: unable to thumbnail oneplus6-adobe-converted.dng")
        v["outputs"]["oneplus6-adobe-converted.dng"] = None
        text = report.render(r)
        self.assertIn("| oneplus6-adobe-converted.dng | 286,678 | image/x, 866x1154 | photo, 866x1154 | 192x256 | 192x256 | none |",
                      text)
        self.assertIn("- vipsthumbnail, one process exited 1; the end of its stderr:\n```\n"
                      "vipsthumbnail: unable to thumbnail oneplus6-adobe-converted.dng\n```", text)

    def test_without_the_corpus_the_rows_read_not_run_neither_pass_nor_fail(self):
        text = report.render(run_with(ABSENT))
        for name, target in zip(targets.REAL_ROWS, targets.real_targets(2)):
            ref = "R1" if name.startswith("Indexing") else "R3" if "RSS" in name else "R2"
            self.assertIn(f"| {ref}: {name} | not run: corpus absent | {target} | not run |", text)
        self.assertIn("R1–R3 were **not run** (neither met nor missed)", text)
        self.assertIn("none of `/nowhere/real-files`, `/work/shared/real-files` holds the corpus", text)
        self.assertIn("samsung-s24ultra-200mp.heic", text)  # the corpus it would have used
        self.assertIn("### E1: writing a still's EXIF, in-process", text)
        self.assertNotIn("### R1:", text)
        summary = text[text.index("## Summary"):text.index("## 1.")]
        self.assertEqual(summary.count("not run: corpus absent"), 4)
        self.assertNotIn("**FAIL**", text)
        # Not run is not a miss: only real misses count.
        self.assertEqual([c for c in targets.checks(run_with(ABSENT)) if c.ok is False], [])

    def test_the_report_reads_the_same_from_saved_json(self):
        for r in (run_with(REALFILES), run_with(ABSENT)):
            self.assertEqual(report.render(json.loads(json.dumps(r))), report.render(r))


if __name__ == "__main__":
    unittest.main()
