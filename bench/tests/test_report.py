import json
import unittest

from gpickbench import report, targets
from sample import RESULTS, results


def verdicts(r):
    return {c.name: c.ok for c in targets.checks(r)}


class ChecksTests(unittest.TestCase):
    def test_a_good_run_meets_every_target_in_order(self):
        checks = targets.checks(RESULTS)
        self.assertEqual(len(checks), 33)
        self.assertTrue(all(c.ok for c in checks), [c for c in checks if not c.ok])
        self.assertTrue(checks[0].name.startswith("Snap"))
        self.assertEqual([c.ref for c in checks if c.ref], ["L7", "L1", "L1", "L2", "L3", "L4", "L4", "L4", "L5", "L6", "L6",
                                                                "K1", "K1", "K2", "K3", "K4", "K5", "A1", "A2", "A3"])

    def test_snap_ratio_is_held_at_its_bound(self):
        name = "Snap 1080p JPEG, gpick / gst-launch (same work) wall time"
        at = results()
        at["snap"]["tools"]["gpick"]["median"] = 48.8 * 1.15
        self.assertTrue(verdicts(at)[name])
        over = results()
        over["snap"]["tools"]["gpick"]["median"] = 48.8 * 1.16
        self.assertFalse(verdicts(over)[name])

    def test_thumbnails_against_one_vipsthumbnail_per_core_are_held_at_their_bound(self):
        name = "Same batch, gpick / vipsthumbnail run once per core (xargs -P 2, wall)"
        at = results()
        at["thumbs"]["photos"]["tools"]["gpick"]["times"] = [5.16 * 0.9] * 3
        self.assertTrue(verdicts(at)[name])
        over = results()
        over["thumbs"]["photos"]["tools"]["gpick"]["times"] = [5.16 * 0.91] * 3
        self.assertFalse(verdicts(over)[name])

    def test_record_cpu_is_the_mean_of_the_runs(self):
        r = results()
        r["record"]["tools"]["gpick"]["runs"] = [{"wall": 10, "user": 10, "sys": 0, "maxrss_kib": 1},
                                                 {"wall": 10, "user": 30, "sys": 1, "maxrss_kib": 1}]
        self.assertAlmostEqual(targets.record_cpu(r["record"], "gpick"), 20.5)
        self.assertFalse(verdicts(r)["Record 1080p30, CPU gpick / ffmpeg"])  # 20.5 / 25.48 > 0.8

    def test_ssim_may_trail_ffmpeg_by_the_tolerance_only(self):
        name = "Record 1080p30, SSIM gpick − ffmpeg"
        r = results()
        r["record"]["tools"]["gpick"]["ssim"] = 0.999151 - 0.0049
        self.assertTrue(verdicts(r)[name])
        r["record"]["tools"]["gpick"]["ssim"] = 0.999151 - 0.0051
        self.assertFalse(verdicts(r)[name])

    def test_memory_needs_the_rss_bound_and_every_stamp(self):
        r = results()
        r["memory"]["run"]["maxrss_kib"] = 201 * 1024
        self.assertFalse(verdicts(r)["Record 60 s 1080p30 + audio, max RSS"])
        r = results()
        r["memory"]["stamps"].update(ok=False, missing=2)
        check = next(c for c in targets.checks(r) if c.name == "Same recording, dropped frames")
        self.assertEqual((check.ok, check.result), (False, "2 missing"))

    def test_one_late_session_snap_fails(self):
        self.assertFalse(verdicts(results(session__late=1))["Session snap 1080p30, command → file (median)"])

    def test_live_photos_need_all_three_shots_in_time(self):
        name = "Live photo, shutter → all outputs (max of 3)"
        self.assertFalse(verdicts(results(live__shutter_s=[1.5, 1.5]))[name])
        self.assertFalse(verdicts(results(live__shutter_s=[1.5, 1.5, 2.01]))[name])
        self.assertFalse(verdicts(results(live__shutter_s=[]))[name])
        self.assertTrue(verdicts(results(live__shutter_s=[2.0, 1.0, 1.0]))[name])

    def test_live_mode_memory_is_the_difference_of_medians(self):
        r = results(live__rss_photo_kib=30000, live__rss_live_kib=30000 + 16 * 1024 + 1)
        self.assertFalse(verdicts(r)["Live mode 1080p30, extra RSS over a plain session"])

    def test_a_preview_that_saw_no_frame_does_not_pass(self):
        r = results(live__preview={"shown": 0, "offered": 0, "dropped": 0})
        self.assertFalse(verdicts(r)["Live photos during an HTTP preview, frames dropped"])

    def test_flips_are_counted_in_frame_slots(self):
        name = "Flip request → first placeholder frame, on the output timeline (max)"
        self.assertEqual(targets.flip_slots(RESULTS["flips"]), 1)
        self.assertTrue(verdicts(results(flips__timeline_ms=[34.0] * 6))[name])
        self.assertFalse(verdicts(results(flips__timeline_ms=[51.0] + [5.0] * 5))[name])

    def test_a_flip_without_a_placeholder_fails(self):
        name = "Flip request → first placeholder frame, on the output timeline (max)"
        self.assertFalse(verdicts(results(flips__placeholders=5))[name])
        self.assertFalse(verdicts(results(flips__timeline_ms=[5.0] * 5))[name])
        self.assertFalse(verdicts(results(flips__count=0, flips__placeholders=0, flips__timeline_ms=[]))[name])

    def test_black_frames_and_placeholder_cost(self):
        self.assertFalse(verdicts(results(flips__black_frames=1))["Black frames in a recording through flips"])
        r = results(flips__placeholder={"median": 3.01, "p95": 3.2})
        self.assertFalse(verdicts(r)["Blurred placeholder from one 1080p frame (median)"])

    def test_terminal_cost_compares_the_least_disturbed_runs(self):
        self.assertAlmostEqual(targets.terminal_percent(RESULTS["terminal"]), 3.5)
        r = results(terminal__preview_runs=[{"wall": 10.0, "cpu": 4.0}])
        self.assertFalse(verdicts(r)["Terminal preview of 1080p30, CPU over a plain session"])


