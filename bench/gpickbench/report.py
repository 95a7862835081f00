"""bench/RESULTS.md from a run's results: the header, the summary of checks, then one section per
benchmark with its commands and every measurement. Pure: results in, markdown out."""
import statistics

from . import targets as T
from .report_picker import picker, rest
from .report_realfiles import realfiles
from .report_camera import camera
from .report_motion import motion, watchclips
from .report_soak import soak
from .report_stream import stream


def verdict(ok):
    """PASS, FAIL, or (None) not run: what the row needs was absent, so it was neither met nor missed."""
    return "not run" if ok is None else "**PASS**" if ok else "**FAIL**"


def by_name(checks):
    return {c.name: c for c in checks}


def header(m):
    busy = (float(m["load_start"].split()[0]) > 0.5 * m["nproc"] or float(m["load_end"].split()[0]) > 1.5 * m["nproc"])
    stale = f" — **{m['stale_sources']} source file(s) are newer than this binary**" if m["stale_sources"] else ""
    lines = ["# gpick benchmarks", "",
             f"- Date: {m['date']}  (run took {m['seconds']:.0f} s)",
             f"- Machine: `nproc` = {m['nproc']}, {m['cpu']}; load average {m['load_start']} at start, {m['load_end']} at end; "
             f"host steal {m['steal_start']:.1f} % of CPU time when the timings began",
             f"- GStreamer {m['gstreamer']}, ffmpeg {m['ffmpeg']}, {m['x264']} (both tools use this libx264)",
             f"- gpick {m['gpick']} ({m['gpick_path']}, built {m['gpick_built']}; a copy of it and of pipelines/ was "
             f"benchmarked){stale}; tree at git {m['git']}",
             f"- Produced by `make bench` (`bench/run.sh`: {m['sections']}; one run, all numbers below come from it)."]
    if busy:
        lines.append("- **Note: the machine was busy with other work during this run** (see load averages), so wall "
                     "times are inflated and CPU numbers are noisier than on an idle machine.")
    return lines + [""]


def summary(checks):
    return (["## Summary", "", "| benchmark | result | target | |", "|---|---|---|---|"]
            + [f"| {c.ref + ': ' if c.ref else ''}{c.name} | {c.result} | {c.target} | {verdict(c.ok)} |" for c in checks]
            + [""])


def by_ref(checks, ref):
    return [c for c in checks.values() if c.ref == ref]


def snap(r, c):
    tools = r["tools"]
    g, s, m, f = (tools[t]["median"] for t in ("gpick", "gst", "gstmin", "ffmpeg"))
    check = c["Snap 1080p JPEG, gpick / gst-launch (same work) wall time"]
    lines = ["## 1. Snap: one 1080p JPEG, whole-process wall time", "",
             f"{r['runs']} timed runs per tool (hyperfine, no shell, after warm-up), in {r['rounds']} rounds with the "
             f"tools' order rotated each round. A round during which the VM's host took >= 10 % of the CPU time "
             f"(steal) was timed again: {r['rounds']} rounds kept of {r['rounds_timed']} (host steal "
             f"{r['steal_kept']:.1f} % in the kept rounds, {r['steal_all']:.1f} % over all of them).", "",
             "| tool | median ms | min | max | mean ± sd | CPU ms (mean) | output |", "|---|---|---|---|---|---|---|"]
    for t, name in (("gpick", "gpick snap"), ("gst", "gst-launch-1.0, same work"), ("gstmin", "gst-launch-1.0, minimal"),
                    ("ffmpeg", "ffmpeg")):
        x = tools[t]
        lines.append(f"| {name} | {x['median']:.1f} | {x['min']:.1f} | {x['max']:.1f} | {x['mean']:.1f} ± {x['stdev']:.1f} "
                     f"| {x['cpu_mean']:.1f} | {x['output']} |")
    return lines + [
        "", "Commands (gpick; the same work as one gst-launch line; the minimal gst-launch line; ffmpeg):", "```",
        *(tools[t]["command"] for t in ("gpick", "gst", "gstmin", "ffmpeg")), "```", "",
        "The same-work line is what gpick's snap does: its test source is a live videotestsrc (it stands in for a "
        "camera: the frame comes when the clock says) and its input stage converts and scales to the asked format. "
        "The minimal line skips both; until 2026-11-22 it was the reference.", "",
        f"- Ratio gpick / gst-launch, same work (medians): **{check.result}** — target {check.target} (L7: the pick "
        f"half must not slow the capture half's start-up): {verdict(check.ok)}",
        f"- gpick / minimal gst-launch line: {g / m:.2f}x; gpick / ffmpeg: {g / f:.2f}x",
        f"- CPU time gpick / same-work line (means): {tools['gpick']['cpu_mean'] / tools['gst']['cpu_mean']:.2f}x. "
        "(gpick uses both cores at start-up, so a busy host stretches its wall time more than the one-thread line's)", ""]


def record(r, c):
    secs = r["seconds"]
    fcpu, gcpu = T.record_cpu(r, "ffmpeg"), T.record_cpu(r, "gpick")
    g, f = r["tools"]["gpick"], r["tools"]["ffmpeg"]
    cpu, q = c["Record 1080p30, CPU gpick / ffmpeg"], c["Record 1080p30, SSIM gpick − ffmpeg"]
    lines = ["## 2. Recording 1080p30: CPU per video second and quality", "",
             f"Source: {secs} s = {r['frames']} identical raw 1920x1080 I420 frames (y4m), made once:", "```",
             r["source_command"], "```",
             "Moving mixed content: scrolling SMPTE bars (with their noise patch), a pinwheel, the moving ball, an "
             "animated zone plate.", "",
             "Commands (CPU = user+sys of the whole process, from wait4; gpick's file source plays in real time, so "
             "its wall time is about the video length):", "```",
             r["commands"]["gpick"] + "    # defaults: x264enc tune=zerolatency speed-preset=veryfast, quantizer 21 (qual)",
             r["commands"]["ffmpeg"] + "    # defaults: preset medium, crf 23", r["commands"]["ssim"], "```", "",
             "| tool | CPU s per run | mean CPU s | CPU s per video s | wall s | max RSS MiB | frames | video kbit/s | SSIM (All) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, x, mean_cpu in (("gpick record", g, gcpu), ("ffmpeg libx264", f, fcpu)):
        runs = x["runs"]
        cpus = ", ".join(f"{u['user'] + u['sys']:.1f}" for u in runs)
        walls = ", ".join(f"{u['wall']:.1f}" for u in runs)
        lines.append(f"| {name} | {cpus} | {mean_cpu:.2f} | {mean_cpu / secs:.3f} | {walls} | "
                     f"{max(u['maxrss_kib'] for u in runs) / 1024:.0f} | {x['frames']} | {x['kbps']} | {x['ssim']:.6f} |")
    lines += ["", f"- CPU ratio gpick / ffmpeg: **{cpu.result}** — target {cpu.target}: {verdict(cpu.ok)}",
              f"- SSIM: gpick {g['ssim']:.6f}, ffmpeg {f['ssim']:.6f}, difference {g['ssim'] - f['ssim']:+.6f} — "
              f"target gpick >= ffmpeg − {T.SSIM_TOLERANCE}: {verdict(q.ok)}"]
    if any(u["wall"] > secs * 1.2 for u in g["runs"]):
        lines.append(f"- Note: a gpick run took longer than {secs * 1.2:.0f} s wall, i.e. it could not keep up with real time.")
    if g["frames"] != f["frames"]:
        lines.append(f"- Note: frame counts differ ({g['frames']} vs {f['frames']}); SSIM compares the overlapping frames.")
    lines.append("")
    if r["variants"]:
        lines += ["### x264 variants tried (gpick `record --set ...`, one run each, same source)", "",
                  f"Compared against the ffmpeg baseline above (CPU {fcpu:.2f} s, SSIM {f['ssim']:.6f}). Both targets: "
                  f"CPU <= {T.RECORD_CPU_RATIO}x ffmpeg and SSIM >= ffmpeg − {T.SSIM_TOLERANCE}.", "",
                  "| gpick settings | CPU s | CPU s per video s | CPU / ffmpeg | SSIM | SSIM − ffmpeg | video kbit/s | wall s | frames | both targets |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        rows = [("defaults (veryfast, q 21)", {"run": {"user": gcpu, "sys": 0.0, "wall": statistics.mean(u["wall"] for u in g["runs"])},
                                              "ssim": g["ssim"], "kbps": g["kbps"], "frames": g["frames"]})]
        rows += [(" ".join(f"`--set {kv}`" for kv in v["settings"]), v) for v in r["variants"]]
        for label, v in rows:
            if "error" in v:
                lines.append(f"| {label} | error: {v['error']} | | | | | | | | no |")
                continue
            used = v["run"]["user"] + v["run"]["sys"]
            both = used / fcpu <= T.RECORD_CPU_RATIO and v["ssim"] >= f["ssim"] - T.SSIM_TOLERANCE
            lines.append(f"| {label} | {used:.2f} | {used / secs:.3f} | {used / fcpu:.2f}x | {v['ssim']:.6f} | "
                         f"{v['ssim'] - f['ssim']:+.6f} | {v['kbps']} | {v['run']['wall']:.1f} | {v['frames']} | "
                         f"{'yes' if both else 'no'} |")
        lines.append("")
    return lines