def check(r, ref, index=0):
    return [c for c in targets.checks(r) if c.ref == ref][index]


class PickHalfTests(unittest.TestCase):
    def test_cold_scan_ratio_is_of_medians(self):
        self.assertAlmostEqual(targets.tool_ratio(RESULTS["library"]["cold"], "gpick", "exiftool"), 0.63 / 50.24)
        r = results()
        r["library"]["cold"]["tools"]["gpick"]["times"] = [5.03, 5.03, 5.03]
        self.assertFalse(check(r, "L1").ok)

    def test_a_census_that_is_not_ok_fails_and_says_what_is_off(self):
        r = results()
        r["library"]["cold"]["census"].update(ok=False, invented_count=2, photos=10199)
        c = check(r, "L1", 1)
        self.assertFalse(c.ok)
        self.assertEqual(c.result, "100/100 pairs, 100/100 Motion Photos, 2 invented; photos 10199/10200")

    def test_rescan_and_newest(self):
        r = results()
        r["library"]["rescan"]["tools"]["gpick"]["times"] = [0.080] * 4
        self.assertFalse(check(r, "L2").ok)  # 0.080 / 0.0345 > 2
        self.assertFalse(check(results(library__newest__newest={**RESULTS["library"]["newest"]["newest"], "median": 10.1}),
                               "L3").ok)
        self.assertFalse(check(results(library__newest__newest={**RESULTS["library"]["newest"]["newest"], "listed": 999}),
                               "L3").ok)

    def test_photo_thumbnails_compare_with_the_issues_vipsthumbnail_command(self):
        p = RESULTS["thumbs"]["photos"]
        self.assertEqual(targets.vips_reference(p), "vips")
        self.assertAlmostEqual(targets.tool_ratio(p, "gpick", "vips"), 4.0 / 9.8)
        self.assertIn("(vs one vipsthumbnail per core: 0.78x)", check(RESULTS, "L4").result)
        r = results()
        r["thumbs"]["photos"]["tools"]["gpick"]["times"] = [8.0] * 3  # 0.82x
        self.assertFalse(check(r, "L4").ok)

    def test_imagesource_needs_both_bounds_and_a_degraded_first_result(self):
        self.assertTrue(all(c.ok for c in targets.checks(RESULTS) if c.ref == "L6"))
        r = results()
        r["imagesource"]["size"]["median_ms"] = 1.2
        self.assertFalse(check(r, "L6").ok)
        r = results()
        r["imagesource"]["first_result"]["median_ms"] = 5.5
        self.assertFalse([c for c in targets.checks(r) if c.ref == "L6"][1].ok)
        r = results()
        r["imagesource"]["first_degraded_every_run"] = False
        r["imagesource"]["first_origins"] = {"exif-thumbnail": 150, "decoded": 50}
        failed = [c for c in targets.checks(r) if c.ref == "L6"][1]
        self.assertFalse(failed.ok)
        self.assertIn("decoded", failed.result)

    def test_missing_thumbnails_and_memory_fail(self):
        r = results()
        r["thumbs"]["photos"]["tools"]["gpick"]["outputs"]["count"] = 199
        self.assertFalse(check(r, "L4").ok)
        r = results()
        r["thumbs"]["photos"]["tools"]["gpick"]["maxrss_kib"] = 151 * 1024
        self.assertFalse(check(r, "L4", 1).ok)
        r = results()
        r["thumbs"]["videos"]["tools"]["gpick"]["outputs"]["max_side"] = 320
        self.assertFalse(check(r, "L5").ok)