def memory(r, c):
    u, s, want = r["run"], r["stamps"], r["expected_frames"]
    rss = c[f"Record {want // 30} s 1080p30 + audio, max RSS"]
    cpu = u["user"] + u["sys"]
    lines = [f"## 3. Peak memory and dropped frames: {want // 30} s 1080p30 recording with audio", "", "```",
             r["command"], r["inspect_command"], "```", "",
             f"- Wall {u['wall']:.1f} s, CPU {cpu:.1f} s ({cpu / (want / 30):.2f} CPU s per video s)",
             f"- Max RSS: **{u['maxrss_kib'] / 1024:.1f} MiB** ({u['maxrss_kib']} KiB) — target {rss.target}: {verdict(rss.ok)}",
             f"- inspect: frames {s['frames']}, duration {s['duration']} s, stamps {s['stamps']} (source ids "
             f"{','.join(s['source_ids']) or '-'}, unreadable {s['unreadable']}, indices {s['first']}..{s['last']}, "
             f"breaks in sequence {s['breaks']}, missing {s['missing']}"
             + (f", first missing {s['first_missing']}" if s["missing"] else "") + ")",
             f"- {want} frames with consecutive stamp indices 0..{want - 1}: {verdict(s['ok'])}"]
    if isinstance(s["duration"], (int, float)) and abs(s["duration"] - want / 30) > 2 / 30:
        lines.append(f"- Note: the file's duration is {s['duration']:.3f} s for {s['frames']} frames (expected "
                     f"{want / 30:.3f} s): timestamps drifted from the nominal 30 fps (see load average above).")
    return lines + [""]


def session(r, c):
    check = c["Session snap 1080p30, command → file (median)"]
    return ["## 4. Session snap latency: 1080p30, one running session", "", "```", r["command"], "```", "",
            f"- {r['shots']} snaps (the first, which also starts the session, is left out), 0.2 s apart",
            f"- Command arrival → file written: median **{r['latency_median']:.1f} ms**, max {r['latency_max']:.1f} ms",
            f"- Of which waiting for the frame (command → exposure complete): median {r['wait_median']:.2f} ms, max "
            f"{r['wait_max']:.2f} ms — the retained frame answers at once (zero shutter lag)",
            f"- Encode + atomic write (exposure complete → file): median {r['encode_median']:.1f} ms",
            f"- Shots over one frame interval ({T.FRAME_MS:.1f} ms) + their own encode time: {r['late']} of {r['shots']} — "
            f"{verdict(check.ok)}", ""]


def live(r, c):
    extra = c["Live mode 1080p30, extra RSS over a plain session"]
    shutter = c[f"Live photo, shutter → all outputs (max of {T.LIVE_SHOTS})"]
    kept = c["Live photos during a recording, frames kept"]
    p, dropped = r["preview"], c["Live photos during an HTTP preview, frames dropped"]
    times = r["shutter_s"]
    return ["## 5. Live photos: 1080p30 session in live mode", "", "```", *r["commands"], "```", "",
            f"- Max RSS, median of 3: plain session {r['rss_photo_kib'] / 1024:.1f} MiB, armed live mode "
            f"{r['rss_live_kib'] / 1024:.1f} MiB: **{T.live_extra_mib(r):+.1f} MiB** — target {extra.target}: {verdict(extra.ok)}",
            f"- Shutter → NAME.jpg + NAME.mov + NAME.MP.jpg written: median "
            f"{statistics.median(times) if times else float('nan'):.2f} s, max {shutter.result} over {len(times)} shots "
            f"(--after 1.5) — target {shutter.target}: {verdict(shutter.ok)}",
            f"- Second run, a 1080p recording running through three shots: {r['recording_frames']} frames, stamps "
            f"{'consecutive' if r['recording_consecutive'] else 'BROKEN'} — {verdict(kept.ok)}",
            f"- Third run, an HTTP preview (`preview start http`, one viewer reading the stream) through three shots: "
            f"{p['offered']} frames reached the preview, {p['shown']} were encoded and served, {p['dropped']} dropped by "
            f"its queue while the encoder was busy — {verdict(dropped.ok)}", ""]


def flips(r, c):
    ph, blend = r["placeholder"], r["blend"]
    cost = c["Blurred placeholder from one 1080p frame (median)"]
    flip = c["Flip request → first placeholder frame, on the output timeline (max)"]
    black = c["Black frames in a recording through flips"]
    tl, wall = r["timeline_ms"] or [float("nan")], r["wall_ms"] or [float("nan")]
    return ["## 6. Flips and previews", "", "### Placeholder cost", "", "```",
            f"{r['compiler']} -O2 -I Sources/CImaging/include -I Sources/CImaging bench/imaging/bench.c "
            f"{' '.join(r['sources'])} && ./a.out",
            "```", "",
            f"- Downscale ÷8 → blur small → bilinear upscale of one 1920×1080 I420 frame: median **{ph['median']:.2f} ms**, "
            f"p95 {ph['p95']:.2f} ms — target {cost.target}: {verdict(cost.ok)} (the stock `gaussianblur` takes ~260 ms)",
            f"- Crossfade (one 1080p blend): median {blend['median']:.2f} ms, p95 {blend['p95']:.2f} ms", "",
            "### Flips in a 1080p30 session with a recording running", "", "```", r["command"], "```", "",
            f"- {r['count']} flips, {r['placeholders']} placeholder episodes",
            f"- On the output timeline (running time when the flip was asked → timestamp of the first placeholder "
            f"frame): median **{statistics.median(tl):.1f} ms**, max {max(tl):.1f} ms, i.e. at most {T.flip_slots(r)} frame "
            f"slot(s) after the request — target {flip.target}: {verdict(flip.ok)} (the slot right after the last camera "
            "frame; a camera frame captured in the few ms between the request and the switch still shows first)",
            f"- Wall clock, command line read → first placeholder frame handed to the outputs (includes parsing the "
            f"command and waiting for room when the 1080p encoder is behind): median {statistics.median(wall):.1f} ms, "
            f"max {max(wall):.1f} ms",
            f"- Recording: {r['recording_frames']} frames, {r['recording_seconds']:.3f} s; black frames (ffmpeg "
            f"blackframe, 98 % of pixels below 32): **{r['black_frames']}** — {verdict(black.ok)}", ""]


def terminal(r, c):
    check = c["Terminal preview of 1080p30, CPU over a plain session"]
    p = min(r["preview_runs"], key=lambda x: x["cpu"])
    b = min(r["plain_runs"], key=lambda x: x["cpu"])
    runs = lambda xs: ", ".join(f"{x['cpu']:.2f}" for x in xs)  # noqa: E731
    return ["### Terminal preview of 1080p30 (tmux pane 200×60)", "", "```", r["command"], "```", "",
            f"- Preview process: {p['cpu']:.2f} CPU s in {p['wall']:.1f} s; the same session without a preview: "
            f"{b['cpu']:.2f} CPU s in {b['wall']:.1f} s (the lower of two alternating runs each: preview "
            f"{runs(r['preview_runs'])}, plain {runs(r['plain_runs'])} CPU s)",
            f"- The preview's own cost: **{T.terminal_percent(r):.1f} % of one core** — target {check.target}: {verdict(check.ok)}",
            *([f"- {r['summary']}"] if r["summary"] else []), ""]


def spread_row(name, times, cpu=None, extra=""):
    """| name | median | min | max | runs | CPU | … | from seconds."""
    s = sorted(times)
    return (f"| {name} | {T.median(s):.3f} | {s[0]:.3f} | {s[-1]:.3f} | {len(s)} | "
            f"{'' if cpu is None else f'{cpu:.2f}'} |{extra}")