class PickerTests(unittest.TestCase):
    def test_every_k_target_is_checked(self):
        checks = [c for c in targets.checks(RESULTS) if c.ref.startswith("K")]
        self.assertEqual([c.ref for c in checks], ["K1", "K1", "K2", "K3", "K4", "K5"])
        self.assertTrue(all(c.ok for c in checks), checks)
        self.assertEqual(checks[3].result, "150 ms (median 127)")

    def test_one_slow_photo_or_a_short_scroll_fails(self):
        self.assertFalse(check(results(picker__snap_ms=[120.0, 510.0, 130.0]), "K3").ok)
        self.assertFalse(check(results(picker__memory={"painted": 600, "seconds": 20.0, "peak_rss_mib": 90.0}), "K5").ok)
        self.assertFalse(check(results(picker__median={**RESULTS["picker"]["median"], "terminal": 301.0}), "K4").ok)

    def test_the_section_is_written(self):
        text = report.render(RESULTS)
        self.assertIn("## 10. The picker", text)
        self.assertIn("| K4 terminal, start → whole grid (tmux 200×60) | 140, 150, 145, 160, 138 | 145 | <= 300 ms | **PASS** |", text)
        self.assertIn("**96 MiB**", text)
        # The page in a browser that has only just started: shown beside K1, with no verdict of its own.
        self.assertIn("K1 warm took 230, 210, 260 ms (median 230; for reference, no target)", text)

    def test_a_load_opened_in_a_busy_browser_is_said(self):
        self.assertNotIn("still busy", report.render(RESULTS))
        self.assertIn("**1 of K1's loads** were opened after 10 s with the browser still busy",
                      report.render(results(picker__grid_unsettled=1)))

    def test_results_from_before_the_started_browser_runs_still_render(self):
        old = results()
        del old["picker"]["grid_warm_started_ms"]
        self.assertNotIn("only just started", report.render(old))


class AvatarTests(unittest.TestCase):
    def test_a1_is_the_render_median_not_the_encoding(self):
        c = check(RESULTS, "A1")
        self.assertTrue(c.ok)
        self.assertEqual(c.result, "3.67 ms (max 12.1; with PNG encoding 24.2)")
        at = results()
        at["avatar"]["render"]["render"]["median_ms"] = 15.0
        at["avatar"]["render"]["render_png"]["median_ms"] = 40.0
        self.assertTrue(check(at, "A1").ok)
        over = results()
        over["avatar"]["render"]["render"]["median_ms"] = 15.01
        self.assertFalse(check(over, "A1").ok)

    def test_a1_needs_the_initials_drawn(self):
        r = results()
        r["avatar"]["render"]["shown"] = "A"
        c = check(r, "A1")
        self.assertFalse(c.ok)
        self.assertIn("(drew 'A', not 'AL')", c.result)

    def test_a2_is_a_ratio_of_means(self):
        cli = RESULTS["avatar"]["cli"]
        self.assertAlmostEqual(targets.mean_ratio(cli, "gpick", "rsvg"), 0.084 / 0.072)
        self.assertEqual(check(RESULTS, "A2").result, "1.17x")
        r = results()
        r["avatar"]["cli"]["tools"]["gpick"]["times"] = [0.080, 0.080, 0.082, 0.140]  # median 1.13x, mean 1.33x
        self.assertLess(targets.tool_ratio(r["avatar"]["cli"], "gpick", "rsvg"), 1.2)
        self.assertFalse(check(r, "A2").ok)

    def test_a2_fails_on_a_png_of_another_size_and_says_which(self):
        r = results()
        r["avatar"]["cli"]["tools"]["gpick"]["output"].update(width=250, height=250)
        c = check(r, "A2")
        self.assertFalse(c.ok)
        self.assertEqual(c.result, "1.17x (gpick wrote 250x250)")

    def test_a3_is_the_median_change_and_needs_the_cancel(self):
        c = check(RESULTS, "A3")
        self.assertTrue(c.ok)
        self.assertEqual(c.result, "21.5 ms (max 140.0, 5 changes)")
        slow = results()
        slow["avatar"]["editor"]["ms"] = [90.0, 120.0, 101.0]
        self.assertFalse(check(slow, "A3").ok)
        open_ended = results()
        open_ended["avatar"]["editor"]["exit"] = 0
        self.assertFalse(check(open_ended, "A3").ok)
        self.assertIn("(exit 0, not 130)", check(open_ended, "A3").result)

    def test_the_section_is_written(self):
        text = report.render(RESULTS)
        self.assertIn("## 11. Avatars", text)
        self.assertIn("### A3: the editor's preview after a change", text)
        self.assertIn("- Median **21.5 ms (max 140.0, 5 changes)** — target <= 100 ms: **PASS** (p90 25.0 ms)", text)
        self.assertIn("| A1: Avatar 500x500, initials on a gradient, circle: render in-process (median) |", text)
        self.assertIn("| render (the target) | 3.67 | 7.07 | 2.67 | 12.10 |", text)
        self.assertIn("| render + PNG encoding | 24.18 | 28.57 | 17.70 | 37.28 |", text)
        self.assertIn("| gpick avatar | 84.0 | 83.0 | 80.0 | 90.0 | 4 | 78.0 | 500x500, 17,576 bytes |", text)
        self.assertIn("**1.17x** — target <= 1.2x: **PASS** (medians: 1.16x;", text)
        self.assertIn("it chose #000000", text)