def library(r, c):
    cold, re_, new = r["cold"], r["rescan"], r["newest"]
    t, k, f = r["tree"], cold["census"], cold["exiftool_fields"]
    l1, census = by_ref(c, "L1")
    l2, l3 = by_ref(c, "L2")[0], by_ref(c, "L3")[0]
    traps = t["traps"]
    lines = ["## 7. Media library: cold scan, rescan, the newest 1000 (L1–L3)", "",
             f"A generated tree (`{r['root']}`, made once by bench/gpickbench/fixtures.py and cached): {t['files']:,} files = "
             f"{t['photos'] - t['live']:,} plain photos, {t['videos']} plain videos, 100 Apple live pairs (JPEG with Apple's "
             f"MakerNote ContentIdentifier + MOV with QuickTime content.identifier; 15 with the movie named apart, 15 with it "
             f"in another folder) and 100 Google Motion Photos (XMP + Container directory + appended MP4). Traps among the "
             f"plain files: {traps['same_name_decoys']} same-named IMG_n.JPG/IMG_n.MOV without identifiers, "
             f"{traps['orphan_stills']} stills and {traps['orphan_movies']} movies whose identifier has no other half, "
             f"{traps['stripped_motion']} photos with Motion Photo XMP but no video. Movies have their moov first "
             "(exiftool -fast2 stops at mdat). Photos are 320×240 JPEGs with camera EXIF: a scan reads headers only.", "",
             "### L1: cold scan (no index), gpick against exiftool reading the same fields", "",
             "Page cache: warm for both. Each tool ran once untimed before its timed runs (that run's outputs are what "
             "the checks below read), and nothing else touched the tree in between. hyperfine, no shell; gpick's index is "
             "deleted before each run (`--prepare`), in a private HOME/XDG folder (bench/work/home).", "",
             "| tool | median s | min | max | runs | CPU s (mean) |", "|---|---|---|---|---|---|",
             spread_row("gpick library scan", cold["tools"]["gpick"]["times"], cold["tools"]["gpick"]["cpu"]),
             spread_row("exiftool -fast2 -json -r", cold["tools"]["exiftool"]["times"], cold["tools"]["exiftool"]["cpu"]),
             "", "```", cold["tools"]["gpick"]["command"], cold["tools"]["exiftool"]["command"], "```", "",
             f"- Ratio gpick / exiftool (medians): **{l1.result}** — target {l1.target}: {verdict(l1.ok)} (host steal "
             f"{cold['steal']['gpick']:.1f} % during gpick's runs, {cold['steal']['exiftool']:.1f} % during exiftool's)"
             + (f"; the untimed first runs took {cold['first_runs']['gpick']:.2f} s and {cold['first_runs']['exiftool']:.1f} s"
                if "first_runs" in cold else ""),
             f"- exiftool printed {f['files']:,} files: a size for {f['size']:,}, a date for {f['date']:,}, a duration for "
             f"{f['duration']:,}, a ContentIdentifier for {f['content_identifier']} (the movies only: -fast2 skips MakerNotes, "
             f"so it never reads the stills' identifiers), MotionPhoto for {f['motion_photo']} (the XMP; -fast2 does not look "
             "for the appended video, which gpick checks is really at the offset given). So exiftool did less than gpick.",
             f"- What gpick found ({cold['list_command']}, and the whole listing): {k['pairs_found']}/{k['pairs']} Apple pairs "
             f"with their own movie, {k['motion_found']}/{k['motion_photos']} Motion Photos, {k['live']} live assets "
             f"(expected {k['live_expected']}; `--kind live` listed {k['kind_live_listed']}), {k['invented_count']} invented"
             + (f" (first: {', '.join(k['invented'])})" if k["invented"] else "")
             + (f", missing: {', '.join(k['missing'])}" if k["missing"] else "")
             + f"; {k['photos']:,} photos (expected {k['photos_expected']:,}), {k['videos']} videos (expected "
             f"{k['videos_expected']}); the scan found {k['files_found']:,} files (expected {k['files_expected']:,}), "
             f"{k['unreadable']} unreadable, and said {k['scan_pairs']} live pairs and {k['scan_motion_photos']} Motion "
             f"Photos — {verdict(census.ok)}", "",
             "### L2: rescan of the unchanged tree, against find", "",
             "| tool | median s | min | max | runs | CPU s (mean) |", "|---|---|---|---|---|---|",
             spread_row("gpick library scan (index current)", re_["tools"]["gpick"]["times"], re_["tools"]["gpick"]["cpu"]),
             spread_row("find -printf '%i %s %T@\\n'", re_["tools"]["find"]["times"], re_["tools"]["find"]["cpu"]),
             "", "```", re_["tools"]["gpick"]["command"], re_["tools"]["find"]["command"], "```", "",
             f"- Ratio gpick / find (medians, after 2 warm-up runs each): **{l2.result}** — target {l2.target}: "
             f"{verdict(l2.ok)} (host steal {re_['steal']:.1f} %)",
             "- The rescan read nothing: " + ", ".join(f"{k_} {v}" for k_, v in re_["summary"].items()), "",
             "### L3: the newest 1000 of 100,000 indexed assets, in-process", "",
             f"gpick-libbench (bench/libbench, linking GpickLibrary) fills an index with {new['rows']:,} synthetic rows "
             f"({new['assets']:,} assets: photos, videos, Apple pairs whose movies are rows but not assets, Motion Photos, "
             "bursts, screenshots, panoramas, a few unreadable; added over five years, in scan order) in one "
             "transaction (cached), then times `LibraryIndex.list(AssetQuery(limit: 1000, roots:))` — what `gpick library "
             f"list` and the picker ask — {new['newest']['runs']} times after {new['warmup']} warm-up runs.", "", "```",
             new["command"], "```", "",
             "| query | median ms | p95 | min | max | first call ms | listed |", "|---|---|---|---|---|---|---|"]
    names = {"newest": "newest 1000 (the target)", "newest-live": "newest 1000 live", "newest-video": "newest 1000 videos",
             "what-if-unindexed-roots": "what-if: the same, roots condition kept off the path index (`+path`)",
             "what-if-rows-only": "what-if: that SQL, rows not decoded into Assets"}
    for key, label in names.items():
        if key in new:
            q = new[key]
            first = f"{q['first_ms']:.1f}" if "first_ms" in q else ""
            lines.append(f"| {label} | {q['median']:.2f} | {q['p95']:.2f} | {q['min']:.2f} | {q['max']:.2f} | {first} | "
                         f"{q['listed']} |")
    lines += ["", f"- Newest 1000 (median of {new['newest']['runs']}): **{new['newest']['median']:.2f} ms**, max "
              f"{new['newest']['max']:.2f} ms — target {l3.target}: {verdict(l3.ok)} (opening the index: "
              f"{new['open_ms']:.0f} ms; host steal {new['steal']:.1f} %)", ""]
    return lines