class RenderTests(unittest.TestCase):
    def test_every_section_and_measurement_is_written(self):
        text = report.render(RESULTS)
        for heading in ("## Summary", "## 1. Snap", "## 2. Recording", "### x264 variants", "## 3. Peak memory",
                        "## 4. Session snap", "## 5. Live photos", "## 6. Flips", "### Terminal preview",
                        "## 7. Media library", "### L1:", "### L2:", "### L3:", "## 8. Thumbnails", "### L4:", "### L5:",
                        "## 9. ImageSource"):
            self.assertIn(heading, text)
        self.assertNotIn("**FAIL**", text)
        for figure in ("**1.08x**", "0.52x", "+0.0002", "91 MiB", "**9.0 ms**", "**+15.1 MiB**", "1.58 s",
                       "233 frames", "**2.15 ms**", "23.5 ms = 1 frame(s)", "**3.5 % of one core**", "| 0.94x |",
                       "| L7: Snap 1080p JPEG", "**0.013x**", "100/100 Apple pairs", "**4.60 ms**", "**0.41x**",
                       "**74 MiB**", "**0.57x**", "| one video | 256 | ffmpegthumbnailer | 183 |",
                       "**0.052 ms (max 0.21)**", "**2.31 ms (max 4.4)**", "exif-thumbnail 200"):
            self.assertIn(figure, text)

    def test_a_missed_target_reads_fail_in_the_summary_and_its_section(self):
        text = report.render(results(session__late=2))
        self.assertIn("| Session snap 1080p30, command → file (median) | 9.0 ms (encode+write 8.5 ms) | "
                      "<= 33.3 ms + encode, every shot | **FAIL** |", text)
        self.assertIn("2 of 20 — **FAIL**", text)

    def test_sections_not_run_are_left_out(self):
        r = {"meta": RESULTS["meta"], "snap": RESULTS["snap"]}
        text = report.render(r)
        self.assertIn("## 1. Snap", text)
        self.assertNotIn("## 2.", text)
        self.assertEqual(text.count("**PASS**"), 2)  # its summary row and its section

    def test_a_refused_variant_is_a_row(self):
        r = results()
        r["record"]["variants"].append({"settings": ["bogus=1"], "error": "gpick: x264enc has no property bogus"})
        self.assertIn("| `--set bogus=1` | error: gpick: x264enc has no property bogus |", report.render(r))

    def test_a_busy_machine_and_a_stale_binary_are_said(self):
        text = report.render(results(meta__load_start="1.9 1.0 1.0", meta__stale_sources=3))
        self.assertIn("the machine was busy", text)
        self.assertIn("3 source file(s) are newer than this binary", text)
        self.assertNotIn("the machine was busy", report.render(RESULTS))

    def test_the_report_reads_the_same_from_saved_json(self):
        self.assertEqual(report.render(json.loads(json.dumps(RESULTS))), report.render(RESULTS))


if __name__ == "__main__":
    unittest.main()