def thumbs(r, c):
    p, v = r["photos"], r["videos"]
    l4, rss, *per_core = by_ref(c, "L4")
    l5 = by_ref(c, "L5")[0]
    ref = T.vips_reference(p)
    names = {"gpick": "gpick library thumbs (one process)", "vips": "vipsthumbnail, one process for all files",
             "vips_parallel": f"vipsthumbnail, {r['nproc']} processes side by side",
             "ffmpegthumbnailer": f"ffmpegthumbnailer, {r['nproc']} at a time (xargs -P)",
             "ffmpegthumbnailer_serial": "ffmpegthumbnailer, one after the other"}

    def table(section):
        rows = ["| tool | median s | min | max | runs | CPU s (mean) | peak RSS MiB | thumbnails | largest side |",
                "|---|---|---|---|---|---|---|---|---|"]
        for k, x in section["tools"].items():
            o = x["outputs"]
            rows.append(spread_row(names.get(k, k), x["times"], x["cpu"],
                                   f" {x['maxrss_kib'] / 1024:.0f} | {o['count']} | {o['max_side']} |"))
        return rows + ["", "```", *(x["command"] for x in section["tools"].values()), "```", ""]

    lines = ["## 8. Thumbnails: 256 px PNGs of photos and videos (L4, L5)", "",
             "Whole batches, wall time (hyperfine, no shell, one warm-up run each, outputs deleted before every run). "
             "gpick makes the freedesktop.org thumbnails (`large`, 256 px, PNG with the standard's text keys) in one "
             "process, a core's worth of decodes at a time (`gpick library thumbs`; a process per file would start "
             "libvips and GStreamer each time). The reference tools get the same files, the same 256 px box, PNG "
             f"(vipsthumbnail at gpick's compression level, 3) and the same {r['nproc']} cores: a vipsthumbnail process "
             "works through its files one after the other (libvips threads help little on a JPEG it shrinks while "
             "decoding), so it also ran as one process per core, shown beside it; the reference is the issue's command, one "
             "`vipsthumbnail -s 256` over all the files. "
             "ffmpegthumbnailer takes one file a run: it ran one process per core (xargs -P), and one after the other "
             "for comparison. Peak RSS: one more run each, from wait4 (of xargs and its children for xargs lines).", "",
             f"### L4: {p['files']} JPEGs of 4032×3024 (about {r['photo_bytes'] / 2**20:.1f} MB each, camera EXIF, a "
             "quarter of them rotated by EXIF orientation 6)", "", *table(p),
             f"- Ratio gpick / {names[ref]} (medians): **{T.tool_ratio(p, 'gpick', ref):.2f}x** — target {l4.target}: "
             f"{verdict(l4.ok)}",
             *(f"- Ratio gpick / {names['vips_parallel']} (medians; issue 45's L4): **{k.result}** — target {k.target}: "
               f"{verdict(k.ok)}" for k in per_core),
             f"- gpick's peak RSS: **{rss.result}** — target {rss.target}: {verdict(rss.ok)} (host steal {p['steal']:.1f} %)",
             *faithful_line(p.get("faithfulness")), "",
             f"### L5: {v['files']} MP4s, 1080p30 H.264 High + AAC, 4 s, a keyframe a second, 12 Mbit/s", "",
             "gpick takes a frame about a third in, skipping black frames (none of these is black there); "
             "ffmpegthumbnailer is told the same position (`-t 33%`; its default is 10 %).", "", *table(v),
             f"- Ratio gpick / ffmpegthumbnailer, {r['nproc']} at a time (medians): **{l5.result}** — target {l5.target}: "
             f"{verdict(l5.ok)} (one after the other: {T.tool_ratio(v, 'gpick', 'ffmpegthumbnailer_serial'):.2f}x; host "
             f"steal {v['steal']:.1f} %)", "",
             "### One file per process, for comparison (start-up included; 10 runs after 2 warm-up)", "",
             "| file | gpick thumb median ms | reference | reference median ms |", "|---|---|---|---|"]
    for kind, ref_name in (("photo", "vips"), ("video", "ffmpegthumbnailer")):
        s = r["single"][kind]["tools"]
        lines.append(f"| one {kind} | {T.median(s['gpick']['times']) * 1000:.0f} | {ref_name} | "
                     f"{T.median(s[ref_name]['times']) * 1000:.0f} |")
    return lines + [""]


def faithful_line(f):
    """L4's thumbnails against the photos decoded whole (scenarios/thumbs.py: faithfulness)."""
    if not f:
        return []
    return [f"- Against each photo decoded whole and scaled by Lanczos3 into the same box (luma SSIM, the "
            f"{f['photos']} distinct photos): gpick mean {f['gpick']['mean']:.4f} (lowest {f['gpick']['min']:.4f}), "
            f"vipsthumbnail mean {f['vips']['mean']:.4f} (lowest {f['vips']['min']:.4f}). gpick shrinks a 12 MP JPEG by "
            "an eighth while decoding it, vipsthumbnail by a quarter (it leaves at least a factor of 2 for its resize, "
            "gpick at least 15/8)."]


def imagesource(r, c):
    size, first = by_ref(c, "L6")
    s, f = r["size"], r["first_result"]
    origins = ", ".join(f"{k} {v}" for k, v in sorted(r["first_origins"].items()))
    return ["## 9. ImageSource: a photo's size and its first picture (L6)", "",
            f"In-process (gpick-imagebench, linking GpickImages), on one of L4's camera JPEGs: {r['width']}×{r['height']} "
            f"as shown (stored sideways, EXIF orientation 6), {r['photo_bytes'] / 2**20:.1f} MB, with the EXIF thumbnail a "
            f"phone writes. {r['runs']} timed calls of each after {r['warmup']} warm-up; the process and the page cache are "
            "warm, as in a picker that is showing its grid. The first result of a progressive request is timed from the "
            "call to its delivery; the final picture is awaited too (untimed), so each request starts with nothing running.",
            "", "```", r["command"], "```", "",
            "| call | median ms | p90 | min | max |", "|---|---|---|---|---|",
            f"| `size()` (headers only) | {s['median_ms']:.3f} | {s['p90_ms']:.3f} | {s['min_ms']:.3f} | {s['max_ms']:.3f} |",
            f"| `image(.fit 256×256, .progressive)`: first result | {f['median_ms']:.2f} | {f['p90_ms']:.2f} | "
            f"{f['min_ms']:.2f} | {f['max_ms']:.2f} |", "",
            f"- `size()`: **{size.result}** — target {size.target}: {verdict(size.ok)}",
            f"- First result: **{first.result}** — target {first.target}: {verdict(first.ok)}; what came first: {origins} "
            f"(host steal {r['steal']:.1f} %)"]


def avatar(r, c):
    (a1,), (a2,) = by_ref(c, "A1"), by_ref(c, "A2")
    a, cli = r["render"], r["cli"]
    g, v = cli["tools"]["gpick"], cli["tools"]["rsvg"]

    def timing(label, x):
        return f"| {label} | {x['median_ms']:.2f} | {x['p90_ms']:.2f} | {x['min_ms']:.2f} | {x['max_ms']:.2f} |"

    def row(label, x):
        ms = sorted(t * 1000 for t in x["times"])
        o = x["output"]
        return (f"| {label} | {T.mean(ms):.1f} | {T.median(ms):.1f} | {ms[0]:.1f} | {ms[-1]:.1f} | {len(ms)} | "
                f"{x['cpu'] * 1000:.1f} | {o['width']}x{o['height']}, {o['bytes']:,} bytes |")
    return ["## 11. Avatars: a 500 px initials avatar, in-process, as `gpick avatar`, and in its editor (A1-A3)", "",
            f"The model: text \"{a['text']}\" (drawn: \"{a['shown']}\"), a vertical gradient {' → '.join(a['gradient'])}, "
            f"shape {a['shape']}, {a['size']}×{a['size']} px; the text's colour left to gpick (it chose {a['text_color']}).", "",
            "### A1: render in-process", "",
            f"gpick-avatarbench (bench/avatarbench, linking GpickAvatar) times `AvatarRenderer().render(model)` — the "
            "gradient, the initials fitted and coloured for contrast, the circle cut — from the call to the rendered "
            f"avatar, {a['runs']} times after {a['warmup']} warm-up, and the same followed by `encoded(as: .png)`. The "
            "target is the render; the encoding is shown beside it.", "", "```", a["command"], "```", "",
            "| measure | median ms | p90 | min | max |", "|---|---|---|---|---|",
            timing("render (the target)", a["render"]), timing("render + PNG encoding", a["render_png"]), "",
            f"- Render: **{a1.result}** — target {a1.target}: {verdict(a1.ok)} (PNG {a['png_bytes']:,} bytes; host steal "
            f"{a['steal']:.1f} %)", "",
            "### A2: `gpick avatar` against rsvg-convert, whole process", "",
            f"hyperfine, no shell, {cli['runs']} runs of each after {cli['warmup']} warm-up, in one run; both write a PNG "
            "in bench/work. rsvg-convert draws the same picture from an SVG written by the bench: the gradient, clipped to "
            "the inscribed circle, the initials in DejaVu Sans Bold at 0.4 of the side, white, centred (the baseline placed "
            "by hand: rsvg-convert ignores dominant-baseline). gpick's time includes gpick handing the command to "
            "gpick-avatar beside it.", "", "```", g["command"], v["command"], "```", "", "```svg", cli["svg"].strip(), "```", "",
            "| tool | mean ms | median | min | max | runs | CPU ms (mean) | output |", "|---|---|---|---|---|---|---|---|",
            row("gpick avatar", g), row("rsvg-convert", v), "",
            f"- Ratio gpick / rsvg-convert (means): **{a2.result}** — target {a2.target}: {verdict(a2.ok)} (medians: "
            f"{T.tool_ratio(cli, 'gpick', 'rsvg'):.2f}x; host steal {cli['steal']:.1f} %)", ""] + avatar_editor(r.get("editor"), c)


def avatar_editor(e, c):
    if not e:
        return []
    (a3,) = by_ref(c, "A3")
    ms = sorted(e["ms"])
    return ["### A3: the editor's preview after a change", "",
            f"`gpick avatar edit` serves its page; bench/browser/avatar_probe.py opens it in headless Chromium and sets the "
            f"top colour {e['changes']} times (after two not counted), each timed on the page's clock from the input event "
            "to the next animation frame after the new preview (drawn by gpick, sent as PNG) has loaded. The probe then "
            "presses Cancel.", "", "```", e["command"], "```", "",
            f"- Median **{a3.result}** — target {a3.target}: {verdict(a3.ok)} (p90 {ms[int(0.9 * (len(ms) - 1))]:.1f} ms)", ""]


SECTIONS = (("snap", snap), ("record", record), ("memory", memory), ("session", session), ("live", live),
            ("flips", flips), ("terminal", terminal), ("library", library), ("thumbs", thumbs),
            ("realfiles", realfiles), ("imagesource", imagesource), ("picker", picker), ("rest", rest),
            ("avatar", avatar), ("stream", stream), ("camera", camera), ("motion", motion), ("watchclips", watchclips), ("soak", soak))


def render(results):
    """The whole RESULTS.md for one run (only the sections it ran)."""
    checks = T.checks(results)
    c = by_name(checks)
    lines = header(results["meta"]) + summary(checks)
    for name, section in SECTIONS:
        if results.get(name):
            lines += section(results[name], c)
    return "\n".join(lines)
